import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cronProblem, nextCronTime } from '../../src/schedule/cron.js';
import { decayedRate, expectedArrivals, poissonTail, safeMean } from '../../src/schedule/estimate.js';
import { estimateRate, NO_HINTS, nextPoll, stretchWhenBehind, type PublisherHints, type ScheduleSettings } from '../../src/schedule/policy.js';
import { arrivalEstimates, emptyState, isBurst, observePoll, parseState, profileKind, type ScheduleState } from '../../src/schedule/state.js';
import { SCHEDULE_OPTIONS } from '../../src/schedule/options.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const settings: ScheduleSettings = { defaultInterval: 30 * MIN, minInterval: 5 * MIN, maxInterval: DAY, jitter: 0, overflowRisk: 0.001, delayCost: 8, delayTarget: 20 * MIN, pollsPerItem: 2 };
const T0 = Date.UTC(2026, 10, 2, 0, 0); // a Monday

/** A feed of `window` items published every `gap` ms, polled every `every` ms for `polls` polls. */
function history(options: { gap: number; window: number; polls: number; every: number; date?: (at: number) => number | null }): { state: ScheduleState; now: number } {
  const published = (now: number) => {
    const out: Array<{ guid: string; at: number }> = [];
    for (let at = Math.floor(now / options.gap) * options.gap; out.length < options.window; at -= options.gap) out.push({ guid: `g${at}`, at });
    return out;
  };
  let state = emptyState();
  const seen = new Set<string>();
  let now = T0;
  for (let i = 0; i < options.polls; i++, now += options.every) {
    const items = published(now).map((item) => {
      const isNew = !seen.has(item.guid);
      seen.add(item.guid);
      return { guid: item.guid, date: options.date ? options.date(item.at) : item.at, isNew };
    });
    state = observePoll(state, { at: now, failed: false, notModified: false, items });
  }
  return { state, now: now - options.every };
}

const gapOf = (decision: { at: Date }, now: number) => decision.at.getTime() - now;

test('a new feed with nothing learned polls at the default interval', () => {
  const state = observePoll(emptyState(), { at: T0, failed: false, notModified: false, items: [] });
  const decision = nextPoll(state, NO_HINTS, T0, settings);
  assert.equal(gapOf(decision, T0), 30 * MIN);
  assert.match(decision.reason, /learning/);
  assert.equal(decision.riskAt, null, 'nothing is known to be at risk');
});

test('a poll says from when waiting puts its items at risk: at the poll where the risk binds, later where delay does', () => {
  const busy = history({ gap: 5 * MIN, window: 10, polls: 50, every: 20 * MIN });
  const fast = nextPoll(busy.state, NO_HINTS, busy.now, settings);
  assert.match(fast.reason, /\(overflow risk\)/);
  assert.equal(fast.riskAt?.getTime(), fast.at.getTime());
  // Two items a day in a window of 20: polled for delay's sake, at risk only after days.
  const quiet = history({ gap: 12 * HOUR, window: 20, polls: 30, every: 3 * HOUR });
  const slow = nextPoll(quiet.state, NO_HINTS, quiet.now, settings);
  assert.doesNotMatch(slow.reason, /\(overflow risk\)/);
  assert.ok(slow.riskAt !== null && slow.riskAt.getTime() - slow.at.getTime() > 6 * HOUR, `${slow.riskAt?.toISOString()} against ${slow.at.toISOString()}`);
});

