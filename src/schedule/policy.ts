import { formatDuration } from '../util/units.js';
import { nextCronTime } from './cron.js';
import {
  choGarciaMolinaRate, decayedCount, expectedArrivals, HOUR_MS, poissonTail, profileMultipliers, rateUpperBound, recentRate, safeMean,
} from './estimate.js';
import { RATE_HALF_LIFE, type ScheduleState } from './state.js';

/**
 * When to poll a feed next: a pure function of the scheduler's state for the feed (after the
 * latest poll was observed), the publisher's hints, and the settings. The daemon and
 * `forest schedule-sim` both call exactly this.
 *
 * The rule (issue #4, docs/architecture.md §7): a feed document shows its W newest items, so an item is
 * lost only if more than W arrive between two polls. With arrivals Poisson at rate λ(t), the
 * next poll is the latest instant at which P(N > W − 1) ≤ ε (one item of margin), and no later
 * than the square-root rule for polls vs. delay allows: minimising (polls per hour) + c·(hours
 * of delay per hour) = 1/Δ + c·λ·Δ/2 gives c·λ·Δ² = 2. Publisher hints are floors, errors back
 * off, and every decision says why. Delay alone never asks for polls closer than `delayTarget`:
 * past that, a busy feed's items are already fresh enough and the polls are better spent on
 * quieter feeds (a larger c).
 */

export interface ScheduleSettings {
  /** Interval before anything is known of a feed. */
  defaultInterval: number;
  minInterval: number;
  maxInterval: number;
  jitter: number;
  /** Accepted probability that a poll comes too late and items scroll out unseen. */
  overflowRisk: number;
  /** Weight of an hour of capture delay per item against one poll (the c of the square-root rule). */
  delayCost: number;
  /** Delay alone never makes a feed poll more often than this (the overflow risk may). */
  delayTarget: number;
}

export interface PublisherHints {
  cron: string | null;
  /** RSS ttl, minutes. */
  ttlMinutes: number | null;
  /** sy:updatePeriod (hourly…yearly) and sy:updateFrequency. */
  updatePeriod: string | null;
  updateFrequency: number | null;
  /** RSS skipHours (UTC hours) and skipDays (English day names). */
  skipHours: number[];
  skipDays: string[];
  /** Cache-Control max-age or Expires of the last response, in ms from its time. */
  maxAgeMs: number | null;
  /** Retry-After of the last response (429/503), in ms from its time. */
  retryAfterMs: number | null;
}

export interface PollDecision {
  at: Date;
  reason: string;
  /** Items per hour the decision assumed (null when it did not estimate one). */
  ratePerHour: number | null;
  window: number | null;
}

/** Polls starting later than this mean the daemon, not the feed, is the bottleneck. */
export const BEHIND_SCHEDULE_MS = 60_000;

/**
 * Overload: while polls start `lagMs` late, each feed's next poll is pushed back by that lag. At
 * the planned interval the queue of due polls would never shrink — every poll done makes another
 * due as soon — and captures and extraction would wait behind it; spaced by the lag, the due
 * polls drain and the lag falls. A cron schedule is the user's explicit wish and is kept.
 */
export function stretchWhenBehind(decision: PollDecision, lagMs: number, cron: string | null): PollDecision {
  if (lagMs <= BEHIND_SCHEDULE_MS || cron) return decision;
  return { ...decision, at: new Date(decision.at.getTime() + lagMs), reason: `${decision.reason}; +${Math.round(lagMs / 1000)}s: Forest is behind schedule` };
}

export const NO_HINTS: PublisherHints = { cron: null, ttlMinutes: null, updatePeriod: null, updateFrequency: null, skipHours: [], skipDays: [], maxAgeMs: null, retryAfterMs: null };

const ASSUMED_WINDOW = 10;
const PERIODS: Record<string, number> = { hourly: HOUR_MS, daily: 24 * HOUR_MS, weekly: 168 * HOUR_MS, monthly: 30 * 24 * HOUR_MS, yearly: 365 * 24 * HOUR_MS };
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

export interface RateEstimate {
  /** Mean items per ms. */
  rate: number;
  /** What the rate could still be, given how little has been seen (an upper confidence bound). */
  uncertainRate: number;
  /** A remembered burst rate (0 if none). */
  burstRate: number;
  /** Hour-of-week shape, or null while there is too little history. */
  profile: number[] | null;
  source: string;
}

