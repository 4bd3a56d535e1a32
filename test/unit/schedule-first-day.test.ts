import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NO_HINTS, nextPoll, type ScheduleSettings } from '../../src/schedule/policy.js';
import { brokeSilence, emptyState, observePoll, type ScheduleState } from '../../src/schedule/state.js';

// Issue #52, item 1: the first document's dates are a claim, not an observation.

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const settings: ScheduleSettings = { defaultInterval: 30 * MIN, minInterval: 5 * MIN, maxInterval: DAY, jitter: 0, overflowRisk: 0.001, delayCost: 8, delayTarget: 20 * MIN, pollsPerItem: 3 };
const T0 = Date.UTC(2026, 10, 2, 0, 0);

type Shown = Array<{ guid: string; date: number | null; isNew: boolean }>;
const poll = (state: ScheduleState, at: number, items: Shown) => observePoll(state, { at, failed: false, notModified: false, items });
const intervalAfter = (state: ScheduleState, at: number) => nextPoll(state, NO_HINTS, at, settings, () => 0.5);

/** Ten items a day apart, the newest a day before `at`, all already seen unless `isNew`. */
const slowHistory = (at: number, isNew: boolean): Shown => Array.from({ length: 10 }, (_, i) => ({ guid: `old${i}`, date: at - (i + 1) * DAY, isNew }));

test('a first document with a slow history is polled again within the default interval, not after hours', () => {
  const state = poll(emptyState(), T0, slowHistory(T0, true));
  const decision = intervalAfter(state, T0);
  assert.ok(decision.at.getTime() - T0 <= settings.defaultInterval, `${(decision.at.getTime() - T0) / MIN} min`);
  assert.match(decision.reason, /watched for 0\w* only/);
});

test('the bound grows with the time polls have watched the feed, and lets go once the feed is known', () => {
  let state = poll(emptyState(), T0, slowHistory(T0, true));
  let at = T0;
  const intervals: number[] = [];
  // The feed keeps its slow pace: nothing new at any poll of the first days.
  for (let i = 0; i < 12; i++) {
    const next = intervalAfter(state, at).at.getTime();
    intervals.push(next - at);
    at = next;
    state = poll(state, at, slowHistory(T0, false));
  }
  for (let i = 0; i < intervals.length; i++) {
    assert.ok(intervals[i]! <= Math.max(settings.defaultInterval, intervals.slice(0, i).reduce((a, b) => a + b, 0)) + 1, `interval ${i} is at most what was watched before it: ${intervals.map((x) => Math.round(x / MIN))}`);
  }
  assert.ok(intervals.at(-1)! >= 6 * HOUR, `in the end the slow feed is polled slowly: ${Math.round(intervals.at(-1)! / MIN)} min`);
  assert.ok(intervals.filter((interval) => interval < 6 * HOUR).length <= 8, `a handful of cautious polls: ${intervals.map((x) => Math.round(x / MIN))}`);
});

test('a feed that publishes every few minutes from subscription on is planned at that rate after its second poll', () => {
  // The first document claims a slow history; from then on an item every 3 minutes (dates true).
  let state = poll(emptyState(), T0, slowHistory(T0, true));
  const second = intervalAfter(state, T0).at.getTime();
  const fresh: Shown = Array.from({ length: 10 }, (_, i) => ({ guid: `new${i}`, date: second - i * 3 * MIN, isNew: true }));
  state = poll(state, second, fresh);
  const third = intervalAfter(state, second).at.getTime() - second;
  assert.ok(third <= 30 * MIN, `after seeing ten items in half an hour: ${third / MIN} min`);
});

test('a feed silent for weeks that shows new items is watched closely again at once, even with useless dates', () => {
  // A feed of one item a day, watched for a month, then silent for three weeks.
  let state = emptyState();
  let at = T0;
  for (let day = 0; day < 30; day++, at += DAY) state = poll(state, at, [{ guid: `d${day}`, date: at - HOUR, isNew: true }]);
  for (let day = 0; day < 21; day++, at += DAY) state = poll(state, at, [{ guid: `d29`, date: null, isNew: false }]);
  assert.equal(brokeSilence(state, at - DAY), true);
  // It wakes: three new items, undated.
  state = poll(state, at, [1, 2, 3].map((i) => ({ guid: `w${i}`, date: null, isNew: true })));
  assert.equal(state.watchedSince, at);
  const decision = intervalAfter(state, at);
  assert.ok(decision.at.getTime() - at <= settings.defaultInterval, `${(decision.at.getTime() - at) / MIN} min: ${decision.reason}`);
});

test('a slow feed\'s ordinary quiet spell is no silence: a weekly feed\'s week without news does not restart the watch', () => {
  let state = emptyState();
  let at = T0;
  for (let week = 0; week < 8; week++, at += 7 * DAY) state = poll(state, at, [{ guid: `w${week}`, date: at - HOUR, isNew: true }]);
  const watched = state.watchedSince;
  state = poll(state, at + 8 * DAY, [{ guid: 'late', date: at + 8 * DAY - HOUR, isNew: true }]);
  assert.equal(state.watchedSince, watched);
});
