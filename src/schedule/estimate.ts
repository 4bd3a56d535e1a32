/**
 * Estimators of a feed's publishing rate λ (items per millisecond internally; the policy shows
 * items per hour). Pure functions of plain numbers.
 *
 * Background: the thesis (oita-thesis.txt, ch. 1 §2.3) on Poisson change models — Cho &
 * Garcia-Molina's homogeneous model, and Sia et al.'s inhomogeneous one for posting patterns
 * that depend on the time of day and week — and ch. 1 §3.4 on real feeds: no typical update
 * interval, a wide spread around each feed's median, documents of k most recent items.
 */

const HOUR = 3_600_000;

/**
 * Exponentially decayed count of arrivals and the exposure it was observed over: each arrival
 * weighs exp(−β·age) with β = ln 2 / halfLife, and the exposure is the decayed length of the
 * observed span, ∫₀ᵀ exp(−β·s) ds = (1 − exp(−β·T)) / β.
 */
export function decayedCount(arrivals: readonly number[], now: number, observedSince: number, halfLife: number): { count: number; exposure: number } {
  const span = Math.max(now - observedSince, HOUR);
  const beta = Math.LN2 / halfLife;
  let count = 0;
  for (const at of arrivals) {
    if (at > now || at < observedSince) continue;
    count += Math.exp(-beta * (now - at));
  }
  return { count, exposure: (1 - Math.exp(-beta * span)) / beta };
}

/**
 * Decayed rate: count / exposure. For a Poisson process of rate λ observed over T this is
 * unbiased, and old behaviour fades with the half-life.
 */
export function decayedRate(arrivals: readonly number[], now: number, observedSince: number, halfLife: number): number {
  const { count, exposure } = decayedCount(arrivals, now, observedSince, halfLife);
  return count / exposure;
}

/**
 * A one-sided upper confidence bound (about 95 %) on a Poisson rate seen as `count` events over
 * `exposure`: (n + 1 + 1.65·√(n + 1)) / T. With little history it is far above the point
 * estimate — three quiet polls in an hour do not prove a feed is slow — and it closes in on it
 * as evidence accumulates.
 */
export function rateUpperBound(count: number, exposure: number): number {
  return (count + 1 + 1.65 * Math.sqrt(count + 1)) / exposure;
}

/**
 * Cho & Garcia-Molina's bias-reduced estimator from poll outcomes alone (docs/architecture.md §7): of n
 * polls at mean interval I, X found something new; λ = −ln((n − X + ½)/(n + ½)) / I. It never
 * diverges (X = n gives a finite value), which matters for feeds whose every poll is new.
 */
export function choGarciaMolinaRate(polls: number, withNew: number, meanInterval: number): number {
  if (polls <= 0 || meanInterval <= 0) return 0;
  return -Math.log((polls - withNew + 0.5) / (polls + 0.5)) / meanInterval;
}

/**
 * The arrivals of the last `span` only — how many, and the first (null when none), for burstRate:
 * they react to a burst (a live blog) or a dormant feed waking.
 */
export function recentArrivals(arrivals: readonly number[], now: number, span: number): { count: number; first: number | null } {
  let count = 0;
  let first: number | null = null;
  for (const at of arrivals) {
    if (at > now || at <= now - span) continue;
    count++;
    if (first === null || at < first) first = at;
  }
  return { count, first };
}

/**
 * A burst's rate from `count` items of a `span`, the first at `first`: the count − 1 items after
 * the first over the time from it to `end` — the rate after a change point at that item, which is
 * where a burst begins (over the whole span, a burst that began inside it is spread over it). At
 * least a quarter of the span, so that a batch published at one instant is no endless rate.
 */
export function burstRate(count: number, first: number, end: number, span: number): number {
  return (count - 1) / Math.max(end - first, span / 4);
}

/** Hour of the week, 0 = Monday 00:00–01:00 UTC. (1970-01-01 was a Thursday: hour 72.) */
export function hourOfWeek(time: number): number {
  return (((Math.floor(time / HOUR) + 72) % 168) + 168) % 168;
}