/** The rate the decision plans with: long-run, shaped by the week, raised by bursts and gaps. */
export function estimateRate(state: ScheduleState, now: number): RateEstimate | null {
  if (state.lastSuccessAt === null || state.observedSince === null) return null;
  const span = now - state.observedSince;
  const datesUseful = state.datesSeen < 3 || state.datesTrusted / state.datesSeen >= 0.5;
  const { count, exposure } = decayedCount(state.arrivals, now, state.observedSince, RATE_HALF_LIFE);
  let rate = count / exposure;
  // The overflow risk is planned with what the rate could still be, given how little was seen.
  let riskRate = rateUpperBound(count, exposure);
  let source = datesUseful ? 'dates' : 'arrival times';
  // Poll outcomes say little once nearly every poll finds something (the estimator saturates).
  if (!datesUseful && state.polls >= 3 && state.pollsWithNew < 0.8 * state.polls) {
    const cho = choGarciaMolinaRate(state.polls, state.pollsWithNew, state.intervalSum / state.polls);
    if (cho > rate) {
      rate = cho;
      riskRate = Math.max(riskRate, cho);
      source = 'poll outcomes';
    }
  }
  // Nothing learned yet (one poll, no usable dates): no estimate, the caller uses its default.
  if (state.arrivals.length === 0 && state.polls < 2 && span < 6 * HOUR_MS) return null;
  // Bursts and wake-ups: the busiest recent span, if clearly above the long-run rate.
  // The shortest spans see a feed that fills its window in minutes (a wire, a live blog) at the
  // first polls, before an hour of its history exists.
  for (const hours of [0.1, 0.25, 1, 3, 12, 48]) {
    const recent = recentRate(state.arrivals, now, hours * HOUR_MS);
    if (recent.count >= 3) {
      const burst = (recent.count - 1) / (hours * HOUR_MS);
      if (burst > 1.5 * rate) {
        rate = burst;
        riskRate = Math.max(riskRate, burst);
        source = `burst over ${hours}h`;
      }
    }
  }
  // A probable loss at the last poll: at least W + 1 items came in that interval.
  if (state.gapAt === state.lastSuccessAt && state.window > 0 && state.arrivals.length > 0) {
    const previous = state.arrivals[state.arrivals.length - 1]!;
    const interval = Math.max(now - Math.min(previous, now - 1), 1);
    rate = Math.max(rate, (state.window + 1) / Math.max(interval, 5 * 60_000));
    riskRate = Math.max(riskRate, rate);
    source = 'gap (probable loss)';
  }
  const history = span >= 14 * 24 * HOUR_MS && state.arrivals.length >= 30;
  return { rate, uncertainRate: riskRate, burstRate: state.peakRate, profile: history ? profileMultipliers(state.profile) : null, source };
}

/** The largest Δ ≤ max for which `ok(Δ)` holds, `ok` being monotone (true, then false). */
function largest(ok: (delta: number) => boolean, max: number): number {
  if (ok(max)) return max;
  let low = 0;
  let high = max;
  for (let i = 0; i < 40; i++) {
    const mid = (low + high) / 2;
    if (ok(mid)) low = mid;
    else high = mid;
  }
  return low;
}

/** Moves `at` out of the publisher's skipHours/skipDays (UTC). */
function outOfSkips(at: number, hints: PublisherHints): number {
  const hours = new Set(hints.skipHours);
  const days = new Set(hints.skipDays.map((day) => DAYS.indexOf(day.toLowerCase())).filter((day) => day >= 0));
  if (hours.size >= 24 || days.size >= 7) return at;
  let t = at;
  for (let i = 0; i < 24 * 8; i++) {
    const date = new Date(t);
    if (!hours.has(date.getUTCHours()) && !days.has(date.getUTCDay())) return t;
    t = Math.floor(t / HOUR_MS) * HOUR_MS + HOUR_MS;
  }
  return at;
}

const pct = (p: number) => (p < 0.001 ? `${(p * 100).toFixed(2)}%` : `${(p * 100).toFixed(1)}%`);