test('a busy feed is polled so that its window cannot overflow; a quiet one rarely', () => {
  // 12 items/hour, window 10: the overflow risk binds well under an hour.
  const busy = history({ gap: 5 * MIN, window: 10, polls: 50, every: 20 * MIN });
  const fast = nextPoll(busy.state, NO_HINTS, busy.now, settings);
  const fastGap = gapOf(fast, busy.now);
  assert.ok(fastGap < 20 * MIN && fastGap >= 5 * MIN, `${fastGap / MIN} min`);
  assert.match(fast.reason, /λ≈1[12]\/h \(dates\), W=10, overflow risk .* \(overflow risk\)/);
  assert.ok(Math.abs((fast.ratePerHour ?? 0) - 12) < 1.5);
  // Two items a day, window 20, with no bound on polls per item: the square-root rule,
  // c·λ·Δ² = 2 → Δ = √(2·12/8) h ≈ 1.7 h.
  const quiet = history({ gap: 12 * HOUR, window: 20, polls: 30, every: 3 * HOUR });
  const slow = nextPoll(quiet.state, NO_HINTS, quiet.now, { ...settings, pollsPerItem: 1e9 });
  const slowGap = gapOf(slow, quiet.now);
  assert.ok(slowGap > 1.4 * HOUR && slowGap < 2.1 * HOUR, `${slowGap / HOUR} h`);
  assert.match(slow.reason, /\(delay cost\)/);
});

test('a slow feed is polled about as often as it publishes, not many times per item', () => {
  // Two items a day: the square-root rule alone (c = 8) would poll every 1.7 h, twelve polls per
  // item; at most two polls per expected item make it 6 h.
  const quiet = history({ gap: 12 * HOUR, window: 20, polls: 30, every: 3 * HOUR });
  const slow = nextPoll(quiet.state, NO_HINTS, quiet.now, settings);
  const slowGap = gapOf(slow, quiet.now);
  assert.ok(slowGap > 5 * HOUR && slowGap < 7 * HOUR, `${slowGap / HOUR} h`);
  assert.match(slow.reason, /\(items per poll\)/);
  // One item every three days: polled at the maximum interval, not every 4.5 h.
  const rare = history({ gap: 80 * HOUR, window: 10, polls: 40, every: 6 * HOUR });
  assert.equal(gapOf(nextPoll(rare.state, NO_HINTS, rare.now, settings), rare.now), DAY);
});

/** A feed publishing at the given times (sorted), polled every `every` from T0 until `until`. */
function replay(times: number[], window: number, every: number, until: number): ScheduleState {
  let state = emptyState();
  const seen = new Set<number>();
  for (let now = T0; now <= until; now += every) {
    const shown = times.filter((at) => at <= now).slice(-window).reverse();
    const items = shown.map((at) => ({ guid: `t${at}`, date: at, isNew: !seen.has(at) }));
    for (const at of shown) seen.add(at);
    state = observePoll(state, { at: now, failed: false, notModified: false, items });
  }
  return state;
}

test('a feed that fills its window in minutes at its peak hours is planned with its peak within days', () => {
  // 36 items a day, all between 12:00 and 15:00 UTC (12 an hour), window 10: at the mean rate
  // (1.5/h) the window lasts six hours, at the peak under an hour. After four days, a poll at
  // 12:00 must come soon enough for the peak (the planned 0.1 % needs ≤ 3 items expected; the
  // shape learned in days is shrunk towards flat, so allow up to 1 %).
  const times: number[] = [];
  for (let day = -2; day < 5; day++) for (let i = 0; i < 36; i++) times.push(T0 + day * DAY + 12 * HOUR + i * 5 * MIN);
  const now = T0 + 4 * DAY + 12 * HOUR;
  const state = replay(times, 10, 30 * MIN, now);
  const decision = nextPoll(state, NO_HINTS, now, { ...settings, delayTarget: HOUR });
  const expected = (gapOf(decision, now) / HOUR) * 12;
  assert.ok(poissonTail(expected, 9) <= 0.01, `${(gapOf(decision, now) / MIN).toFixed(0)} min at the peak: ${expected.toFixed(1)} items expected (${decision.reason})`);
  assert.match(decision.reason, /daily profile/);
});

