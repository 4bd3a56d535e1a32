/**
 * How long learning a wrapper from a site's first ten pages takes, parse included (each site's
 * median of three), printed as one JSON object {site: ms}. bench:extract runs it as a process of
 * its own: the daemon learns in a pool worker with a heap of its own, and timed beside jsdom's
 * documents in one heap a learning measured the collector cleaning up after Readability.js.
 *
 *   node --import tsx bench/extract/learning-speed.ts DATASETS SET…   (SET: news-2005, news-2009, sites-2012)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { learnFromSamples } from '../../src/extract/learn.js';

const [root, ...sets] = process.argv.slice(2);
const times: Record<string, number> = {};
for (const set of sets) {
  const dir = join(root!, 'same-template', set);
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Array<{ site: string; page: string }>;
  for (const site of [...new Set(manifest.map((entry) => entry.site))]) {
    const samples = manifest.filter((entry) => entry.site === site).slice(0, 10).map((entry) => ({ input: readFileSync(join(dir, `${entry.page}.html`)) }));
    const runs = [0, 1, 2].map(() => {
      const started = performance.now();
      learnFromSamples(samples);
      return performance.now() - started;
    }).sort((a, b) => a - b);
    times[`${set}/${site}`] = runs[1]!;
  }
}
console.log(JSON.stringify(times));
