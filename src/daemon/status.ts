import type { Db } from '../archive/database.js';
import { feedCounts, listFeeds } from '../archive/feeds.js';
import { leaseHolder } from '../archive/lease.js';
import type { DaemonReport } from './daemon.js';
import { LEASE_STALE_MS } from './service.js';

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

/** Per-feed state for `forest status`, read from the database alone (each table read once). */
export function feedStatuses(db: Db): FeedStatus[] {
  const counts = feedCounts(db);
  return listFeeds(db).map((row) => {
    const count = counts.get(row.id);
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
      items: count?.items ?? 0,
      pages: count?.pages ?? 0,
      pendingPages: count?.pendingPages ?? 0,
      failedPages: count?.failedPages ?? 0,
      errors: row.error_count,
      consecutiveErrors: row.consecutive_errors,
      lastError: row.last_error,
      lastPageError: count?.lastPageError ?? null,
      articles: count?.articles ?? 0,
      versions: count?.versions ?? 0,
      checks: count?.checks ?? 0,
      nextRevisit: count?.nextRevisit ?? null,
    };
  });
}

/** The daemon working on this database, from its lease: who, since when, and its last report. */
export interface DaemonStatus {
  pid: number;
  host: string;
  startedAt: string;
  heartbeatAt: string;
  /** The heartbeat is older than a live daemon's would be. */
  stale: boolean;
  report: DaemonReport | null;
}

export function daemonStatus(db: Db, now = Date.now()): DaemonStatus | null {
  const holder = leaseHolder(db);
  if (!holder) return null;
  let report: DaemonReport | null = null;
  try {
    report = holder.status ? (JSON.parse(holder.status) as DaemonReport) : null;
  } catch {
    report = null;
  }
  return { pid: holder.pid, host: holder.host, startedAt: holder.startedAt, heartbeatAt: holder.heartbeatAt, stale: now - Date.parse(holder.heartbeatAt) > LEASE_STALE_MS, report };
}