test('jitter never lengthens an interval past what the overflow risk allows', () => {
  // A week of a feed that publishes 20 an hour from 21:00 to midnight and one item at 09:00,
  // window 8. Through the quiet afternoon the cost rules ask for hours between polls, the
  // overflow risk for a poll before the peak fills the window; the longest jitter (+50 %) must
  // not carry a poll planned just short of the peak into it.
  const times: number[] = [];
  for (let day = -3; day < 7; day++) {
    times.push(T0 + day * DAY + 9 * HOUR);
    for (let i = 0; i < 60; i++) times.push(T0 + day * DAY + 21 * HOUR + i * 3 * MIN);
  }
  const wide = { ...settings, jitter: 0.5 };
  const limit = safeMean(7, wide.overflowRisk);
  let planned = 0;
  for (let now = T0 + 6 * DAY + 12 * HOUR; now < T0 + 6 * DAY + 20 * HOUR; now += 10 * MIN) {
    const state = replay(times.filter((at) => at <= now), 8, 10 * MIN, now);
    const estimate = estimateRate(state, now)!;
    const gap = gapOf(nextPoll(state, NO_HINTS, now, wide, () => 1), now);
    // What the overflow risk plans with: the rate and what it could still be, shaped by the hour.
    const worst = Math.max(expectedArrivals(estimate.rate, estimate.profile, now, gap), expectedArrivals(estimate.uncertainRate, estimate.profile, now, gap));
    assert.ok(worst <= limit * 1.001, `at ${new Date(now).toISOString().slice(11, 16)}: ${(gap / MIN).toFixed(0)} min, ${worst.toFixed(2)} items expected, ${limit.toFixed(2)} allowed`);
    planned++;
  }
  assert.ok(planned > 40);
});

test('a slow feed with a few items close together is not taken for a burst', () => {
  // One item a day, then three within twelve hours: likely enough at that rate (2 % in any
  // 48 h) to be chance, not a reason to poll every hour or two.
  const times = Array.from({ length: 20 }, (_, i) => T0 - 20 * DAY + i * DAY).concat([T0 + 1 * HOUR, T0 + 7 * HOUR, T0 + 12 * HOUR]);
  const now = T0 + 13 * HOUR;
  const state = replay(times, 10, 3 * HOUR, now);
  const decision = nextPoll(state, NO_HINTS, now, settings);
  assert.doesNotMatch(decision.reason, /burst/);
  assert.ok(gapOf(decision, now) >= 8 * HOUR, `${gapOf(decision, now) / HOUR} h`);
});

test('a burst that ended hours before the poll is still remembered', () => {
  const times = Array.from({ length: 20 }, (_, i) => T0 - 20 * DAY + i * DAY);
  for (let i = 0; i < 15; i++) times.push(T0 + 2 * HOUR + i * 2 * MIN);
  const state = replay(times, 25, 8 * HOUR, T0 + 8 * HOUR);
  assert.equal(state.bursts.length, 1);
  assert.ok(state.bursts[0]!.rate * HOUR > 10, `burst rate remembered: ${(state.bursts[0]!.rate * HOUR).toFixed(1)}/h`);
});

const burstRate = (state: ScheduleState) => Math.max(0, ...state.bursts.map((burst) => burst.rate)) * HOUR;

test('a stretch that runs from the last peak hour into a quiet one is judged by the peak', () => {
  // Four days of twenty items an hour from 20:00 to midnight and none after: a stretch of
  // items from 23:40 to 00:10 at the peak's rate ended in a quiet hour, but the peak explains it.
  // A stretch at that rate at 03:00 is a burst.
  const times: number[] = [];
  for (let day = -1; day < 4; day++) for (let i = 0; i < 80; i++) times.push(T0 + day * DAY + 20 * HOUR + i * 3 * MIN);
  const now = T0 + 4 * DAY;
  const state = replay(times, 10, 10 * MIN, now);
  const profile = profileKind(state, now);
  assert.equal(profile, 'daily');
  const longRun = decayedRate(state.arrivals, now, state.observedSince!, SCHEDULE_OPTIONS.rateHalfLife);
  const episode = { seenAt: now, from: T0 + 3 * DAY + 23 * HOUR + 40 * MIN, at: T0 + 4 * DAY + 10 * MIN, rate: 20 / HOUR, size: 10 };
  assert.equal(isBurst(state, profile, longRun, episode), false);
  assert.equal(isBurst(state, profile, longRun, { ...episode, from: T0 + 3 * DAY + 3 * HOUR, at: T0 + 3 * DAY + 3 * HOUR + 30 * MIN }), true);
});

