/**
 * `npm run bench:pool`: the worker pool's CPU per archived page, replayed in one worker with the
 * pool's heap limits — a stable A/B of the CPU side of `bench:scale`, whose per-page figure
 * moves by up to 25% between runs of the same code on this machine (the network, the scheduler
 * and the machine's other load are in it).
 *
 * Every page of ../shared/datasets/same-template goes through what the daemon does with it: the
 * first capture (`encode`: hash and compress against its site's first page, the reference;
 * `extract`: decompress, parse, extract, normalize, hash) and a revisit that finds the article
 * unchanged behind a rotating ad (`revisit`: hash, parse, extract, compare). Each round times
 * each step (wall time in the worker) and takes the process's CPU time over the round (every
 * thread: V8's collector helpers included). The median round is reported; the first round warms
 * the JIT and is left out.
 *
 *   npm run bench:pool -- [--rounds=6] [--young=MB] [--old=MB] [--unsourced] [--datasets=DIR] [--json]
 *
 * `--young` / `--old` replace the pool's heap limits (src/daemon/pool.ts), to try them here first.
 * `--unsourced` also times each revisit against a key that does not say what its object was made
 * from (a key from before migration 0013), so the page is sanitized and normalized again: what the
 * source saves, in one process (the CPU figure then covers both revisits).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { z } from 'zod';
import { encodeBody, loadCodec, type StoredBody } from '../src/archive/codec.js';
import { WORKER_LIMITS } from '../src/daemon/pool.js';
import { encodeTask, extractTask, revisitTask, type PageInput } from '../src/daemon/tasks.js';
import { EXTRACTOR_VERSION } from '../src/extract/extract.js';
import { PROJECT_ROOT } from '../src/util/project-root.js';
import { quantile } from './quantile.js';

interface Options { datasets: string; rounds: number; unsourced: boolean }
interface Round { encode: number; extract: number; revisit: number; unsourced: number; cpu: number; pages: number }
const STEPS = ['encode', 'extract', 'revisit', 'unsourced'] as const;
const LABELS: Record<(typeof STEPS)[number], string> = { encode: 'encode', extract: 'extract', revisit: 'revisit', unsourced: 'revisit, the key\'s source unknown' };

const manifestSchema = z.array(z.object({ site: z.string(), page: z.string() }));

/** Each site's pages, in the manifest's order. */
function sites(root: string): Buffer[][] {
  const out: Buffer[][] = [];
  const base = join(root, 'same-template');
  for (const set of readdirSync(base).sort()) {
    const manifest = manifestSchema.parse(JSON.parse(readFileSync(join(base, set, 'manifest.json'), 'utf8')));
    for (const site of [...new Set(manifest.map((entry) => entry.site))]) {
      out.push(manifest.filter((entry) => entry.site === site).map((entry) => readFileSync(join(base, set, `${entry.page}.html`))));
    }
  }
  return out;
}

