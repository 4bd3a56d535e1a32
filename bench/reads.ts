/**
 * `npm run bench:reads -- --db=PATH|URL [--json]`: the reads an archivist makes (bench/scale/reads.ts),
 * timed on an existing archive — one bench:hundred-thousand kept (`--keep`), or any archive. The
 * archive is migrated first if it is older than the code (as any command would).
 */
import { loadCodec } from '../src/archive/codec.js';
import { openArchive } from '../src/archive/open-archive.js';
import { benchArgs } from './args.js';
import { timedReads } from './scale/reads.js';

const args = benchArgs();
const db = args.get('db');
if (!db) throw new Error('--db=PATH (a SQLite archive) or --db=postgres://… is needed');
const database: { path: string } | { url: string } = /^postgres(ql)?:/.test(db) ? { url: db } : { path: db };
await loadCodec();
// Opening once as a command does applies any migration, so that the timed reads are of the reads alone.
await (await openArchive({ path: 'path' in database ? database.path : '', url: 'url' in database ? database.url : null, maxSize: 'unlimited' })).close();
const reads = await timedReads(database, Date.now());
if (args.has('json')) console.log(JSON.stringify(reads));
else {
  console.log('| read | ms (median of up to 5) |\n|---|---|');
  for (const read of reads) console.log(`| ${read.read} | ${read.ms.toFixed(1)} |`);
}
