import { z } from 'zod';
import { seedOf } from '../util/random.js';
import { burstRate, dailyMultipliers, decayedRate, hourOfWeek, multiplierWithout, profileMultipliers } from './estimate.js';
import { SCHEDULE_OPTIONS } from './options.js';

/**
 * What the scheduler remembers of a feed between polls (stored as JSON on the feed row). Only
 * what each poll showed goes in: the items' arrival estimates, poll outcomes, the document size.
 */
export interface ScheduleState {
  version: 1;
  firstPollAt: number | null;
  /**
   * Since when polls have watched the feed as it is now: its first poll, or the poll that found
   * it publishing again after a long silence. Until polls have watched it for longer than an
   * interval, the interval is bounded by how long they have (policy.ts: a cautious first day).
   */
  watchedSince: number | null;
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
  /** Burst episodes seen, oldest first (at most SCHEDULE_OPTIONS.maxBursts): a feed that has burst (a live
   *  blog) is planned as if it may burst again, as often as it has. */
  bursts: BurstEpisode[];
  consecutiveErrors: number;
}

export function emptyState(): ScheduleState {
  return {
    version: 1, firstPollAt: null, watchedSince: null, lastSuccessAt: null, observedSince: null, arrivals: [], profile: new Array<number>(168).fill(0),
    profileAt: null, polls: 0, pollsWithNew: 0, intervalSum: 0, window: 0, windowFull: false, lastGuids: [], datesSeen: 0, datesTrusted: 0,
    gapAt: null, gaps: 0, bursts: [], consecutiveErrors: 0,
  };
}

const time = z.number().nullable();
// An episode stored before `from` was kept is taken to have lasted no time (its hour is `at`'s, as it was judged then).
const burstEpisode = z.object({ seenAt: z.number(), from: z.number().optional(), at: z.number(), rate: z.number(), size: z.number() })
  .transform((episode) => ({ ...episode, from: episode.from ?? episode.at }));

/**
 * A state as stored. Written by observePoll only; a state from an older Forest lacks newer fields
 * (the defaults fill them: every field but the version and the profile is optional) and may
 * carry dropped ones (the burst memory before episodes), which the schema leaves out.
 */
const storedState = z.object({
  version: z.literal(1), profile: z.array(z.number()).length(168),
  firstPollAt: time, watchedSince: time, lastSuccessAt: time, observedSince: time, arrivals: z.array(z.number()), profileAt: time, polls: z.number(), pollsWithNew: z.number(),
  intervalSum: z.number(), window: z.number(), windowFull: z.boolean(), lastGuids: z.array(z.string()), datesSeen: z.number(), datesTrusted: z.number(),
  // Burst episodes that are not of this shape are forgotten, not the rest of the state.
  gapAt: time, gaps: z.number(), bursts: z.array(burstEpisode).catch([]), consecutiveErrors: z.number(),
}).partial().required({ version: true, profile: true });

export function parseState(json: string | null | undefined): ScheduleState {
  if (!json) return emptyState();
  try {
    const state = storedState.safeParse(JSON.parse(json));
    return state.success ? { ...emptyState(), ...state.data } : emptyState();
  } catch {
    return emptyState();
  }
}

/** A stretch of polls that found items far faster than the feed's rate at that hour. */
export interface BurstEpisode {
  /** The latest poll that saw it. */
  seenAt: number;
  /** When the items its rate was measured on began and ended: the hours the profile is asked about. */
  from: number;
  at: number;
  /** Items per ms over its busiest hour-scale span. */
  rate: number;
  /** Items in its busiest three hours: taken out of the profile when asking whether the
   *  profile explains it (a one-off burst must not explain itself). */
  size: number;
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
 * The hour-of-week shape the policy plans with: the week's after two weeks of history, the
 * day's after two days of a busy feed (a feed that fills its window in minutes at its peak
 * hours must be planned with that peak long before two weeks have passed), none before.
 */
