import { formatDuration } from '../util/units.js';
import { nextCronTime } from './cron.js';
import {
  burstOverflow, burstRate, choGarciaMolinaRate, decayedCount, expectedArrivals, HOUR_MS, poissonTail, rateUpperBound, recentArrivals, safeMean,
} from './estimate.js';
import { isBurst, planningProfile, type ScheduleState } from './state.js';
import { SCHEDULE_OPTIONS } from './options.js';

/**
 * When to poll a feed next: a pure function of the scheduler's state for the feed (after the
 * latest poll was observed), the publisher's hints, and the settings. The daemon and
 * `forest schedule-sim` both call exactly this.
 *
 * Misses (issue #4, docs/architecture.md §7): a feed document shows its W newest items, so an
 * item is lost only if more than W arrive between two polls. With arrivals Poisson at rate λ(t),
 * the next poll is the latest instant at which P(N > W − 1) ≤ ε (one item of margin) — with λ(t)
 * shaped by the hour (the shape of the week after two weeks, of the day after two days: a feed
 * that fills its window in minutes at its peak hours is planned with its peak, issue #13), with
 * an upper confidence bound of λ while evidence is thin (uncertain in its level, not in its
 * shape: quiet hours stay quiet), and at a burst's rate as soon as one is under way.
 *
 * Bursts (issue #13): a feed that has burst may burst again, and bursts (news events) come at
 * random — four quiet weeks make the next one hardly less likely, so a burst's memory must not
 * fade on a clock. The feed keeps its burst episodes (state.ts); with b of them per unit of time
 * at rate λb, a burst starting u before the next poll pushes max(0, λb·u − (W − 1)) items out of
 * the document, so the expected loss per unit of time is b·∫₀^Δ max(0, λb·u − (W − 1)) du / Δ,
 * held to the same share ε of the feed's items as the overflow risk. That allows little more
 * than (W − 1)/λb, and the allowance grows slowly as bursts prove rare. A peak that recurs every
 * day is no burst: once the profile (without that episode's own items) explains it, the profile
 * plans it, and the feed's quiet hours are not polled at its peak rate.
 *
 * Delay (issue #13): polls buy capture delay. Minimising (polls per hour) + c·(hours of delay
 * per hour) = 1/Δ + c·λ·Δ/2 gives the square-root rule c·λ·Δ² = 2 — the same law as the
 * freshness-optimal allocation for slowly changing sources (Cho & Garcia-Molina, "Effective page
 * refresh policies": with F = (1 − e^(−λΔ))/(λΔ), equal marginal freshness per poll gives a poll
 * frequency growing as √λ while λΔ is small). It prices an hour of delay alike on every item, and so it spends most polls where items
 * are rare: at 0.3 items a day, c = 5 asks for a poll every 5.7 h, fourteen polls per item,
 * each of which finds nothing with probability e^(−λΔ) ≈ 93 % — the expected number of items
 * waiting, λ·Δ/2, is a few hundredths. The thesis's feed statistics (ch. 1 §3.4) say such feeds
 * are common. So a poll must also expect to find something: delay alone never asks for more
 * than `pollsPerItem` polls per expected item (Δ ≥ 1 / (pollsPerItem·λ)); a feed that
 * publishes every three days is polled about daily, as Miniflux does. At the other end, delay
 * alone never asks for polls closer than `delayTarget`: past that a busy feed's items are fresh
 * enough, and only the overflow risk may poll faster.
 *
 * Publisher hints are floors, errors back off, and every decision says why.
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
  /** Delay alone never asks for more polls than this per expected item (the overflow risk may). */
  pollsPerItem: number;
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
  /**
   * From when waiting longer puts the feed's items at risk: past it, more than the overflow risk
   * allows may scroll out unseen (the interval the risk alone would give, bursts included). Null
   * when nothing is known to be at risk (no estimate yet, a cron, a failing feed, a hub that
   * pushes). When polls are late, those past this time go first (archive/due.ts duePollOrder).
   */
  riskAt: Date | null;
}

