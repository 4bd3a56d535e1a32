import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lossesOf } from '../../bench/schedule/losses.js';
import { generateTraces } from '../../bench/schedule/traces.js';
import { loadSettings } from '../../src/config/settings.js';
import { fixedPolicy } from '../../bench/schedule/baselines.js';
import { forestPolicy, simulateFeed, type SimPolicy, type Trace } from '../../src/schedule/simulate.js';

const MIN = 60_000;

test('an interval loses what arrived in it beyond the window; an item at a poll is seen by that poll', () => {
  const polls = [0, 10 * MIN, 20 * MIN, 30 * MIN];
  // 4 items in the first interval (one at its closing poll), 1 in the second, 6 in the third.
  const arrivals = [1 * MIN, 2 * MIN, 3 * MIN, 10 * MIN, 15 * MIN, ...[21, 22, 23, 24, 25, 26].map((m) => m * MIN)];
  assert.deepEqual(lossesOf(arrivals, polls, 3), [
    { from: 0, to: 10 * MIN, arrived: 4, lost: 1 },
    { from: 20 * MIN, to: 30 * MIN, arrived: 6, lost: 3 },
  ]);
  assert.deepEqual(lossesOf(arrivals, polls, 6), []);
});

/** Items the simulation missed (or a gap walk recovered late) and items lossesOf finds lost, over every feed of a trace. */
function missedAndLost<S>(trace: Trace, policy: SimPolicy<S>): { missed: number; lost: number } {
  const start = Date.parse(trace.start);
  const end = Date.parse(trace.end);
  let missed = 0;
  let lost = 0;
  for (const feed of trace.feeds) {
    const result = simulateFeed(feed, policy, start, end);
    const arrivals = feed.items.map((item) => Date.parse(item.at)).sort((a, b) => a - b);
    missed += result.missed + result.recovered;
    lost += lossesOf(arrivals, result.times.map(Date.parse), feed.window).reduce((sum, loss) => sum + loss.lost, 0);
  }
  return { missed, lost };
}

test("the losses of every feed add up to the simulation's missed items", () => {
  const trace = generateTraces(2, 10);
  const forest = missedAndLost(trace, forestPolicy(loadSettings({ env: {} }).schedule));
  assert.equal(forest.lost, forest.missed, 'Forest');
  const hourly = missedAndLost(trace, fixedPolicy(60 * MIN));
  assert.ok(hourly.missed > 0, 'hourly polls miss items of the busy feeds');
  assert.equal(hourly.lost, hourly.missed, 'fixed 60 min');
});

test('a feed that links its older items loses nothing to an overflow Forest walks back; one that does not, and a reader that does not walk, lose it', () => {
  const start = Date.UTC(2026, 0, 5);
  const end = start + 6 * 60 * MIN;
  // Ten items of history, then a burst of 25 within 20 minutes, between two polls an hour apart.
  const items = [...Array.from({ length: 10 }, (_, i) => start - (10 - i) * 60 * MIN), ...Array.from({ length: 25 }, (_, i) => start + 90 * MIN + i * 48_000)]
    .map((at, i) => ({ guid: `g${i}`, at: new Date(at).toISOString(), date: new Date(at).toISOString() }));
  const feed = (pages: boolean) => ({ id: `burst-${pages}`, window: 10, ttl: null, maxAge: null, pages, items });
  const hourly = fixedPolicy(60 * MIN);
  const walking: SimPolicy<null> = { ...hourly, name: 'hourly, walking gaps', walksGaps: true };
  const walked = simulateFeed(feed(true), walking, start, end);
  assert.deepEqual([walked.missed, walked.recovered, walked.captured], [0, 15, 25]);
  // Recovered at the poll that saw the gap, with their delay: the oldest of the burst waited longest.
  assert.equal(Math.max(...walked.delays), (120 * MIN - 90 * MIN) / 1000);
  assert.deepEqual([simulateFeed(feed(false), walking, start, end).missed, simulateFeed(feed(true), hourly, start, end).missed], [15, 15]);
});
