import { seedOf } from '../util/random.js';
import { decayedRate, hourOfWeek, profileMultipliers, recentRate } from './estimate.js';

/**
 * What the scheduler remembers of a feed between polls (stored as JSON on the feed row). Only
 * what each poll showed goes in: the items' arrival estimates, poll outcomes, the document size.
 */
export interface ScheduleState {
  version: 1;
  firstPollAt: number | null;
  /** Last poll that returned a document (200 or 304). */
  lastSuccessAt: number | null;
  /** Start of the span the arrivals describe. */
  observedSince: number | null;
  /** Estimated arrival times of recent items, oldest first (bounded). */
  arrivals: number[];
  /** Decayed arrival counts per hour of the week (UTC, Monday 00h first). */
  profile: number[];
  profileAt: number | null;
  /** Decayed poll counts for the Cho & Garcia-Molina estimator. */
  polls: number;
  pollsWithNew: number;
  intervalSum: number;
  /** Largest document seen: the feed's window W. */
  window: number;
  /** Whether an item has been seen to leave the document: until then W is only a lower bound
   *  (a feed that has shown one item so far may well show ten). */
  windowFull: boolean;
  /** Short hashes of the guids of the last document, for gap evidence. */
  lastGuids: string[];
  /** Decayed counts of new items with a date, and of those whose date was believable. */
  datesSeen: number;
  datesTrusted: number;
  /** Last poll that showed a probable loss (no overlap with the previous full document). */
  gapAt: number | null;
  gaps: number;
  /** Highest burst rate seen (items/ms) well above the long-run rate, decayed: a feed that has
   *  burst (a live blog) is planned as if it may burst again. */
  peakRate: number;
  peakAt: number | null;
  consecutiveErrors: number;
}

export function emptyState(): ScheduleState {
  return {
    version: 1, firstPollAt: null, lastSuccessAt: null, observedSince: null, arrivals: [], profile: new Array<number>(168).fill(0),
    profileAt: null, polls: 0, pollsWithNew: 0, intervalSum: 0, window: 0, windowFull: false, lastGuids: [], datesSeen: 0, datesTrusted: 0,
    gapAt: null, gaps: 0, peakRate: 0, peakAt: null, consecutiveErrors: 0,
  };
}

export function parseState(json: string | null | undefined): ScheduleState {
  if (!json) return emptyState();
  try {
    const state = JSON.parse(json) as ScheduleState;
    return state.version === 1 && Array.isArray(state.profile) && state.profile.length === 168 ? { ...emptyState(), ...state } : emptyState();
  } catch {
    return emptyState();
  }
}

