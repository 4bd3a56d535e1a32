/**
 * Capture delays of the items a feed published during a run, without the run's end flattering
 * them. An item published shortly before the run stops may still be waiting for its feed's next
 * poll when it stops: among the items captured by then, the late publications are the ones with
 * short delays, and a quantile over the captured items alone leaves out exactly the long delays
 * (bench:scale, 10,000 feeds, 2026-11-27: p95 122 s over every captured hot item, 131 s over those
 * published at least three minutes before the end).
 *
 * So only items with `settle` seconds between their publication and the end count, and an item
 * among them that was never captured counts as a delay past every target (Infinity), not as
 * missing.
 */
export interface PublishedItem {
  /** When the feed says it was published (ms since the epoch). */
  published: number;
  /** Its first capture (ms since the epoch), or null when it has none. */
  fetched: number | null;
}

/** The delays (seconds) of the items published at least `settleS` seconds before `end` (ms). */
export function settledDelays(items: readonly PublishedItem[], end: number, settleS: number): number[] {
  return items
    .filter((item) => item.published <= end - settleS * 1000)
    .map((item) => (item.fetched === null ? Number.POSITIVE_INFINITY : (item.fetched - item.published) / 1000));
}