test('a burst that pauses for a poll is one episode, not two', () => {
  // Weeks of one item a day, then 24 items in 75 minutes with a 20-minute pause in the middle,
  // polled every ten minutes: the poll in the pause finds nothing new.
  const times = Array.from({ length: 20 }, (_, i) => T0 - 20 * DAY + i * DAY);
  for (let i = 0; i < 12; i++) times.push(T0 + 2 * HOUR + i * 2 * MIN);
  for (let i = 0; i < 12; i++) times.push(T0 + 2 * HOUR + 45 * MIN + i * 2 * MIN);
  const state = replay(times, 25, 10 * MIN, T0 + 4 * HOUR);
  assert.equal(state.bursts.length, 1, JSON.stringify(state.bursts));
});

test("a burst's rate is measured over the time its items took, not over the whole span", () => {
  // Twenty items in half an hour after weeks of one a day: forty an hour (an hour-long span
  // would say twenty, and plan polls twice as far apart as such a burst allows).
  const times = Array.from({ length: 20 }, (_, i) => T0 - 20 * DAY + i * DAY);
  for (let i = 0; i < 20; i++) times.push(T0 + 2 * HOUR + i * 90_000);
  const state = replay(times, 25, 4 * HOUR, T0 + 4 * HOUR);
  assert.ok(burstRate(state) > 30, `burst rate: ${burstRate(state).toFixed(1)}/h`);
});

test('a first document that is all one cluster is judged again once the silence after it is seen', () => {
  // Subscribed at midnight to a feed whose eight items all came in the last twenty minutes before
  // it (a peak's end): at the first poll its rate is made of those items alone — eight an hour,
  // no burst beside itself. Twenty quiet hours later the rate is under half an item an hour,
  // and the eight items were a burst of twenty an hour that can come again.
  const times = Array.from({ length: 8 }, (_, i) => T0 - 20 * MIN + i * 2.5 * MIN);
  const now = T0 + 20 * HOUR;
  const state = replay(times, 8, 20 * MIN, now);
  assert.equal(state.bursts.length, 1, JSON.stringify(state.bursts));
  assert.ok(burstRate(state) > 15, `burst rate: ${burstRate(state).toFixed(1)}/h`);
  const decision = nextPoll(state, NO_HINTS, now, settings);
  assert.match(decision.reason, /bursts to/);
  assert.ok(gapOf(decision, now) <= 30 * MIN, `${gapOf(decision, now) / MIN} min (${decision.reason})`);
});

test('the first document is evidence of bursts: a window filled in half an hour', () => {
  // Subscribed at midnight to a feed whose ten items all came within 27 minutes yesterday
  // morning, after a quiet week: it can fill its window as fast again.
  const times = Array.from({ length: 10 }, (_, i) => T0 - 7 * DAY + i * 16 * HOUR);
  for (let i = 0; i < 10; i++) times.push(T0 - 19 * HOUR + i * 3 * MIN);
  const state = replay(times, 10, HOUR, T0);
  assert.ok(burstRate(state) > 15, `burst rate: ${burstRate(state).toFixed(1)}/h`);
  const decision = nextPoll(state, NO_HINTS, T0, settings);
  assert.ok(gapOf(decision, T0) <= 45 * MIN, `${gapOf(decision, T0) / MIN} min (${decision.reason})`);
});

