/**
 * `npm run bench:reads -- --db=PATH|URL [--json]`: the reads an archivist makes (bench/scale/reads.ts),
 * timed on an existing archive — one bench:hundred-thousand kept (`--keep`), or any archive. Opening
 * it migrates an archive older than the code (as any command would), before any read is timed.
 */
import { loadCodec } from '../src/archive/codec.js';
import { benchArgs } from './args.js';
import { timedReads } from './scale/reads.js';

const args = benchArgs();
const db = args.get('db');
if (!db) throw new Error('--db=PATH (a SQLite archive) or --db=postgres://… is needed');
const database: { path: string } | { url: string } = /^postgres(ql)?:/.test(db) ? { url: db } : { path: db };
await loadCodec();
const reads = await timedReads(database, Date.now());
if (args.has('json')) console.log(JSON.stringify(reads));
else {
  console.log('| read | ms (median of up to 5) |\n|---|---|');
  for (const read of reads) console.log(`| ${read.read} | ${read.ms.toFixed(1)} |`);
}