export function nextPoll(state: ScheduleState, hints: PublisherHints, now: number, settings: ScheduleSettings, random: () => number = Math.random): PollDecision {
  const retryAfter = hints.retryAfterMs ?? 0;
  if (hints.cron) {
    let at = nextCronTime(hints.cron, new Date(now));
    let reason = `cron "${hints.cron}"`;
    if (retryAfter > 0 && at.getTime() < now + retryAfter) {
      at = nextCronTime(hints.cron, new Date(now + retryAfter - 1000));
      reason += `, after Retry-After ${formatDuration(retryAfter)}`;
    }
    return { at, reason, ratePerHour: null, window: state.window || null };
  }

  if (state.consecutiveErrors > 0) {
    // Exponential backoff from the minimum interval, with jitter, capped at the maximum
    // interval: a failing feed is still probed, never dropped.
    const base = Math.min(settings.minInterval * 2 ** (state.consecutiveErrors - 1), settings.maxInterval);
    let delta = base * (1 - settings.jitter * random());
    let reason = `backoff after ${state.consecutiveErrors} failure${state.consecutiveErrors > 1 ? 's' : ''}: ${formatDuration(delta)}`;
    if (retryAfter > delta) {
      delta = retryAfter;
      reason += `, raised to Retry-After ${formatDuration(retryAfter)}`;
    }
    return { at: new Date(now + delta), reason, ratePerHour: null, window: state.window || null };
  }

  const estimate = estimateRate(state, now);
  // Until an item has been seen to leave the document, its size is only a lower bound on the
  // window: assume at least the most common window, 10 (thesis ch. 1 §3.4). A feed that has
  // shown one item is not a feed that holds one (which would need a poll per item).
  const window = state.windowFull ? state.window : Math.max(state.window, ASSUMED_WINDOW);
  let delta: number;
  let reason: string;
  let risk = 0;
  if (estimate === null) {
    delta = settings.defaultInterval;
    reason = `learning: default ${formatDuration(delta)}`;
  } else {
    const arrivals = (d: number) => expectedArrivals(estimate.rate, estimate.profile, now, d);
    const limit = safeMean(window - 1, settings.overflowRisk);
    // The regular rate (and what it could still be, given the evidence) is held to the ε
    // quantile; a remembered burst rate, a rare state, only to its mean: a burst at that rate
    // starting right after this poll would just fill the window by the next.
    const byRisk = largest((d) => Math.max(arrivals(d), estimate.uncertainRate * d) <= limit && estimate.burstRate * d <= window - 1, settings.maxInterval);
    const worst = (d: number) => Math.max(arrivals(d), estimate.uncertainRate * d);
    // c·Λ(Δ)·Δ ≤ 2 with Λ(Δ) = expected items in the interval (the square-root rule, λ·Δ = Λ).
    const byCost = Math.max(settings.delayTarget, largest((d) => settings.delayCost * arrivals(d) * (d / HOUR_MS) <= 2, settings.maxInterval));
    delta = Math.min(byRisk, byCost);
    const binding = byRisk < byCost ? 'overflow risk' : 'delay cost';
    delta = Math.min(Math.max(delta, settings.minInterval), settings.maxInterval);
    risk = poissonTail(worst(delta), window);
    const burst = estimate.burstRate > estimate.rate ? `, bursts to ${(estimate.burstRate * HOUR_MS).toPrecision(2)}/h seen` : '';
    reason = `λ≈${(estimate.rate * HOUR_MS).toPrecision(2)}/h (${estimate.source}${estimate.profile ? ', weekly profile' : ''}${burst}), W=${window}, overflow risk ${pct(risk)} → ${formatDuration(delta)} (${binding})`;
  }
  // Jitter only shortens: feeds drift apart and the overflow risk stays within bounds.
  delta *= 1 - settings.jitter * random();

  const floors: Array<[number, string]> = [];
  if (hints.ttlMinutes) floors.push([hints.ttlMinutes * 60_000, `ttl ${hints.ttlMinutes} min`]);
  if (hints.updatePeriod && PERIODS[hints.updatePeriod]) floors.push([PERIODS[hints.updatePeriod]! / Math.max(1, hints.updateFrequency ?? 1), `sy:updatePeriod ${hints.updatePeriod}/${hints.updateFrequency ?? 1}`]);
  if (hints.maxAgeMs) floors.push([hints.maxAgeMs, `max-age ${formatDuration(hints.maxAgeMs)}`]);
  for (const [floor, label] of floors) {
    const capped = Math.min(floor, settings.maxInterval);
    if (capped > delta) {
      delta = capped;
      reason += `, raised to ${label}`;
    }
  }
  if (retryAfter > delta) {
    delta = retryAfter;
    reason += `, raised to Retry-After ${formatDuration(retryAfter)}`;
  }
  let at = now + delta;
  const moved = outOfSkips(at, hints);
  if (moved !== at) {
    reason += ', moved out of skipHours/skipDays';
    at = moved;
  }
  return { at: new Date(at), reason, ratePerHour: estimate ? estimate.rate * HOUR_MS : null, window: state.window || null };
}