test('a feed that burst four weeks ago is still watched at the rate of its bursts', () => {
  // Two items a day, window 25, one burst of 30 an hour for two hours a month ago: bursts come
  // at random, so four quiet weeks make the next one hardly less likely. The next poll comes
  // before such a burst could fill the window (48 min), give or take the small share of
  // items the overflow risk accepts.
  const times = Array.from({ length: 80 }, (_, i) => T0 - 10 * DAY + i * 12 * HOUR);
  for (let i = 0; i < 60; i++) times.push(T0 + 10 * HOUR + i * 2 * MIN);
  times.sort((a, b) => a - b);
  const now = T0 + 29 * DAY + 7 * HOUR;
  const state = replay(times, 25, HOUR, now);
  const decision = nextPoll(state, NO_HINTS, now, settings);
  assert.ok(gapOf(decision, now) <= 60 * MIN, `${gapOf(decision, now) / MIN} min (${decision.reason})`);
  assert.match(decision.reason, /bursts to/);
});

test("a feed's daily peak, once its profile has learned it, is no burst: its quiet hours are not polled at the peak's rate", () => {
  // 36 items a day between 12:00 and 15:00 UTC, window 10. Ten days on, at 20:00 nothing is
  // expected for sixteen hours: the peak must not keep the feed polled every 45 minutes.
  const times: number[] = [];
  for (let day = -2; day < 10; day++) for (let i = 0; i < 36; i++) times.push(T0 + day * DAY + 12 * HOUR + i * 5 * MIN);
  const now = T0 + 9 * DAY + 20 * HOUR;
  const state = replay(times, 10, 30 * MIN, now);
  const decision = nextPoll(state, NO_HINTS, now, settings);
  assert.doesNotMatch(decision.reason, /bursts to/);
  assert.ok(gapOf(decision, now) >= 2 * HOUR, `${gapOf(decision, now) / MIN} min (${decision.reason})`);
});

test("a feed that has burst before is planned at its burst rate at the burst's first two items", () => {
  // Two items a day, window 20, a burst of 30/h remembered; a poll sees two new items two
  // minutes apart: poll again before such a burst could fill the window.
  const times = Array.from({ length: 20 }, (_, i) => T0 - 10 * DAY + i * 12 * HOUR);
  const quiet = replay(times, 20, 3 * HOUR, T0);
  const state: ScheduleState = { ...quiet, bursts: [{ seenAt: T0 - DAY, from: T0 - DAY, at: T0 - DAY, rate: 30 / HOUR, size: 40 }] };
  const at = T0 + 3 * HOUR;
  const items = [{ guid: 'b2', date: at - 5 * MIN, isNew: true }, { guid: 'b1', date: at - 7 * MIN, isNew: true }, ...times.slice(-18).reverse().map((t) => ({ guid: `t${t}`, date: t, isNew: false }))];
  const after = observePoll(state, { at, failed: false, notModified: false, items });
  const decision = nextPoll(after, NO_HINTS, at, settings);
  assert.match(decision.reason, /burst onset/);
  assert.ok(gapOf(decision, at) <= 30 * MIN, `${gapOf(decision, at) / MIN} min`);
});

test('the window is learned from the largest document seen', () => {
  const { state } = history({ gap: HOUR, window: 25, polls: 3, every: HOUR });
  assert.equal(state.window, 25);
});

test('lying dates: future, all the same, and long before the previous poll are not believed', () => {
  const previous = T0;
  const now = T0 + HOUR;
  const future = arrivalEstimates([{ date: now + 5 * HOUR }], now, previous, []);
  assert.equal(future.trusted, 0);
  assert.ok(future.arrivals[0]! > previous && future.arrivals[0]! <= now, 'placed in the polling interval instead');
  const late = arrivalEstimates([{ date: now - 8 * HOUR }], now, previous, []);
  assert.equal(late.trusted, 0);
  const good = arrivalEstimates([{ date: now - 10 * MIN }], now, previous, []);
  assert.deepEqual(good.arrivals, [now - 10 * MIN]);
  const same = Date.UTC(2020, 0, 1);
  const first = arrivalEstimates([{ date: same }, { date: same }, { date: same }, { date: same }], now, null, [same, same, same, same]);
  assert.equal(first.trusted, 0, 'a document stamping every item with one date');
  const missing = arrivalEstimates([{ date: null }, { date: null }], now, previous, []);
  assert.equal(missing.dated, 0);
  assert.equal(missing.arrivals.length, 2);
});