/**
 * Per hour-of-week multipliers of the mean rate (Sia et al.'s inhomogeneous Poisson model,
 * thesis ch. 1 §2.3), from decayed counts per hour. Shrunk towards 1 by a prior of `prior`
 * pseudo-items spread evenly, so that an hour with no history is never given rate 0, and a
 * quiet hour is trusted only once there is evidence.
 */
export function profileMultipliers(counts: readonly number[], prior = 24): number[] {
  const total = counts.reduce((sum, count) => sum + count, 0);
  const mean = (total + prior) / 168;
  return counts.map((count) => (count + prior / 168) / mean);
}

/**
 * The shape of the day alone: hour-of-week counts folded onto the 24 hours of the day, shrunk
 * towards flat like profileMultipliers, and spread back over the week (the same multiplier for
 * an hour on every day), for expectedArrivals.
 */
export function dailyMultipliers(counts: readonly number[], prior = 24): number[] {
  const byHour = new Array<number>(24).fill(0);
  counts.forEach((count, hour) => (byHour[hour % 24]! += count));
  const total = byHour.reduce((sum, count) => sum + count, 0);
  const mean = (total + prior) / 24;
  return counts.map((_, hour) => (byHour[hour % 24]! + prior / 24) / mean);
}

/**
 * Expected arrivals in [from, from + duration] for a mean rate `rate` shaped by hour-of-week
 * `multipliers` (a flat profile when null): the integral of λ·m(h(t)) over the interval.
 */
export function expectedArrivals(rate: number, multipliers: readonly number[] | null, from: number, duration: number): number {
  if (!multipliers) return rate * duration;
  let total = 0;
  let t = from;
  const end = from + duration;
  while (t < end) {
    const hourEnd = Math.min(end, Math.floor(t / HOUR) * HOUR + HOUR);
    total += rate * multipliers[hourOfWeek(t) % 168]! * (hourEnd - t);
    t = hourEnd;
  }
  return total;
}

/** P(N > k) for N ~ Poisson(mean). */
export function poissonTail(mean: number, k: number): number {
  if (mean <= 0) return 0;
  let term = Math.exp(-mean);
  let cumulative = term;
  for (let i = 1; i <= k; i++) {
    term *= mean / i;
    cumulative += term;
  }
  return Math.max(0, 1 - cumulative);
}

/** The largest mean μ with P(Poisson(μ) > k) ≤ epsilon (bisection; the tail grows with μ). */
export function safeMean(k: number, epsilon: number): number {
  let low = 0;
  let high = Math.max(1, k * 4);
  for (let i = 0; i < 60; i++) {
    const mid = (low + high) / 2;
    if (poissonTail(mid, k) <= epsilon) low = mid;
    else high = mid;
  }
  return low;
}

export const HOUR_MS = HOUR;

/**
 * Items a burst would push out of a window, integrated over where in a poll interval it starts:
 * ∫₀^Δ max(0, λb·u − k) du, u being the time from the burst's start to the next poll (a burst
 * of rate λb that lasts past the poll; the document keeps k of its items). Times the rate of
 * bursts and over Δ, it is the expected number of items lost per unit of time. A burst's size is
 * not trusted to bound it: the next one may be longer than those seen.
 */
export function burstOverflow(interval: number, burstRate: number, kept: number): number {
  const fills = kept / burstRate; // from its start, the burst overflows the window after this
  return interval <= fills || burstRate <= 0 ? 0 : (burstRate * (interval - fills) ** 2) / 2;
}

/**
 * The profile multiplier at one hour of the week with `removed` items taken out of that hour
 * (of the week, or of the day when `daily`): whether an hour is busy, judged without the items
 * of the burst in question — a one-off burst must not explain itself.
 */
export function multiplierWithout(counts: readonly number[], daily: boolean, hour: number, removed: number, prior = 24): number {
  const bins = daily ? counts.reduce((byHour, count, h) => ((byHour[h % 24]! += count), byHour), new Array<number>(24).fill(0)) : counts;
  const bin = bins[daily ? hour % 24 : hour]!;
  const taken = Math.min(removed, bin);
  const total = bins.reduce((sum, count) => sum + count, 0) - taken;
  return (bin - taken + prior / bins.length) / ((total + prior) / bins.length);
}