/**
 * Overload: while polls start `lagMs` late, each feed's next poll is pushed back by that lag. At
 * the planned interval the queue of due polls would never shrink — every poll done makes another
 * due as soon — and captures and extraction would wait behind it; spaced by the lag, the due
 * polls drain and the lag falls. A cron schedule is the user's explicit wish and is kept. A poll
 * is never pushed past the time its feed's items are at risk (`riskAt`): those polls go first
 * (archive/due.ts), so they are not the ones late, and pushing a busy feed's poll back by a lag
 * other feeds' polls made would only lose its items.
 */
export function stretchWhenBehind(decision: PollDecision, lagMs: number, cron: string | null): PollDecision {
  if (lagMs <= SCHEDULE_OPTIONS.behindScheduleMs || cron) return decision;
  const planned = decision.at.getTime();
  const at = Math.min(planned + lagMs, Math.max(planned, decision.riskAt?.getTime() ?? Infinity));
  if (at === planned) return decision;
  return { ...decision, at: new Date(at), reason: `${decision.reason}; +${Math.round((at - planned) / 1000)}s: Forest is behind schedule` };
}

/**
 * A feed a WebSub hub pushes is polled only to check that the hub still delivers: no sooner than
 * `intervalMs` after this poll (a slower schedule of its own, a back-off or a cron stands).
 */
export function relaxWhenPushed(decision: PollDecision, at: number, intervalMs: number, cron: string | null): PollDecision {
  const relaxed = at + intervalMs;
  if (cron || decision.at.getTime() >= relaxed) return decision;
  return { ...decision, at: new Date(relaxed), riskAt: null, reason: `pushed by its WebSub hub: polled every ${Math.round(intervalMs / 60_000)} min to check that the hub delivers` };
}

export const NO_HINTS: PublisherHints = { cron: null, ttlMinutes: null, updatePeriod: null, updateFrequency: null, skipHours: [], skipDays: [], maxAgeMs: null, retryAfterMs: null };

const PERIODS: Record<string, number> = { hourly: HOUR_MS, daily: 24 * HOUR_MS, weekly: 168 * HOUR_MS, monthly: 30 * 24 * HOUR_MS, yearly: 365 * 24 * HOUR_MS };
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

export interface RateEstimate {
  /** Mean items per ms. */
  rate: number;
  /** The long-run rate, before any burst or gap raised it. */
  longRun: number;
  /** What the rate could still be, given how little has been seen (an upper confidence bound). */
  uncertainRate: number;
  /** The bursts this feed has had that its profile does not explain (see burstsOf). */
  bursts: BurstHistory | null;
  /** Hour-of-week shape, or null while there is too little history. */
  profile: number[] | null;
  source: string;
}

export interface BurstHistory {
  /** The fastest of them, items per ms. */
  rate: number;
  /** How often they came: episodes per ms of observation. */
  hazard: number;
}

/**
 * The bursts that still count: episodes far above what the rate and the profile now expect at
 * their hour. A peak the profile has since learned (a feed's busy hours) is no burst any more.
 */
export function burstsOf(state: ScheduleState, now: number, longRun: number, profile: 'weekly' | 'daily' | null): BurstHistory | null {
  const bursts = state.bursts.filter((burst) => isBurst(state, profile, longRun, burst));
  if (bursts.length === 0) return null;
  const fastest = bursts.reduce((a, b) => (b.rate > a.rate ? b : a));
  // Once the list is full, its oldest episode is where the count starts.
  const since = state.bursts.length >= SCHEDULE_OPTIONS.maxBursts ? state.bursts[0]!.seenAt : (state.firstPollAt ?? now);
  return { rate: fastest.rate, hazard: bursts.length / Math.max(now - since, 24 * HOUR_MS) };
}

