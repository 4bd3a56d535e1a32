import { z } from 'zod';
import { seededRandom, seedOf } from '../util/random.js';
import { NO_HINTS, nextPoll, type PublisherHints, type ScheduleSettings } from './policy.js';
import { emptyState, observePoll, type ScheduleState } from './state.js';

/**
 * `forest schedule-sim`: runs a scheduling policy against a trace on a virtual clock (the trace
 * format: docs/architecture.md §8). At any instant a feed document shows the `window` most recent items with `at` ≤ now; an
 * item is captured at the first poll that shows it, missed if none does. Every feed is polled at
 * `start` and, whatever its policy, once more at `end`: so that items published after a
 * policy's last poll are not counted as lost, which would penalise long intervals for an
 * artefact of where the trace stops.
 *
 * A feed with `pages` links its older items (an RFC 5005 archive, a paged feed, WordPress's
 * `?paged=`): when a poll shows a document of new items only, after an earlier poll saw some,
 * items scrolled out unseen and Forest walks back (daemon/gap-recovery.ts) — every item since
 * the newest one seen is recovered at that poll, counted as captured with its delay and as
 * `recovered`. Without `pages` a feed's lost items stay missed, as they do for a policy that does
 * not walk gaps (the other readers the benchmark compares).
 */

const iso = z.string().refine((value) => !Number.isNaN(Date.parse(value)), 'not an ISO-8601 date');
export const traceSchema = z.object({
  start: iso,
  end: iso,
  feeds: z.array(z.object({
    id: z.string(),
    window: z.number().int().min(1),
    /** RSS ttl, minutes. */
    ttl: z.number().nullish(),
    /** HTTP Cache-Control max-age, seconds. */
    maxAge: z.number().nullish(),
    /** Whether the feed links its older items (archive or pages): a gap is walked back. */
    pages: z.boolean().nullish(),
    items: z.array(z.object({ guid: z.string(), at: iso, date: iso.nullish() })),
  })),
});
export type Trace = z.infer<typeof traceSchema>;
export type TraceFeed = Trace['feeds'][number];

export interface ShownItem {
  guid: string;
  date: number | null;
  isNew: boolean;
}

/** A scheduling policy as the simulation drives it: told what each poll showed, it says when to poll next. */
export interface SimPolicy<S> {
  name: string;
  /** Whether the reader walks a gap back through a feed's pages (Forest does; other readers do not). */
  walksGaps?: boolean;
  start(feed: TraceFeed): S;
  afterPoll(state: S, at: number, shown: ShownItem[], feed: TraceFeed): { state: S; next: number };
}

export interface FeedResult {
  id: string;
  times: string[];
  polls: number;
  captured: number;
  missed: number;
  /** Of the captured, those a gap walk recovered (a feed with pages). */
  recovered: number;
  delays: number[];
}

/** Forest's own policy: exactly the functions the daemon calls after every poll. */
export function forestPolicy(settings: ScheduleSettings, seed = 1): SimPolicy<{ state: ScheduleState; random: () => number }> {
  return {
    name: 'Forest',
    walksGaps: true,
    start: (feed) => ({ state: emptyState(), random: seededRandom(seedOf(feed.id) ^ seed) }),
    afterPoll: ({ state, random }, at, shown, feed) => {
      const next = observePoll(state, { at, failed: false, notModified: false, items: shown });
      const hints: PublisherHints = { ...NO_HINTS, ttlMinutes: feed.ttl ?? null, maxAgeMs: feed.maxAge ? feed.maxAge * 1000 : null };
      const decision = nextPoll(next, hints, at, settings, random);
      return { state: { state: next, random }, next: decision.at.getTime() };
    },
  };
}

export function simulateFeed<S>(feed: TraceFeed, policy: SimPolicy<S>, start: number, end: number): FeedResult {
  const items = feed.items
    .map((item) => ({ guid: item.guid, at: Date.parse(item.at), date: item.date ? Date.parse(item.date) : null }))
    .sort((a, b) => a.at - b.at);
  const seen = new Set<string>();
  const result: FeedResult = { id: feed.id, times: [], polls: 0, captured: 0, missed: 0, recovered: 0, delays: [] };
  let state = policy.start(feed);
  let now = start;
  let visible = 0; // items[0..visible) have at ≤ now
  /** An item first seen now: captured (counted when it appeared within the trace), with its delay. */
  const capture = (item: (typeof items)[number]) => {
    seen.add(item.guid);
    if (item.at < start) return false;
    result.captured++;
    result.delays.push((now - item.at) / 1000);
    return true;
  };
  for (;;) {
    while (visible < items.length && items[visible]!.at <= now) visible++;
    const document = items.slice(Math.max(0, visible - feed.window), visible).reverse();
    // A gap: the whole document is new, older items exist, and an earlier poll saw some.
    const oldest = visible - feed.window;
    if (policy.walksGaps && feed.pages && oldest > 0 && seen.size > 0 && document.every((item) => !seen.has(item.guid))) {
      for (let i = oldest - 1; i >= 0 && !seen.has(items[i]!.guid); i--) if (capture(items[i]!)) result.recovered++;
    }
    const shown = document.map((item) => {
      const isNew = !seen.has(item.guid);
      if (isNew) capture(item);
      return { guid: item.guid, date: item.date, isNew };
    });
    result.polls++;
    result.times.push(new Date(now).toISOString());
    if (now >= end) break;
    const decision = policy.afterPoll(state, now, shown, feed);
    state = decision.state;
    now = Math.min(Math.max(decision.next, now + 1000), end);
  }
  result.missed = items.filter((item) => item.at >= start && item.at <= end && !seen.has(item.guid)).length;
  return result;
}

export function simulate<S>(trace: Trace, policy: SimPolicy<S>): { feeds: FeedResult[] } {
  const start = Date.parse(trace.start);
  const end = Date.parse(trace.end);
  return { feeds: trace.feeds.map((feed) => simulateFeed(feed, policy, start, end)) };
}