test('a feed whose dates are useless is estimated from when items appeared and from poll outcomes', () => {
  // 6 items/hour with every date fixed in 2020: the rate still comes out near 6/h.
  const { state, now } = history({ gap: 10 * MIN, window: 10, polls: 40, every: 15 * MIN, date: () => Date.UTC(2020, 0, 1) });
  const decision = nextPoll(state, NO_HINTS, now, settings);
  assert.ok(decision.ratePerHour! > 4 && decision.ratePerHour! < 9, `${decision.ratePerHour}/h`);
  assert.match(decision.reason, /arrival times|poll outcomes/);
  assert.ok(state.datesTrusted / state.datesSeen < 0.5);
});

test('gap evidence: a full document sharing nothing with the last one shortens the interval at once', () => {
  const { state, now } = history({ gap: 2 * HOUR, window: 10, polls: 20, every: 2 * HOUR });
  const before = gapOf(nextPoll(state, NO_HINTS, now, settings), now);
  const later = now + 3 * HOUR;
  const items = Array.from({ length: 10 }, (_, i) => ({ guid: `burst-${i}`, date: later - i * 60_000, isNew: true }));
  const after = observePoll(state, { at: later, failed: false, notModified: false, items });
  assert.equal(after.gapAt, later);
  assert.equal(after.gaps, 1);
  const decision = nextPoll(after, NO_HINTS, later, settings);
  assert.ok(gapOf(decision, later) < before / 4, `${gapOf(decision, later) / MIN} min vs ${before / MIN}`);
  assert.match(decision.reason, /gap|burst/);
});

test('a steady busy feed is planned at its rate', () => {
  // One item a minute, first seen with ten items over nine minutes: the six-minute span holds six.
  const { state, now } = history({ gap: MIN, window: 10, polls: 1, every: MIN });
  const decision = nextPoll(state, NO_HINTS, now, { ...settings, minInterval: MIN });
  assert.match(decision.reason, /burst over 0\.1h/);
  assert.ok(Math.abs((decision.ratePerHour ?? 0) - 60) <= 6, `${decision.ratePerHour}/h`);
});

test("a burst is measured from its first item: a wire's first document, one old item and nine of the last three minutes", () => {
  // Three items a minute since three minutes, and one a day old before them: over the six-minute
  // span the nine would say 90/h (80/h counted one short), half the rate the window fills at.
  const now = T0 + DAY;
  const items = Array.from({ length: 9 }, (_, i) => ({ guid: `wire-${i}`, date: now - i * 20_000, isNew: true }));
  items.push({ guid: 'old', date: now - DAY, isNew: true });
  const state = observePoll(emptyState(), { at: now, failed: false, notModified: false, items });
  const decision = nextPoll(state, NO_HINTS, now, { ...settings, minInterval: MIN });
  assert.ok(Math.abs((decision.ratePerHour ?? 0) - 180) <= 18, `${decision.ratePerHour}/h (${decision.reason})`);
  assert.ok(gapOf(decision, now) <= 70_000, `${gapOf(decision, now) / 1000} s`);
});