export function profileKind(state: ScheduleState, now: number): 'weekly' | 'daily' | null {
  const span = now - (state.observedSince ?? now);
  if (span >= 14 * 24 * HOUR && state.arrivals.length >= 30) return 'weekly';
  if (span >= 2 * 24 * HOUR && state.arrivals.length >= SCHEDULE_OPTIONS.dailyShapeArrivals) return 'daily';
  return null;
}

/** The multipliers of the profile the policy plans with (profileKind), or null before there is one. */
export function planningProfile(state: ScheduleState, now: number): { multipliers: number[]; label: 'weekly' | 'daily' } | null {
  const label = profileKind(state, now);
  if (label === null) return null;
  return { multipliers: label === 'weekly' ? profileMultipliers(state.profile) : dailyMultipliers(state.profile), label };
}

/**
 * Whether an hour-scale rate is a burst: far above the long-run rate shaped by the profile at its
 * hours, the profile taken without the burst's own items (a peak that recurs every day is
 * explained by the others; a one-off burst is not explained by itself). Every hour its items
 * fell in is asked, and the busiest answers: a stretch that runs from a feed's last peak hour into
 * the first quiet one is the peak's, though it ended in the quiet hour.
 */
export function isBurst(state: ScheduleState, profile: 'weekly' | 'daily' | null, longRun: number, burst: BurstEpisode): boolean {
  let shape = 1;
  if (profile) {
    for (let hour = Math.floor(burst.from / HOUR) * HOUR; hour <= burst.at; hour += HOUR) {
      shape = Math.max(shape, multiplierWithout(state.profile, profile === 'daily', hourOfWeek(hour), burst.size));
    }
  }
  return burst.rate > SCHEDULE_OPTIONS.burstFactor * longRun * shape;
}

/**
 * Records a burst episode when this poll's new arrivals sit in an hour-scale span far busier
 * than the feed's rate at that hour. Every span ending at a new arrival is looked at, not only
 * the last hours before the poll: a burst that ended hours before a poll is still a burst. A
 * burst the previous poll saw too is the same episode, and so is one whose busiest three hours
 * reach back into the last episode's: a news event that pauses for a poll or two is one event,
 * and counting it twice would double how often the feed seems to burst.
 */
function rememberBurst(state: ScheduleState, now: number, previousPoll: number, newArrivals: readonly number[]): void {
  const profile = profileKind(state, now);
  const longRun = decayedRate(state.arrivals, now, state.observedSince ?? now, SCHEDULE_OPTIONS.rateHalfLife);
  let found: BurstEpisode | null = null;
  // The arrivals are in order: a span's items are found by bisection, not by a pass over all of
  // them for each new item (a feed showing a hundred items judged again at every poll).
  const arrivals = state.arrivals;
  for (const end of newArrivals) {
    const last = firstAfter(arrivals, end) - 1;
    const size = last - firstAfter(arrivals, end - SCHEDULE_OPTIONS.episodeSpan) + 1;
    for (const span of [HOUR, SCHEDULE_OPTIONS.episodeSpan]) {
      const first = firstAfter(arrivals, end - span);
      const count = last - first + 1;
      if (count < 5) continue;
      // The rate over the time the items actually took, from the first to the last (burstRate),
      // not over the whole span: 20 items in half an hour are 40 an hour, not 20.
      const candidate = { seenAt: now, from: arrivals[first]!, at: end, rate: burstRate(count, arrivals[first]!, arrivals[last]!, span), size };
      if ((!found || candidate.rate > found.rate) && isBurst(state, profile, longRun, candidate)) found = candidate;
    }
  }
  if (!found) return;
  const last = state.bursts[state.bursts.length - 1];
  if (last && (last.seenAt >= previousPoll || found.at - SCHEDULE_OPTIONS.episodeSpan <= last.at)) {
    state.bursts = [...state.bursts.slice(0, -1), found.rate > last.rate ? { ...found, size: Math.max(found.size, last.size) } : { ...last, seenAt: now, size: Math.max(found.size, last.size) }];
  } else {
    state.bursts = [...state.bursts, found].slice(-SCHEDULE_OPTIONS.maxBursts);
  }
}

