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
  retries: 'page_due_at, id',
  revisits: 'next_check_at, id',
} as const;