test('a batch published at one instant is a burst of bounded rate', () => {
  // Ten items with the same second after a quiet week: at most nine over a quarter of the span.
  const times = Array.from({ length: 7 }, (_, i) => T0 - 7 * DAY + i * DAY);
  for (let i = 0; i < 10; i++) times.push(T0 + HOUR);
  const state = replay(times, 20, HOUR, T0 + HOUR + MIN);
  const decision = nextPoll(state, NO_HINTS, T0 + HOUR + MIN, settings);
  assert.ok(Number.isFinite(decision.ratePerHour) && (decision.ratePerHour ?? Infinity) <= 9 / 0.025 + 1e-9, `${decision.ratePerHour}/h`);
});

test('a burst is reacted to at once and remembered', () => {
  const { state, now } = history({ gap: 8 * HOUR, window: 20, polls: 40, every: 2 * HOUR });
  const at = now + 20 * MIN;
  const items = [
    ...Array.from({ length: 12 }, (_, i) => ({ guid: `live-${i}`, date: at - i * 90_000, isNew: true })),
    ...Array.from({ length: 8 }, (_, i) => ({ guid: `g${Math.floor(now / (8 * HOUR)) * 8 * HOUR - i * 8 * HOUR}`, date: 0, isNew: false })),
  ];
  const after = observePoll(state, { at, failed: false, notModified: false, items });
  assert.ok(burstRate(after) > 8, `burst rate remembered: ${burstRate(after)}/h`);
  const decision = nextPoll(after, NO_HINTS, at, settings);
  assert.ok(gapOf(decision, at) <= 30 * MIN, `${gapOf(decision, at) / MIN} min`);
});

test('failures back off exponentially from the minimum interval, capped at the maximum; jitter there only shortens', () => {
  let state = emptyState();
  const gaps: number[] = [];
  for (let n = 1; n <= 12; n++) {
    state = observePoll(state, { at: T0, failed: true, notModified: false, items: null });
    gaps.push(gapOf(nextPoll(state, NO_HINTS, T0, settings), T0) / MIN);
  }
  assert.deepEqual(gaps, [5, 10, 20, 40, 80, 160, 320, 640, 1280, 1440, 1440, 1440]);
  const jittered = nextPoll(state, NO_HINTS, T0, { ...settings, jitter: 0.1 }, () => 0.999);
  assert.ok(gapOf(jittered, T0) < DAY && gapOf(jittered, T0) >= 0.9 * DAY);
  assert.match(jittered.reason, /backoff after 12 failures/);
});

test('a 429 with Retry-After is honoured, beyond the maximum interval if need be', () => {
  const state = observePoll(emptyState(), { at: T0, failed: true, notModified: false, items: null });
  const decision = nextPoll(state, { ...NO_HINTS, retryAfterMs: 2 * DAY }, T0, settings);
  assert.equal(gapOf(decision, T0), 2 * DAY);
  assert.match(decision.reason, /Retry-After/);
});

test('publisher hints are floors, never replacements', () => {
  const busy = history({ gap: 5 * MIN, window: 10, polls: 30, every: 20 * MIN });
  const hints: PublisherHints = { ...NO_HINTS, ttlMinutes: 60 };
  const decision = nextPoll(busy.state, hints, busy.now, settings);
  assert.equal(gapOf(decision, busy.now), HOUR);
  assert.match(decision.reason, /raised to ttl 60 min/);
  const maxAge = nextPoll(busy.state, { ...NO_HINTS, maxAgeMs: 45 * MIN }, busy.now, settings);
  assert.equal(gapOf(maxAge, busy.now), 45 * MIN);
  const sy = nextPoll(busy.state, { ...NO_HINTS, updatePeriod: 'daily', updateFrequency: 4 }, busy.now, settings);
  assert.equal(gapOf(sy, busy.now), 6 * HOUR);
  // A floor lower than what the policy wants changes nothing.
  const quiet = history({ gap: 12 * HOUR, window: 20, polls: 30, every: 3 * HOUR });
  const plain = nextPoll(quiet.state, NO_HINTS, quiet.now, settings);
  const withTtl = nextPoll(quiet.state, { ...NO_HINTS, ttlMinutes: 5 }, quiet.now, settings);
  assert.equal(withTtl.at.getTime(), plain.at.getTime());
});

