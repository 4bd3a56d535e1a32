import { z } from 'zod';
import { checkedRows, count, integer, nullableText, text } from './rows.js';

/** What status shows of each feed's items, pages, articles and checks: read by each engine, put together here once. */
export interface FeedCounts {
  items: number;
  pages: number;
  failedPages: number;
  pendingPages: number;
  lastPageError: string | null;
  articles: number;
  versions: number;
  checks: number;
  nextRevisit: string | null;
  /** Articles whose last check got no answer, and the first of their retries. */
  retrying: number;
  nextRetry: string | null;
}

const itemCountRow = z.object({ feedId: integer, items: count, pages: count, failedPages: count, pendingPages: count });
const lastPageErrorRow = z.object({ feedId: integer, error: text });
const articleCountRow = z.object({ feedId: integer, articles: count, versions: count, nextRevisit: nullableText, retrying: count, nextRetry: nullableText });
const checkCountRow = z.object({ feedId: integer, checks: count });

/**
 * Per-feed counts for status, from the four grouped reads each engine makes (items by state, the
 * latest page error, articles and versions, checks): one way to put them together.
 */
export function feedCountsOf(rows: { items: unknown[]; errors: unknown[]; articles: unknown[]; checks: unknown[] }): Map<number, FeedCounts> {
  const counts = new Map<number, FeedCounts>();
  const of = (feedId: number) => {
    let entry = counts.get(feedId);
    if (!entry) {
      entry = { items: 0, pages: 0, failedPages: 0, pendingPages: 0, lastPageError: null, articles: 0, versions: 0, checks: 0, nextRevisit: null, retrying: 0, nextRetry: null };
      counts.set(feedId, entry);
    }
    return entry;
  };
  for (const row of checkedRows(itemCountRow, rows.items, 'feedCounts')) Object.assign(of(row.feedId), { items: row.items, pages: row.pages, failedPages: row.failedPages, pendingPages: row.pendingPages });
  for (const row of checkedRows(lastPageErrorRow, rows.errors, 'feedCounts')) of(row.feedId).lastPageError = row.error;
  for (const row of checkedRows(articleCountRow, rows.articles, 'feedCounts')) Object.assign(of(row.feedId), { articles: row.articles, versions: row.versions, nextRevisit: row.nextRevisit, retrying: row.retrying, nextRetry: row.nextRetry });
  for (const row of checkedRows(checkCountRow, rows.checks, 'feedCounts')) of(row.feedId).checks = row.checks;
  return counts;
}