/** One poll, as the scheduler sees it. */
export interface PollObservation {
  at: number;
  /** The request failed (network, HTTP error, unreadable document). */
  failed: boolean;
  /** 304: nothing new. */
  notModified: boolean;
  /** The document's items, newest first as shown, with their shown date; null without a document. */
  items: Array<{ guid: string; date: number | null; isNew: boolean }> | null;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const MAX_ARRIVALS = 400;
/** How long old behaviour keeps weight. */
export const RATE_HALF_LIFE = 7 * 24 * HOUR;
const PROFILE_HALF_LIFE = 28 * 24 * HOUR;
const PEAK_HALF_LIFE = 14 * 24 * HOUR;
/** A burst is remembered when it is this many times the long-run rate. */
const BURST_FACTOR = 4;
const POLL_HALF_LIFE = 7 * 24 * HOUR;

// Enough to recognise the previous document's items; collisions only hide a gap now and then.
const shortHash = (guid: string) => seedOf(guid).toString(36);
const decay = (value: number, elapsed: number, halfLife: number) => value * Math.pow(0.5, Math.max(0, elapsed) / halfLife);

/**
 * When did the new items of this poll appear? A shown date is believed only if it is
 * plausible: not in the future, not older than the previous poll (less a tolerance) — an item
 * we did not see then cannot have been published long before — and, on a first poll, not
 * shared by most of the document (a feed stamping every item with its build time). Unbelievable
 * or missing dates are replaced by times spread evenly over (previous poll, now].
 */
export function arrivalEstimates(
  newItems: ReadonlyArray<{ date: number | null }>,
  now: number,
  previousPoll: number | null,
  documentDates: ReadonlyArray<number | null>,
): { arrivals: number[]; dated: number; trusted: number } {
  const future = now + 10 * MINUTE;
  let trustedCount = 0;
  let dated = 0;
  const arrivals: number[] = [];
  const untrusted: number[] = [];
  let identical = false;
  if (previousPoll === null) {
    const counts = new Map<number, number>();
    for (const date of documentDates) if (date !== null) counts.set(date, (counts.get(date) ?? 0) + 1);
    const most = Math.max(0, ...counts.values());
    identical = documentDates.length >= 3 && most >= Math.ceil(documentDates.length / 2);
  }
  const tolerance = previousPoll === null ? 0 : Math.max(15 * MINUTE, 0.25 * (now - previousPoll));
  newItems.forEach((item, index) => {
    if (item.date !== null) dated++;
    const believable = item.date !== null && item.date <= future && !identical && (previousPoll === null || item.date >= previousPoll - tolerance);
    if (believable) {
      trustedCount++;
      arrivals.push(Math.min(item.date!, now));
    } else {
      untrusted.push(index);
    }
  });
  if (previousPoll !== null) {
    untrusted.forEach((_, i) => arrivals.push(previousPoll + ((i + 1) / (untrusted.length + 1)) * (now - previousPoll)));
  }
  return { arrivals: arrivals.sort((a, b) => a - b), dated, trusted: trustedCount };
}

/**
 * Keeps the busiest hour-scale rate among this poll's new arrivals if it stands far above the
 * feed's long-run rate. Every span ending at a new arrival is looked at, not only the last hours
 * before the poll: a burst that ended hours before a poll is still a burst.
 */
function rememberBurst(state: ScheduleState, now: number, newArrivals: readonly number[]): void {
  if (state.peakAt !== null) state.peakRate = decay(state.peakRate, now - state.peakAt, PEAK_HALF_LIFE);
  state.peakAt = now;
  // Compared with what the weekly profile expects at this hour, so office hours are no burst.
  const history = now - (state.observedSince ?? now) >= 14 * 24 * HOUR && state.arrivals.length >= 30;
  const shape = history ? profileMultipliers(state.profile)[hourOfWeek(now)]! : 1;
  const longRun = decayedRate(state.arrivals, now, state.observedSince ?? now, RATE_HALF_LIFE) * Math.max(shape, 1);
  for (const span of [HOUR, 3 * HOUR]) {
    for (const end of newArrivals) {
      const { count } = recentRate(state.arrivals, end, span);
      if (count < 5) continue;
      const rate = (count - 1) / span;
      if (rate > BURST_FACTOR * longRun) state.peakRate = Math.max(state.peakRate, rate);
    }
  }
}

/** The state after a poll: a pure function, run by the daemon and by the simulation alike. */
export function observePoll(previous: ScheduleState, observation: PollObservation): ScheduleState {
  const state: ScheduleState = { ...previous, profile: [...previous.profile] };
  const now = observation.at;
  if (observation.failed) {
    state.consecutiveErrors++;
    return state;
  }
  state.consecutiveErrors = 0;
  const previousPoll = state.lastSuccessAt;
  state.firstPollAt ??= now;

  // Decay the poll and profile counters to now.
  if (previousPoll !== null) {
    const elapsed = now - previousPoll;
    state.polls = decay(state.polls, elapsed, POLL_HALF_LIFE) + 1;
    state.pollsWithNew = decay(state.pollsWithNew, elapsed, POLL_HALF_LIFE);
    state.intervalSum = decay(state.intervalSum, elapsed, POLL_HALF_LIFE) + elapsed;
    state.datesSeen = decay(state.datesSeen, elapsed, POLL_HALF_LIFE);
    state.datesTrusted = decay(state.datesTrusted, elapsed, POLL_HALF_LIFE);
  }
  if (state.profileAt !== null && now > state.profileAt) {
    const factor = Math.pow(0.5, (now - state.profileAt) / PROFILE_HALF_LIFE);
    for (let h = 0; h < 168; h++) state.profile[h]! *= factor;
  }
  state.profileAt = now;

  const items = observation.items;
  if (items) {
    const newItems = items.filter((item) => item.isNew);
    const { arrivals, dated, trusted } = arrivalEstimates(newItems, now, previousPoll, items.map((item) => item.date));
    if (previousPoll !== null && newItems.length > 0) state.pollsWithNew++;
    state.datesSeen += dated;
    state.datesTrusted += trusted;
    // Gap evidence: a full document sharing nothing with the previous one.
    const guids = items.map((item) => shortHash(item.guid));
    if (previousPoll !== null && state.lastGuids.length > 0 && items.length >= Math.max(1, state.window) && !guids.some((guid) => state.lastGuids.includes(guid))) {
      state.gapAt = now;
      state.gaps++;
    }
    state.window = Math.max(state.window, items.length);
    // An item of the last document gone from this one: the document is full at its size.
    if (state.lastGuids.some((guid) => !guids.includes(guid))) state.windowFull = true;
    state.lastGuids = guids;
    // The first document covers the time since its oldest item: one dated item a day old says
    // "one item in a day", not "one item just now".
    if (previousPoll === null) state.observedSince = arrivals.length > 0 && arrivals[0]! < now ? arrivals[0]! : now;
    for (const at of arrivals) state.profile[hourOfWeek(at)]! += 1;
    const all = state.arrivals.concat(arrivals);
    // Usually already in order (new items arrive after old ones); sort only when not.
    if (arrivals.length > 0 && state.arrivals.length > 0 && arrivals[0]! < state.arrivals[state.arrivals.length - 1]!) all.sort((a, b) => a - b);
    state.arrivals = all.slice(-MAX_ARRIVALS);
    // Forgetting the oldest arrivals shortens the span they describe, or the rate would sag.
    if (all.length > MAX_ARRIVALS && state.observedSince !== null) state.observedSince = Math.max(state.observedSince, state.arrivals[0]!);
    if (previousPoll !== null && arrivals.length > 0) rememberBurst(state, now, arrivals);
  }
  state.observedSince ??= now;
  state.lastSuccessAt = now;
  return state;
}
