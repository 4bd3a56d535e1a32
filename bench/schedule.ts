/**
 * Scheduling benchmark: Forest's policy against fixed intervals, Miniflux and CommaFeed, on the
 * same generated month of feeds, in one run.
 *
 *   npm run bench:schedule [-- --seed N] [--days D] [--per-feed] [--trace-out FILE]
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadSettings } from '../src/config/settings.js';
import { forestPolicy, simulate, type FeedResult, type SimPolicy, type Trace } from '../src/schedule/simulate.js';
import { commafeedPolicy, fixedPolicy, minifluxPolicy } from './schedule/baselines.js';
import { generateTraces } from './schedule/traces.js';

const { values } = parseArgs({ options: { seed: { type: 'string', default: '20261122' }, days: { type: 'string', default: '30' }, 'per-feed': { type: 'boolean', default: false }, 'trace-out': { type: 'string' } } });
const trace: Trace = generateTraces(Number(values.seed), Number(values.days));
if (values['trace-out']) writeFileSync(values['trace-out'], JSON.stringify(trace));
const settings = loadSettings({ env: {} }).schedule;

const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN);
const minutes = (seconds: number) => (Number.isNaN(seconds) ? '—' : `${(seconds / 60).toFixed(1)}`);

interface Row {
  name: string;
  polls: number;
  items: number;
  missed: number;
  median: number;
  p95: number;
  ms: number;
  feeds: FeedResult[];
}

function run<S>(policy: SimPolicy<S>): Row {
  const started = performance.now();
  const { feeds } = simulate(trace, policy);
  const ms = performance.now() - started;
  const delays = feeds.flatMap((feed) => feed.delays).sort((a, b) => a - b);
  const polls = feeds.reduce((sum, feed) => sum + feed.polls, 0);
  const missed = feeds.reduce((sum, feed) => sum + feed.missed, 0);
  const captured = feeds.reduce((sum, feed) => sum + feed.captured, 0);
  return { name: policy.name, polls, items: captured + missed, missed, median: quantile(delays, 0.5), p95: quantile(delays, 0.95), ms, feeds };
}

const rows = [fixedPolicy(15 * 60_000), fixedPolicy(60 * 60_000), minifluxPolicy(), commafeedPolicy(), forestPolicy(settings)].map((policy) => run(policy as SimPolicy<unknown>));
const table = [
  ['policy', 'polls', 'items', 'missed', 'missed %', 'median delay (min)', 'p95 delay (min)', 'sim ms'],
  ...rows.map((row) => [row.name, String(row.polls), String(row.items), String(row.missed), `${((100 * row.missed) / row.items).toFixed(3)}%`, minutes(row.median), minutes(row.p95), row.ms.toFixed(0)]),
];
const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
console.log(`${trace.feeds.length} feeds, ${values.days} days, seed ${values.seed}\n`);
for (const row of table) console.log(row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '));

const forest = rows.at(-1)!;
const miniflux = rows.find((row) => row.name.startsWith('Miniflux'))!;
const commafeed = rows.find((row) => row.name.startsWith('CommaFeed'))!;
console.log('\ntargets:');
const check = (ok: boolean, text: string) => console.log(`  ${ok ? 'met ' : 'MISSED'}  ${text}`);
check(forest.missed / forest.items <= 0.001, `missed ≤ 0.1 % of items (${((100 * forest.missed) / forest.items).toFixed(3)}%)`);
check(forest.polls < miniflux.polls, `fewer polls than Miniflux (${forest.polls} vs ${miniflux.polls}, ${(forest.polls / miniflux.polls).toFixed(2)}×)`);
check(forest.polls <= commafeed.polls / 2, `at most half of CommaFeed's polls (${(forest.polls / commafeed.polls).toFixed(2)}×)`);
check(forest.p95 <= commafeed.p95, `p95 delay no worse than CommaFeed's (${minutes(forest.p95)} vs ${minutes(commafeed.p95)} min)`);
check(forest.median < 15 * 60, `median delay under 15 min (${minutes(forest.median)} min)`);

if (values['per-feed']) {
  console.log('\nper feed (polls / missed / median min / p95 min):');
  for (let i = 0; i < trace.feeds.length; i++) {
    const cells = rows.map((row) => {
      const feed = row.feeds[i]!;
      const sorted = [...feed.delays].sort((a, b) => a - b);
      return `${feed.polls}/${feed.missed}/${minutes(quantile(sorted, 0.5))}/${minutes(quantile(sorted, 0.95))}`.padEnd(22);
    });
    console.log(`  ${trace.feeds[i]!.id.padEnd(26)} ${cells.join(' ')}`);
  }
}
