/**
 * How long learning a wrapper from a site's first ten pages takes, parse included, printed as one
 * JSON object {site: ms}: each site's median of ROUNDS runs. The runs go in rounds over every
 * site, not back to back, so that a few seconds in which the machine runs slow (a shared virtual
 * machine does) cost a site one run of its three, not all three. bench:extract runs it as a process
 * of its own: the daemon learns in a pool worker with a heap of its own, and timed beside jsdom's
 * documents in one heap a learning measured the collector cleaning up after Readability.js.
 *
 * With `--against DIR` (another checkout of Forest, with its node_modules), it compares: DIR's
 * learning and this checkout's run in the same process, site by site in alternation, and it prints
 * a table. On this machine the same code's total moved by a third between two runs an hour apart,
 * so two separate runs compare the hours, not the code; alternated in one process, both see the
 * same hour.
 *
 *   node --import tsx bench/extract/learning-speed.ts DATASETS SET…   (SET: news-2005, news-2009, sites-2012)
 *   node --import tsx bench/extract/learning-speed.ts --against DIR [--rounds N] [--json] DATASETS SET…
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { learnFromSamples, type SamplePage } from '../../src/extract/learn.js';
import { quantile } from '../quantile.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { against: { type: 'string' }, rounds: { type: 'string', default: '3' }, json: { type: 'boolean', default: false } },
});
const [root, ...sets] = positionals;
if (!root || sets.length === 0) {
  console.error('usage: learning-speed.ts [--against DIR] [--rounds N] [--json] DATASETS SET…');
  process.exit(2);
}
const rounds = Math.max(1, Number(values.rounds));

type Learn = (samples: SamplePage[]) => unknown;
const codes: Array<{ name: string; learn: Learn }> = [{ name: 'this checkout', learn: learnFromSamples }];
if (values.against) {
  const module: unknown = await import(pathToFileURL(join(resolve(values.against), 'src', 'extract', 'learn.ts')).href);
  const { learnFromSamples: learn } = z.object({ learnFromSamples: z.custom<Learn>((value) => typeof value === 'function') }).parse(module);
  codes.push({ name: values.against, learn });
}

const sites: Array<{ name: string; samples: SamplePage[]; runs: number[][] }> = [];
for (const set of sets) {
  const dir = join(root, 'same-template', set);
  const manifest = z.array(z.object({ site: z.string(), page: z.string() })).parse(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')));
  for (const site of [...new Set(manifest.map((entry) => entry.site))]) {
    const samples = manifest.filter((entry) => entry.site === site).slice(0, 10).map((entry) => ({ input: readFileSync(join(dir, `${entry.page}.html`)) }));
    sites.push({ name: `${set}/${site}`, samples, runs: codes.map(() => []) });
  }
}
for (let round = 0; round < rounds; round++) {
  for (const site of sites) {
    // Alternate which code goes first, so that neither always finds the other's garbage.
    for (let k = 0; k < codes.length; k++) {
      const code = (k + round) % codes.length;
      const started = performance.now();
      codes[code]!.learn(site.samples);
      site.runs[code]!.push(performance.now() - started);
    }
  }
}

const medians = codes.map((_, code) => sites.map((site) => ({ site: site.name, ms: quantile(site.runs[code]!, 0.5) })));
if (codes.length === 1) {
  console.log(JSON.stringify(Object.fromEntries(medians[0]!.map(({ site, ms }) => [site, ms]))));
} else {
  const rows = codes.map((code, k) => {
    const list = medians[k]!;
    const slowest = list.reduce((a, b) => (b.ms > a.ms ? b : a));
    return { code: code.name, sumMs: list.reduce((sum, { ms }) => sum + ms, 0), medianSiteMs: quantile(list.map(({ ms }) => ms), 0.5), slowest };
  });
  if (values.json) console.log(JSON.stringify({ rounds, sites: sites.length, codes: rows }));
  else {
    console.log(`learning from 10 pages, parse included: each site's median of ${rounds} runs, the codes alternated site by site in one process`);
    console.log('| code | sum of the sites\' medians | median site | slowest site |');
    console.log('|---|---|---|---|');
    for (const row of rows) console.log(`| ${row.code} | ${row.sumMs.toFixed(0)} ms | ${row.medianSiteMs.toFixed(0)} ms | ${row.slowest.ms.toFixed(0)} ms (${row.slowest.site}) |`);
  }
}
