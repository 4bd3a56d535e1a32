import { z } from 'zod';
import { checkedRows, count, integer, nullableText, text } from './rows.js';
import type { ArchiveCheck } from './model.js';

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
const articleCountRow = z.object({ feedId: integer, articles: count, versions: count, checks: count, nextRevisit: nullableText, retrying: count, nextRetry: nullableText });

/**
 * Per-feed counts for status, from the three grouped reads each engine makes (items by state, the
 * latest page error, articles with their versions and checks): one way to put them together.
 */
export function feedCountsOf(rows: { items: unknown[]; errors: unknown[]; articles: unknown[] }): Map<number, FeedCounts> {
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
  for (const row of checkedRows(articleCountRow, rows.articles, 'feedCounts')) Object.assign(of(row.feedId), { articles: row.articles, versions: row.versions, checks: row.checks, nextRevisit: row.nextRevisit, retrying: row.retrying, nextRetry: row.nextRetry });
  return counts;
}

/**
 * `forest check`: articles whose count of checks (articles.checks, kept by each check's write and
 * by retention's deletes) is not the number of their checks stored. One statement, so one
 * consistent state beside a running daemon, on either engine.
 */
export const MISCOUNTED_CHECKS = 'SELECT COUNT(*) FROM articles WHERE checks <> (SELECT COUNT(*) FROM checks WHERE checks.article_id = articles.id)';

export function miscountedChecks(articles: number): ArchiveCheck {
  return { name: 'counts of checks', problems: articles === 0 ? [] : [`${articles} article${articles === 1 ? '' : 's'} whose count of checks differs from the checks stored`] };
}
