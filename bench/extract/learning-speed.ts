/**
 * How long learning a wrapper from a site's first ten pages takes, parse included, printed as one
 * JSON object {site: ms}: each site's median of ROUNDS runs. The runs go in rounds over every
 * site, not back to back, so that a few seconds in which the machine runs slow (a shared virtual
 * machine does) cost a site one run of its three, not all three. bench:extract runs it as a process
 * of its own: the daemon learns in a pool worker with a heap of its own, and timed beside jsdom's
 * documents in one heap a learning measured the collector cleaning up after Readability.js.
 *
 *   node --import tsx bench/extract/learning-speed.ts DATASETS SET…   (SET: news-2005, news-2009, sites-2012)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { learnFromSamples, type SamplePage } from '../../src/extract/learn.js';
import { quantile } from '../quantile.js';

const ROUNDS = 3;
const [root, ...sets] = process.argv.slice(2);
const sites: Array<{ name: string; samples: SamplePage[]; runs: number[] }> = [];
for (const set of sets) {
  const dir = join(root!, 'same-template', set);
  const manifest = z.array(z.object({ site: z.string(), page: z.string() })).parse(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')));
  for (const site of [...new Set(manifest.map((entry) => entry.site))]) {
    const samples = manifest.filter((entry) => entry.site === site).slice(0, 10).map((entry) => ({ input: readFileSync(join(dir, `${entry.page}.html`)) }));
    sites.push({ name: `${set}/${site}`, samples, runs: [] });
  }
}
for (let round = 0; round < ROUNDS; round++) {
  for (const site of sites) {
    const started = performance.now();
    learnFromSamples(site.samples);
    site.runs.push(performance.now() - started);
  }
}
console.log(JSON.stringify(Object.fromEntries(sites.map((site) => [site.name, quantile(site.runs, 0.5)]))));
