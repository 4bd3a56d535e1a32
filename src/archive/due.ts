import type { WorkRef } from './model.js';

/**
 * What is due, as SQL predicates, written once for both engines and for every place that asks:
 * the queues a scheduler pass reads (queues.ts, postgres/queues.ts), the status backlog, and the
 * re-check a PostgreSQL claim makes before it is granted (postgres/lease.ts). Each is also the
 * predicate of a partial index (migrations/0005 and 0014, postgres/0001): a query must say it
 * word for word for the planner to use that index.
 */
export const DUE = {
  /** Feeds the daemon polls (index feeds_due). */
  polled: 'enabled = 1 AND subscribed = 1',
  /** Pages of enabled feeds never tried yet (index items_capture). */
  neverTried: "page_state = 'pending' AND feed_enabled = 1 AND page_attempts = 0",
  /** Pages of enabled feeds that failed and wait to be tried again (index items_retry). */
  retried: "page_state = 'pending' AND feed_enabled = 1 AND page_attempts > 0",
  /** Either: a page of an enabled feed still to capture. */
  pendingPage: "page_state = 'pending' AND feed_enabled = 1",
  /** Articles of enabled feeds with a revisit planned (index articles_due). */
  revisited: 'next_check_at IS NOT NULL AND feed_enabled = 1',
} as const;

/**
 * The order due work is taken in: longest overdue first, and among work due at the same time
 * the oldest row first — without the second key each engine broke ties its own way (SQLite in
 * rowid order, PostgreSQL in heap order), so two engines did the same work in another order.
 */
export const DUE_ORDER = {
  polls: 'next_poll_at, id',
  /** Polls whose feeds' items are at risk: the longest at risk first (index feeds_at_risk). */
  pollsAtRisk: 'poll_risk_at, id',
  retries: 'page_due_at, id',
  revisits: 'next_check_at, id',
} as const;

/**
 * The order a pass takes due polls in, from three searches of the feeds (each engine's queues):
 * first the feeds whose items are at risk — overdue past the time their overflow risk allows
 * (schedule/policy.ts `riskAt`): each second more may lose items the feed is known to publish;
 * then feeds never polled, in the order they came — all they show is still to archive; then the
 * rest of what is overdue, the longest overdue first — planned for delay's or caution's sake,
 * where waiting costs freshness, not items.
 *
 * Overdue before never-polled (the order before), a first round of 10,000 feeds held busy feeds'
 * polls (bench:scale: 35 of the hot feeds' 387 polls 4–43 s late), but on a first day at 100,000
 * feeds the re-polls of feeds polled minutes before took every slot: after 70 minutes, 120,357
 * polls had reached 36,060 feeds (docs/measurements.md). Busy feeds' polls are the ones at risk,
 * and stay first.
 */
export function duePollOrder(atRisk: WorkRef[], fresh: WorkRef[], overdue: WorkRef[], limit: number): WorkRef[] {
  const taken = new Set(atRisk.map((ref) => ref.id));
  return [...atRisk.map((ref) => ({ ...ref, atRisk: true })), ...fresh, ...overdue.filter((ref) => !taken.has(ref.id))].slice(0, limit);
}
