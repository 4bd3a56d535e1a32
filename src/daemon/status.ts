import type { Db } from '../archive/database.js';
import { listFeeds } from '../archive/feeds.js';
import { countItems } from '../archive/items.js';

export interface FeedStatus {
  id: number;
  url: string;
  fetchUrl: string;
  title: string | null;
  enabled: boolean;
  lastPoll: string | null;
  result: string | null;
  httpStatus: number | null;
  nextPoll: string | null;
  scheduleReason: string | null;
  /** Items per hour the scheduler estimates, and the feed's window (items its document shows). */
  ratePerHour: number | null;
  window: number | null;
  items: number;
  pages: number;
  pendingPages: number;
  failedPages: number;
  errors: number;
  consecutiveErrors: number;
  lastError: string | null;
  lastPageError: string | null;
  /** The object-level archive: articles, their versions, checks, and the next revisit due. */
  articles: number;
  versions: number;
  checks: number;
  nextRevisit: string | null;
}

/** Per-feed state for `forest status`, read from the database alone. */
export function feedStatuses(db: Db): FeedStatus[] {
  const lastPageError = db.prepare(`SELECT page_error FROM items WHERE feed_id = ? AND page_error IS NOT NULL ORDER BY page_due_at DESC LIMIT 1`).pluck();
  const archive = db.prepare(`SELECT COUNT(*) AS articles, COALESCE(SUM(versions), 0) AS versions, MIN(next_check_at) AS nextRevisit,
      (SELECT COUNT(*) FROM checks JOIN articles AS checked ON checked.id = checks.article_id WHERE checked.feed_id = @feed) AS checks
    FROM articles WHERE feed_id = @feed`);
  return listFeeds(db).map((row) => {
    const counts = countItems(db, row.id);
    return {
      id: row.id,
      url: row.subscribed_url,
      fetchUrl: row.url,
      title: row.title ?? row.feed_title,
      enabled: row.enabled === 1,
      lastPoll: row.last_poll_at,
      result: row.last_result,
      httpStatus: row.last_status,
      nextPoll: row.enabled === 1 ? row.next_poll_at : null,
      scheduleReason: row.schedule_reason,
      ratePerHour: row.rate_per_hour,
      window: row.window_size,
      items: counts.items,
      pages: counts.pages ?? 0,
      pendingPages: counts.pendingPages ?? 0,
      failedPages: counts.failedPages ?? 0,
      errors: row.error_count,
      consecutiveErrors: row.consecutive_errors,
      lastError: row.last_error,
      lastPageError: (lastPageError.get(row.id) as string | undefined) ?? null,
      ...(archive.get({ feed: row.id }) as { articles: number; versions: number; checks: number; nextRevisit: string | null }),
    };
  });
}