/** The index of the first of the sorted `times` later than `t` (their length when none is). */
function firstAfter(times: readonly number[], t: number): number {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (times[mid]! > t) high = mid;
    else low = mid + 1;
  }
  return low;
}

/**
 * Whether new items at this poll end a long silence: nothing new since well before the previous
 * poll, for longer than the feed's rate makes likely (SCHEDULE_OPTIONS.silentGaps). A dormant feed that wakes
 * may publish at any rate; its old rate says nothing of it.
 */
export function brokeSilence(state: ScheduleState, previousPoll: number): boolean {
  const newest = state.arrivals[state.arrivals.length - 1];
  if (newest === undefined) return state.watchedSince !== null && previousPoll - state.watchedSince >= SCHEDULE_OPTIONS.rateHalfLife;
  const silence = previousPoll - newest;
  const rate = decayedRate(state.arrivals, newest, state.observedSince ?? newest, SCHEDULE_OPTIONS.rateHalfLife);
  return silence >= SCHEDULE_OPTIONS.rateHalfLife && silence * rate >= SCHEDULE_OPTIONS.silentGaps;
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
    state.polls = decay(state.polls, elapsed, SCHEDULE_OPTIONS.pollHalfLife) + 1;
    state.pollsWithNew = decay(state.pollsWithNew, elapsed, SCHEDULE_OPTIONS.pollHalfLife);
    state.intervalSum = decay(state.intervalSum, elapsed, SCHEDULE_OPTIONS.pollHalfLife) + elapsed;
    state.datesSeen = decay(state.datesSeen, elapsed, SCHEDULE_OPTIONS.pollHalfLife);
    state.datesTrusted = decay(state.datesTrusted, elapsed, SCHEDULE_OPTIONS.pollHalfLife);
  }
  if (state.profileAt !== null && now > state.profileAt) {
    const factor = Math.pow(0.5, (now - state.profileAt) / SCHEDULE_OPTIONS.profileHalfLife);
    for (let h = 0; h < 168; h++) state.profile[h]! *= factor;
  }
  state.profileAt = now;

  const items = observation.items;
  if (items) {
    const newItems = items.filter((item) => item.isNew);
    if (previousPoll === null || (newItems.length > 0 && brokeSilence(state, previousPoll))) state.watchedSince = now;
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
    state.arrivals = all.slice(-SCHEDULE_OPTIONS.maxArrivals);
    // Forgetting the oldest arrivals shortens the span they describe, or the rate would sag.
    if (all.length > SCHEDULE_OPTIONS.maxArrivals && state.observedSince !== null) state.observedSince = Math.max(state.observedSince, state.arrivals[0]!);
    // The first document is evidence too: a window that filled in half an hour yesterday can
    // fill as fast today, long before the profile has seen that hour.
    if (arrivals.length > 0) rememberBurst(state, now, previousPoll ?? -Infinity, arrivals);
    // At the first poll, though, those items were judged against a rate made of themselves
    // alone: a window that filled in twenty minutes is no burst beside its own twenty minutes.
    // Until an episode is known they are judged again at each poll, against the rate the feed
    // has shown since — hours of silence after them make them the burst they were — for as long
    // as the feed has no profile: once it has, its hours are planned by it, the first
    // document's among them.
    if (state.bursts.length === 0 && previousPoll !== null && state.firstPollAt !== null && profileKind(state, now) === null) {
      const firstPoll = state.firstPollAt;
      let shown = 0;
      while (shown < state.arrivals.length && state.arrivals[shown]! < firstPoll) shown++;
      const firstDocument = state.arrivals.slice(0, shown);
      if (firstDocument.length >= 5) rememberBurst(state, now, previousPoll, firstDocument);
    }
  }
  state.observedSince ??= now;
  state.lastSuccessAt = now;
  return state;
}