test('skipHours and skipDays move the poll out of the skipped time', () => {
  const busy = history({ gap: 5 * MIN, window: 10, polls: 30, every: 20 * MIN });
  const now = busy.now;
  const hour = new Date(now).getUTCHours();
  const skip = [hour, (hour + 1) % 24, (hour + 2) % 24];
  const decision = nextPoll(busy.state, { ...NO_HINTS, skipHours: skip }, now, settings);
  assert.equal(decision.at.getUTCHours(), (hour + 3) % 24);
  assert.match(decision.reason, /skipHours/);
});

test('a cron expression replaces the adaptive schedule', () => {
  const now = Date.UTC(2026, 10, 2, 10, 7, 30);
  const decision = nextPoll(emptyState(), { ...NO_HINTS, cron: '*/15 * * * *' }, now, settings);
  assert.equal(decision.at.getMinutes() % 15, 0);
  assert.ok(gapOf(decision, now) <= 15 * MIN);
  assert.match(decision.reason, /cron/);
});

test('nextCronTime finds weekday and hour matches; cronProblem explains bad ones', () => {
  const friday = new Date(2026, 10, 6, 18, 0, 0);
  const next = nextCronTime('0 9 * * 1-5', friday);
  assert.deepEqual([next.getDay(), next.getHours(), next.getMinutes()], [1, 9, 0]);
  assert.equal(cronProblem('*/5 * * * *'), null);
  assert.match(cronProblem('61 * * * *') ?? '', /minute/);
});

test('behind schedule, the next poll is pushed back by the lag (not retried at the minimum interval); a cron schedule is kept', () => {
  const planned = { at: new Date('2026-11-22T10:01:00Z'), reason: 'minimum interval', ratePerHour: null, window: null, riskAt: null };
  // Under a minute late: the plan stands.
  assert.equal(stretchWhenBehind(planned, SCHEDULE_OPTIONS.behindScheduleMs, null), planned);
  const late = stretchWhenBehind(planned, 5 * 60_000, null);
  assert.equal(late.at.toISOString(), '2026-11-22T10:06:00.000Z');
  assert.match(late.reason, /^minimum interval; \+300s: Forest is behind schedule$/);
  // Never past the time the feed's items are at risk: those polls go first, and waiting loses items.
  const riskAt = new Date('2026-11-22T10:03:00Z');
  const until = stretchWhenBehind({ ...planned, riskAt }, 5 * 60_000, null);
  assert.equal(until.at.toISOString(), '2026-11-22T10:03:00.000Z');
  assert.match(until.reason, /\+120s: Forest is behind schedule$/);
  assert.equal(until.riskAt, riskAt, 'being late does not move when the items are at risk');
  const atRisk = { ...planned, riskAt: planned.at };
  assert.equal(stretchWhenBehind(atRisk, 5 * 60_000, null), atRisk, 'a poll at its risk time is not pushed back');
  assert.equal(stretchWhenBehind(planned, 5 * 60_000, '*/1 * * * *'), planned, 'the user asked for that time');
});

test('an episode stored before its start was kept loads as one that lasted no time', () => {
  const stored = JSON.stringify({ ...emptyState(), bursts: [{ seenAt: T0, at: T0 - HOUR, rate: 0.001, size: 12 }] });
  assert.deepEqual(parseState(stored).bursts, [{ seenAt: T0, from: T0 - HOUR, at: T0 - HOUR, rate: 0.001, size: 12 }]);
});

test('a state written before burst episodes loads without its old burst memory', () => {
  const old = JSON.stringify({ ...emptyState(), bursts: undefined, peakRate: 0.001, peakAt: T0 });
  const state = parseState(old);
  assert.deepEqual(state.bursts, []);
  assert.ok(!('peakRate' in state) && !('peakAt' in state));
});
