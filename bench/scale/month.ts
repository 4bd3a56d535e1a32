import { seededRandom } from '../../src/util/random.js';

/**
 * The feeds of bench:hundred-thousand's steady state (issue #70, item 3): how often each of N
 * feeds publishes, and when, over a month before the run and the run itself. Shared by the bench
 * web (which serves them) and the history filler (which archives the month before), so that both
 * see the same items.
 *
 * Rates are heavy-tailed, as measured feed populations are: the Web's publishing rates spread
 * over orders of magnitude, most sources changing rarely and a few very often (Cho &
 * Garcia-Molina, "Estimating frequency of change", 2003; Liu et al., "Characterizing Web
 * syndication behavior", 2005: most feeds post under one item a day, a few percent several an
 * hour). Quiet feeds draw their rate from a log-normal; a few hundred live ones from a log-uniform
 * band. Arrivals are a Poisson process per feed (exponential gaps from its own seeded random), so
 * a feed's items bunch and pause as real ones do. With the defaults the month holds about a
 * million items (the "≈ 1 M articles").
 */
export const MONTH_OPTIONS = {
  /** The history before the run, in days. */
  days: 30,
  /** The share of feeds whose rate is drawn from the live band (the first ones): 300 of 100,000. */
  liveShare: 0.003,
  /** The live band, items per day (log-uniform between the two). */
  liveRatePerDay: [12, 120] as const,
  /** Quiet feeds: the log-normal's median, items per day, and its σ (natural log). */
  quietMedianPerDay: 0.1,
  quietSigma: 1.2,
  /** Items a feed document shows (its newest). */
  window: 10,
} as const;

const DAY = 86_400_000;

/** A feed's rate, items per day, of `feeds`: the first `liveShare` are live, the rest quiet. Deterministic in the feed's number. */
export function ratePerDay(feed: number, feeds: number): number {
  const random = seededRandom(0x6d6f6e74 ^ Math.imul(feed + 1, 2654435761));
  if (feed < Math.round(MONTH_OPTIONS.liveShare * feeds)) {
    const [low, high] = MONTH_OPTIONS.liveRatePerDay;
    return low * Math.pow(high / low, random());
  }
  // Box–Muller: a standard normal from two uniforms.
  const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return MONTH_OPTIONS.quietMedianPerDay * Math.exp(MONTH_OPTIONS.quietSigma * normal);
}

/**
 * When feed `feed` published (ms, ascending): a Poisson process at its rate from a day before the
 * month (so that the month's first poll finds what a subscription would) until `until`. The same
 * numbers wherever it is called with the same `epoch` (the run's start).
 */
export function publications(feed: number, feeds: number, epoch: number, until: number): number[] {
  const perMs = ratePerDay(feed, feeds) / DAY;
  const random = seededRandom(0x70756273 ^ Math.imul(feed + 1, 2246822519));
  const times: number[] = [];
  for (let at = epoch - (MONTH_OPTIONS.days + 1) * DAY; ;) {
    at += -Math.log(1 - random()) / perMs;
    if (at > until) return times;
    times.push(Math.round(at));
  }
}

/** The newest `window` items of a feed at `now` (newest first), as indexes into its publications. */
export function shownAt(times: readonly number[], now: number): number[] {
  let end = times.length;
  while (end > 0 && times[end - 1]! > now) end--;
  const shown: number[] = [];
  for (let k = end - 1; k >= 0 && shown.length < MONTH_OPTIONS.window; k--) shown.push(k);
  return shown;
}

export const MONTH_MS = MONTH_OPTIONS.days * DAY;
