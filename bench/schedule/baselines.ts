import type { ShownItem, SimPolicy, TraceFeed } from '../../src/schedule/simulate.js';

/**
 * The schedulers Forest is measured against, implemented as their projects document them. Like every policy in the simulation they only see what each poll shows.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const clamp = (value: number, low: number, high: number) => Math.min(Math.max(value, low), high);

export function fixedPolicy(interval: number): SimPolicy<null> {
  return { name: `fixed ${interval / MINUTE} min`, start: () => null, afterPoll: (_state, at) => ({ state: null, next: at + interval }) };
}

/** Entries the reader has stored: their publication date, or the time it first saw them. */
type Entries = number[];
const remember = (entries: Entries, at: number, shown: ShownItem[]) => {
  for (const item of shown) if (item.isNew) entries.push(item.date ?? at);
};
const floors = (feed: TraceFeed) => Math.max(feed.ttl ? feed.ttl * MINUTE : 0, feed.maxAge ? feed.maxAge * 1000 : 0);

/**
 * Miniflux `entry_frequency`: weekly = ceil(7 d / mean gap between the publication dates of the
 * entries of the last 7 days) (0 with fewer than 2); interval = 7 d / weekly clamped to
 * [5 min, 24 h] (24 h when weekly = 0), then raised to ttl / max-age.
 */
export function minifluxPolicy(): SimPolicy<Entries> {
  return {
    name: 'Miniflux entry_frequency',
    start: () => [],
    afterPoll: (entries, at, shown, feed) => {
      remember(entries, at, shown);
      // Only the last week counts: older entries are dropped so the state stays small. The mean
      // gap needs only the week's count, first and last date (one pass; sorting the week at every
      // poll made this the slowest policy of the benchmark).
      const since = at - 7 * DAY;
      let count = 0;
      let first = Infinity;
      let last = -Infinity;
      let kept = 0;
      for (const date of entries) {
        if (date <= since) continue;
        entries[kept++] = date;
        if (date > at) continue;
        count += 1;
        first = Math.min(first, date);
        last = Math.max(last, date);
      }
      entries.length = kept;
      let weekly = 0;
      if (count >= 2) {
        const meanGap = (last - first) / (count - 1);
        weekly = meanGap > 0 ? Math.ceil((7 * DAY) / meanGap) : count;
      }
      let interval = weekly === 0 ? DAY : clamp((7 * DAY) / weekly, 5 * MINUTE, DAY);
      interval = Math.max(interval, floors(feed));
      return { state: entries, next: at + interval };
    },
  };
}

/**
 * CommaFeed's adaptive interval: by age of the newest entry — ≥ 30 d or unknown: 4 h; ≥ 14 d:
 * 2 h; ≥ 7 d: 1 h; else half the mean gap between the entries of the current document clamped
 * to [5 min, 1 h]; raised to max-age; clamped to [5 min, 4 h].
 */
export function commafeedPolicy(): SimPolicy<Entries> {
  return {
    name: 'CommaFeed adaptive',
    start: () => [],
    afterPoll: (entries, at, shown, feed) => {
      remember(entries, at, shown);
      const dates = shown.map((item) => item.date).filter((date): date is number => date !== null).sort((a, b) => a - b);
      const newest = dates.length > 0 ? dates[dates.length - 1]! : null;
      let interval: number;
      if (newest === null || at - newest >= 30 * DAY) interval = 4 * HOUR;
      else if (at - newest >= 14 * DAY) interval = 2 * HOUR;
      else if (at - newest >= 7 * DAY) interval = HOUR;
      else {
        const meanGap = dates.length >= 2 ? (dates[dates.length - 1]! - dates[0]!) / (dates.length - 1) : HOUR;
        interval = clamp(meanGap / 2, 5 * MINUTE, HOUR);
      }
      if (feed.maxAge) interval = Math.max(interval, feed.maxAge * 1000);
      return { state: entries, next: at + clamp(interval, 5 * MINUTE, 4 * HOUR) };
    },
  };
}

/**
 * A policy with every interval it chooses stretched (k > 1) or shrunk (k < 1) by k: the same
 * allocation of polls across feeds and hours, at another total. With it two policies can be
 * compared at the same number of polls (bench:schedule --equal-polls), which asks which one
 * spends its polls better rather than which one spends more.
 */
export function scaledPolicy<S>(policy: SimPolicy<S>, k: number): SimPolicy<S> {
  return {
    name: `${policy.name} ×${k.toPrecision(3)}`,
    walksGaps: policy.walksGaps,
    start: (feed) => policy.start(feed),
    afterPoll: (state, at, shown, feed) => {
      const decision = policy.afterPoll(state, at, shown, feed);
      return { state: decision.state, next: at + k * (decision.next - at) };
    },
  };
}

/**
 * About the smallest factor k (within [1/64, 64]) at which `polls(k)` is at most `target`, by
 * bisection on log k: polls fall as intervals stretch — not strictly, as each poll's outcome
 * steers the next interval, so the answer is as good as its halvings make it, not exact.
 */
export function factorForPolls(polls: (k: number) => number, target: number, halvings = 24): number {
  let low = Math.log(1 / 64);
  let high = Math.log(64);
  for (let i = 0; i < halvings; i++) {
    const mid = (low + high) / 2;
    if (polls(Math.exp(mid)) > target) low = mid;
    else high = mid;
  }
  return Math.exp(high);
}