async function replay(options: Options): Promise<Round[]> {
  await loadCodec();
  const all = sites(options.datasets);
  const feed = { title: null, summary: null, published: null, updated: null, author: null };
  const rounds: Round[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const spent = { encode: 0, extract: 0, revisit: 0, unsourced: 0 };
    const time = <T>(step: keyof typeof spent, work: () => T): T => {
      const started = performance.now();
      const result = work();
      spent[step] += performance.now() - started;
      return result;
    };
    const cpu = process.cpuUsage();
    let pages = 0;
    for (const pagesOfSite of all) {
      const first = encodeBody(pagesOfSite[0]!);
      const reference = { sha256: first.sha256, stored: { encoding: first.encoding, data: first.data } };
      for (const [index, bytes] of pagesOfSite.entries()) {
        const encoded = time('encode', () => encodeTask({ body: bytes, reference: index === 0 ? null : reference }));
        const body: StoredBody = encoded.encoding === 'zstd-dict' ? { encoding: encoded.encoding, data: encoded.data, reference: reference.stored } : { encoding: encoded.encoding, data: encoded.data };
        const page: PageInput = { body, contentType: 'text/html', url: `http://site.test/${pages}`, feed };
        const extracted = time('extract', () => extractTask({ page, maxBytes: 8 << 20, templates: [], compare: null }));
        const compare = extracted.hash && extracted.object ? { hash: extracted.hash, method: extracted.article.method, wrapperId: null, object: JSON.stringify(extracted.object), extractor: EXTRACTOR_VERSION, source: extracted.article.source } : null;
        // What changes on every request around an article (bench/scale/web.ts does the same).
        const revisited = Buffer.concat([bytes, Buffer.from(`<div class="promo">Sponsored: offer ${round}</div>`)]);
        const revisit = (key: typeof compare) => revisitTask({ page: { ...page, body: revisited }, maxBytes: 8 << 20, templates: [], compare: key, previousDigest: encoded.sha256, reference });
        // Alternated, so that neither way always runs on a warmer page.
        const ways = [() => time('revisit', () => revisit(compare)), ...(options.unsourced ? [() => time('unsourced', () => revisit(compare && { ...compare, source: null }))] : [])];
        for (const way of pages % 2 ? ways.reverse() : ways) way();
        pages++;
      }
    }
    const used = process.cpuUsage(cpu);
    rounds.push({ ...spent, cpu: (used.user + used.system) / 1000, pages });
  }
  return rounds;
}

if (!isMainThread) {
  parentPort!.postMessage(await replay(workerData as Options));
} else {
  const { values } = parseArgs({
    options: {
      datasets: { type: 'string', default: join(PROJECT_ROOT, '..', 'shared', 'datasets') }, rounds: { type: 'string', default: '6' },
      young: { type: 'string' }, old: { type: 'string' }, unsourced: { type: 'boolean', default: false }, json: { type: 'boolean', default: false },
    },
  });
  const datasets = resolve(values.datasets!);
  if (!existsSync(join(datasets, 'same-template'))) {
    console.error(`no datasets at ${datasets} (use --datasets=DIR)`);
    process.exit(1);
  }
  const rounds = Math.max(2, Number(values.rounds));
  const limits = { maxOldGenerationSizeMb: Number(values.old ?? WORKER_LIMITS.maxOldGenerationSizeMb), maxYoungGenerationSizeMb: Number(values.young ?? WORKER_LIMITS.maxYoungGenerationSizeMb) };
  if (!values.json) process.stderr.write(`replaying ${rounds} rounds in a worker (old ${limits.maxOldGenerationSizeMb} MB, young ${limits.maxYoungGenerationSizeMb} MB)…\n`);
  // Worker threads do not inherit tsx's loader: register it before this file loads again.
  const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const worker = new Worker(boot, { eval: true, workerData: { datasets, rounds, unsourced: values.unsourced! } satisfies Options, resourceLimits: limits });
  const results = await new Promise<Round[]>((resolvePromise, reject) => {
    worker.once('message', (message: Round[]) => resolvePromise(message));
    worker.once('error', reject);
  });
  await worker.terminate();
  const measured = results.slice(1);
  const steps = STEPS.filter((step) => step !== 'unsourced' || values.unsourced);
  const median = (pick: (round: Round) => number) => quantile(measured.map((round) => pick(round) / round.pages), 0.5);
  const result = {
    pages: results[0]!.pages, rounds: measured.length, limits,
    msPerPage: Object.fromEntries(steps.map((step) => [step, median((round) => round[step])])),
    cpuMsPerPage: median((round) => round.cpu),
    maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
  if (values.json) {
    console.log(JSON.stringify(result));
  } else {
    console.log(`| ${result.pages} pages, median of ${result.rounds} rounds | ms per page |`);
    console.log('|---|---|');
    for (const step of steps) console.log(`| ${LABELS[step]} (wall, in the worker) | ${result.msPerPage[step]!.toFixed(2)} |`);
    console.log(`| CPU, every thread (first capture and ${values.unsourced ? 'both revisits' : 'one revisit'}) | ${result.cpuMsPerPage.toFixed(2)} |`);
    console.log(`| resident memory at most | ${result.maxRssMb} MB |`);
  }
}