/** The rate the decision plans with: long-run, shaped by the week, raised by bursts and gaps. */
export function estimateRate(state: ScheduleState, now: number): RateEstimate | null {
  if (state.lastSuccessAt === null || state.observedSince === null) return null;
  const span = now - state.observedSince;
  const datesUseful = state.datesSeen < 3 || state.datesTrusted / state.datesSeen >= 0.5;
  const { count, exposure } = decayedCount(state.arrivals, now, state.observedSince, SCHEDULE_OPTIONS.rateHalfLife);
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
  const shape = planningProfile(state, now);
  const profile = shape?.multipliers ?? null;
  // Bursts and wake-ups: a recent span holding more items than the long-run rate (shaped by the
  // hour) makes plausible — a Poisson tail below SCHEDULE_OPTIONS.burstSignificance, not a mere busy stretch,
  // which every slow feed has now and then. The shortest spans see a feed that fills its window
  // in minutes (a wire, a live blog) at the first polls, before an hour of its history exists.
  // The burst's rate is measured from its first item in the span to now (burstRate): a wire seen
  // at its first poll shows nine items of its last three minutes and one a day old, and counted
  // over the six-minute span it was planned at half its rate. On a steady feed it is as good an
  // estimate as the count over the span.
  const longRun = rate;
  for (const hours of [0.1, 0.25, 1, 3, 12, 48]) {
    const spanMs = hours * HOUR_MS;
    const recent = recentArrivals(state.arrivals, now, spanMs);
    if (recent.count < 3 || recent.first === null) continue;
    const expected = expectedArrivals(longRun, profile, now - spanMs, spanMs);
    const burst = burstRate(recent.count, recent.first, now, spanMs);
    if (burst > rate && poissonTail(expected, recent.count - 1) < SCHEDULE_OPTIONS.burstSignificance) {
      rate = burst;
      riskRate = Math.max(riskRate, burst);
      source = `burst over ${hours}h`;
    }
  }
  // Burst onset: a feed that has burst before is planned at its burst rate as soon as its two
  // newest items came closer together than its usual rate makes likely, before a third confirms
  // it — by then the window may have filled. The evidence is the likelihood ratio of that gap
  // under the two rates (exponential gaps); it lasts while such a burst would still be going.
  const bursts = burstsOf(state, now, longRun, shape?.label ?? null);
  const [previous, newest] = state.arrivals.slice(-2);
  if (bursts && bursts.rate > rate && previous !== undefined && newest !== undefined && now - newest < (state.window || SCHEDULE_OPTIONS.assumedWindow) / bursts.rate) {
    const gap = newest - previous;
    const ratio = (bursts.rate / rate) * Math.exp(-(bursts.rate - rate) * gap);
    if (ratio >= SCHEDULE_OPTIONS.burstOnsetOdds) {
      rate = bursts.rate;
      riskRate = Math.max(riskRate, rate);
      source = 'burst onset';
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
  return { rate, longRun, uncertainRate: riskRate, bursts, profile, source: shape ? `${source}, ${shape.label} profile` : source };
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
    return { at, reason, ratePerHour: null, window: state.window || null, riskAt: null };
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
    return { at: new Date(now + delta), reason, ratePerHour: null, window: state.window || null, riskAt: null };
  }

  const estimate = estimateRate(state, now);
  // Until an item has been seen to leave the document, its size is only a lower bound on the
  // window: assume at least the most common window, 10 (thesis ch. 1 §3.4). A feed that has
  // shown one item is not a feed that holds one (which would need a poll per item).
  const window = state.windowFull ? state.window : Math.max(state.window, SCHEDULE_OPTIONS.assumedWindow);
  let delta: number;
  let reason: string;
  let risk = 0;
  let riskBound = false;
  /** The longest interval the overflow risk allows (jitter never goes past it). */
  let riskCap = Infinity;
  if (estimate === null) {
    delta = settings.defaultInterval;
    reason = `learning: default ${formatDuration(delta)}`;
  } else {
    const arrivals = (d: number) => expectedArrivals(estimate.rate, estimate.profile, now, d);
    const limit = safeMean(window - 1, settings.overflowRisk);
    // The regular rate (and what it could still be, given the evidence) is held to the ε
    // quantile; a feed's bursts to an expected loss of ε of its items (module comment).
    const bursts = estimate.bursts;
    const burstsFit = (d: number) => !bursts || (bursts.hazard * burstOverflow(d, bursts.rate, window - 1)) / d <= settings.overflowRisk * estimate.longRun;
    // What the rate could still be is uncertain in its level, not in its shape: a feed's quiet
    // hours stay quiet at the upper bound too (a flat bound would poll them as if at the mean).
    const worst = (d: number) => Math.max(arrivals(d), expectedArrivals(estimate.uncertainRate, estimate.profile, now, d));
    const byRisk = largest((d) => worst(d) <= limit && burstsFit(d), settings.maxInterval);
    riskCap = Math.max(byRisk, settings.minInterval);
    // c·Λ(Δ)·Δ ≤ 2 with Λ(Δ) = expected items in the interval (the square-root rule, λ·Δ = Λ).
    const bySquareRoot = largest((d) => settings.delayCost * arrivals(d) * (d / HOUR_MS) <= 2, settings.maxInterval);
    // At most `pollsPerItem` polls per expected item: Δ long enough for 1/pollsPerItem items.
    const byYield = largest((d) => arrivals(d) * settings.pollsPerItem < 1, settings.maxInterval);
    const byCost = Math.max(settings.delayTarget, bySquareRoot, byYield);
    delta = Math.min(byRisk, byCost);
    riskBound = byRisk < byCost;
    const binding = riskBound ? 'overflow risk' : byYield > Math.max(settings.delayTarget, bySquareRoot) ? 'items per poll' : 'delay cost';
    delta = Math.min(Math.max(delta, settings.minInterval), settings.maxInterval);
    risk = poissonTail(worst(delta), window);
    const burst = bursts && bursts.rate > estimate.rate ? `, bursts to ${(bursts.rate * HOUR_MS).toPrecision(2)}/h seen` : '';
    reason = `λ≈${(estimate.rate * HOUR_MS).toPrecision(2)}/h (${estimate.source}${burst}), W=${window}, overflow risk ${pct(risk)} → ${formatDuration(delta)} (${binding})`;
  }
  // Jitter keeps feeds from polling in lock-step. Where the overflow risk binds it only
  // shortens, so the risk stays within bounds; elsewhere it is symmetric, so that on average it
  // costs no polls — but never past what the overflow risk allows: an interval set by cost just
  // short of a feed's peak hours must not be lengthened into them.
  delta = Math.min(delta * (riskBound ? 1 - settings.jitter * random() : 1 + settings.jitter * (2 * random() - 1)), settings.maxInterval, riskCap);
  // A cautious first day (issue #52): the first document's dates are a claim, not an observation
  // — stale, missing, all equal, or a slow history of a feed that has just woken up. Until polls
  // have watched the feed for longer than the interval, the interval is at most what they have
  // watched (and at least the default): it doubles while the feed confirms its rate, as slow
  // start does, so a feed polled daily in the end costs a handful of polls more on its first
  // day, and a feed that publishes every few minutes from the moment of subscription is seen
  // doing so within the default interval, not after ten hours. A feed that breaks a long
  // silence is watched afresh (state.ts, brokeSilence).
  const watched = state.watchedSince === null ? Infinity : now - state.watchedSince;
  const caution = Math.max(settings.defaultInterval, watched);
  if (delta > caution) {
    delta = caution * (1 - settings.jitter * random());
    reason += `, watched for ${formatDuration(watched)} only → ${formatDuration(delta)}`;
  }

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
  return { at: new Date(at), reason, ratePerHour: estimate ? estimate.rate * HOUR_MS : null, window: state.window || null, riskAt: estimate ? new Date(now + riskCap) : null };
}
