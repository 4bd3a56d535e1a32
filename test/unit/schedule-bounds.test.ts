import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fewestPolls, fleetBoundPolicy, tightestDelay } from '../../bench/schedule/bounds.js';
import { factorForPolls, fixedPolicy, scaledPolicy } from '../../bench/schedule/baselines.js';
import { simulate, type SimPolicy, type Trace } from '../../src/schedule/simulate.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = Date.UTC(2026, 0, 5);

/** A trace of `days` days; each feed's items at the given offsets (ms from the start). */
function traceOf(days: number, feeds: number[][]): Trace {
  return {
    start: new Date(START).toISOString(),
    end: new Date(START + days * DAY).toISOString(),
    feeds: feeds.map((offsets, f) => ({ id: `f${f}`, window: 10, items: offsets.map((offset, i) => ({ guid: `${f}-${i}`, at: new Date(START + offset).toISOString() })) })),
  };
}

/** `count` items spread evenly over the hours `from`…`to` (UTC) of each of `days` days. */
const spread = (days: number, count: number, from = 0, to = 24) =>
  Array.from({ length: count }, (_, i) => Math.floor(i / (count / days)) * DAY + from * HOUR + ((i % (count / days)) / (count / days)) * (to - from) * HOUR);

test('the densest feeds are polled every T, until the late items left fit the quantile', () => {
  // 950 items on one feed, 50 on another: only the busy one must be on time for the p95.
  const trace = traceOf(10, [spread(10, 950), spread(10, 50)]);
  const tenMinutes = 10 * 60_000;
  assert.equal(Math.round(fewestPolls(trace, tenMinutes, 'feed')), (10 * DAY) / tenMinutes);
  // At the p90 a tenth may be late: 100 items, all of the quiet feed's and 50 of the busy one's.
  assert.equal(Math.round(fewestPolls(trace, tenMinutes, 'feed', 0.9)), Math.round((900 / 950) * ((10 * DAY) / tenMinutes)));
});

test('by the hour, a feed busy at a few hours is polled every T at those hours only', () => {
  // 960 items between 08:00 and 12:00 on each of 10 days, 40 spread over the day on another feed.
  const trace = traceOf(10, [spread(10, 960, 8, 12), spread(10, 40)]);
  const T = 10 * 60_000;
  const byFeed = fewestPolls(trace, T, 'feed');
  const byHour = fewestPolls(trace, T, 'hour');
  assert.equal(Math.round(byFeed), (10 * DAY) / T - Math.round(((10 * DAY) / T) * (10 / 960)));
  // The four busy hours of each day, every ten minutes (10 days × 6 polls an hour), but for the
  // 10 items that may be late besides the quiet feed's 40: 230 of the last hour's 240 on time.
  assert.ok(Math.abs(byHour - (3 * 10 * 6 + (230 / 240) * 10 * 6)) < 1e-9);
  assert.ok(byHour < byFeed / 5);
});

test('a looser delay costs proportionally fewer polls; no items cost none', () => {
  const trace = traceOf(7, [spread(7, 700), spread(7, 70), spread(7, 7)]);
  const at10 = fewestPolls(trace, 10 * 60_000, 'feed');
  const at20 = fewestPolls(trace, 20 * 60_000, 'feed');
  assert.ok(Math.abs(at10 / at20 - 2) < 1e-9);
  assert.equal(fewestPolls(traceOf(7, [[], []]), 10 * 60_000, 'hour'), 0);
});

test('the fleet-wide bound polls only the feeds that carry the share of the items, and no longer apart than the bound', () => {
  // 900, 80 and 20 items: 95% of the 1,000 is reached with the first two feeds.
  const trace = traceOf(2, [spread(2, 900), spread(2, 80), spread(2, 20)]);
  const daily: SimPolicy<null> = { name: 'daily', start: () => null, afterPoll: (state, at) => ({ state, next: at + DAY }) };
  const bound = 30 * 60_000;
  const { feeds } = simulate(trace, fleetBoundPolicy(daily, trace, bound));
  const gaps = (times: string[]) => times.slice(1).map((time, i) => Date.parse(time) - Date.parse(times[i]!));
  assert.ok(gaps(feeds[0]!.times).every((gap) => gap <= bound));
  assert.ok(gaps(feeds[1]!.times).every((gap) => gap <= bound));
  // The quiet feed keeps the policy's own day: the start, a day later, and the end.
  assert.equal(feeds[2]!.polls, 3);
  assert.equal(feeds[0]!.polls, (2 * DAY) / bound + 1);
});

test('the tightest delay a poll budget buys: the bound at that delay is the budget', () => {
  const trace = traceOf(7, [spread(7, 700), spread(7, 70, 8, 12), spread(7, 7)]);
  const budget = 500;
  const T = tightestDelay(trace, budget, 'hour');
  assert.ok(Math.abs(fewestPolls(trace, T, 'hour') - budget) < 1e-6);
  // Half the polls, twice the delay; a looser quantile, a tighter delay for the same polls.
  assert.ok(Math.abs(tightestDelay(trace, budget / 2, 'hour') / T - 2) < 1e-9);
  assert.ok(tightestDelay(trace, budget, 'hour', 0.9) < T);
  assert.equal(tightestDelay(traceOf(7, [[]]), budget, 'feed'), 0);
});

test('a policy scaled to another number of polls keeps its allocation; the factor for a target is found', () => {
  const trace = traceOf(2, [spread(2, 100), spread(2, 10)]);
  // Every feed hourly, then every two hours: half the polls, the same feeds.
  const hourly = fixedPolicy(HOUR);
  const polls = (k: number) => simulate(trace, scaledPolicy(hourly, k)).feeds.reduce((sum, feed) => sum + feed.polls, 0);
  assert.equal(polls(1), 2 * (2 * 24 + 1));
  assert.equal(polls(2), 2 * (24 + 1));
  const k = factorForPolls(polls, 2 * (12 + 1));
  assert.ok(Math.abs(k - 4) < 0.05, `k = ${k}`);
  assert.equal(polls(k), 2 * (12 + 1));
});
