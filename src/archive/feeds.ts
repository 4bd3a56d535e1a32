import type { Db } from './database.js';

/** A subscription as the list gives it. */
export interface Subscription {
  url: string;
  title?: string | null | undefined;
  siteUrl?: string | null | undefined;
  tags: string[];
  schedule?: string | null | undefined;
  enabled: boolean;
}

export interface FeedRow {
  id: number;
  subscribed_url: string;
  url: string;
  title: string | null;
  feed_title: string | null;
  site_url: string | null;
  description: string | null;
  tags: string;
  cron: string | null;
  enabled: number;
  subscribed: number;
  format: string | null;
  etag: string | null;
  last_modified: string | null;
  ttl_minutes: number | null;
  skip_hours: string;
  skip_days: string;
  update_period: string | null;
  update_frequency: number | null;
  hub: string | null;
  next_poll_at: string | null;
  schedule_reason: string | null;
  retry_after_until: string | null;
  last_poll_at: string | null;
  last_status: number | null;
  last_result: string | null;
  last_error: string | null;
  error_count: number;
  consecutive_errors: number;
  schedule_state: string | null;
  rate_per_hour: number | null;
  window_size: number | null;
  max_age_seconds: number | null;
  created_at: string;
  updated_at: string;
}

export interface SyncReport {
  added: string[];
  updated: string[];
  removed: string[];
}

/**
 * Makes the database's subscriptions match the list, in one transaction. Feeds gone from the
 * list are marked unsubscribed, never deleted: their archive stays.
 */
export function syncSubscriptions(db: Db, subscriptions: Subscription[], now = new Date()): SyncReport {
  const stamp = now.toISOString();
  const report: SyncReport = { added: [], updated: [], removed: [] };
  const existing = new Map((db.prepare('SELECT * FROM feeds').all() as FeedRow[]).map((row) => [row.subscribed_url, row]));
  const insert = db.prepare(`INSERT INTO feeds (subscribed_url, url, title, site_url, tags, cron, enabled, subscribed, next_poll_at, created_at, updated_at)
    VALUES (@url, @url, @title, @siteUrl, @tags, @cron, @enabled, 1, NULL, @stamp, @stamp)`);
  const update = db.prepare(`UPDATE feeds SET title = @title, site_url = COALESCE(@siteUrl, site_url), tags = @tags,
    cron = @cron, enabled = @enabled, subscribed = 1,
    next_poll_at = CASE WHEN cron IS NOT @cron OR enabled <> @enabled OR subscribed = 0 THEN NULL ELSE next_poll_at END,
    updated_at = @stamp WHERE id = @id`);
  const unsubscribe = db.prepare('UPDATE feeds SET subscribed = 0, enabled = 0, updated_at = ? WHERE id = ?');
  db.transaction(() => {
    const listed = new Set<string>();
    for (const subscription of subscriptions) {
      listed.add(subscription.url);
      const values = {
        url: subscription.url,
        title: subscription.title ?? null,
        siteUrl: subscription.siteUrl ?? null,
        tags: JSON.stringify(subscription.tags),
        cron: subscription.schedule ?? null,
        enabled: subscription.enabled ? 1 : 0,
        stamp,
      };
      const row = existing.get(subscription.url);
      if (!row) {
        insert.run(values);
        report.added.push(subscription.url);
      } else if (row.title !== values.title || row.tags !== values.tags || row.cron !== values.cron || row.enabled !== values.enabled || row.subscribed !== 1 || (values.siteUrl !== null && row.site_url !== values.siteUrl)) {
        update.run({ ...values, id: row.id });
        report.updated.push(subscription.url);
      }
    }
    for (const row of existing.values()) {
      if (row.subscribed === 1 && !listed.has(row.subscribed_url)) {
        unsubscribe.run(stamp, row.id);
        report.removed.push(row.subscribed_url);
      }
    }
  })();
  return report;
}

export function listFeeds(db: Db, options: { includeUnsubscribed?: boolean } = {}): FeedRow[] {
  const where = options.includeUnsubscribed ? '' : 'WHERE subscribed = 1';
  return db.prepare(`SELECT * FROM feeds ${where} ORDER BY id`).all() as FeedRow[];
}

export function feedById(db: Db, id: number): FeedRow | undefined {
  return db.prepare('SELECT * FROM feeds WHERE id = ?').get(id) as FeedRow | undefined;
}

export function countEnabledFeeds(db: Db): number {
  return db.prepare('SELECT COUNT(*) FROM feeds WHERE enabled = 1 AND subscribed = 1').pluck().get() as number;
}

/** Per-feed counts for status, each table read once (grouped), never a query per feed. */
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
}

export function feedCounts(db: Db): Map<number, FeedCounts> {
  const counts = new Map<number, FeedCounts>();
  const of = (feedId: number) => {
    let entry = counts.get(feedId);
    if (!entry) {
      entry = { items: 0, pages: 0, failedPages: 0, pendingPages: 0, lastPageError: null, articles: 0, versions: 0, checks: 0, nextRevisit: null };
      counts.set(feedId, entry);
    }
    return entry;
  };
  const items = db.prepare(`SELECT feed_id AS feedId, COUNT(*) AS items, SUM(page_state = 'captured') AS pages, SUM(page_state = 'failed') AS failedPages,
      SUM(page_state = 'pending') AS pendingPages FROM items GROUP BY feed_id`).all() as Array<{ feedId: number; items: number; pages: number; failedPages: number; pendingPages: number }>;
  for (const row of items) Object.assign(of(row.feedId), { items: row.items, pages: row.pages, failedPages: row.failedPages, pendingPages: row.pendingPages });
  const errors = db.prepare(`SELECT feed_id AS feedId, page_error AS error, MAX(page_due_at) FROM items WHERE page_error IS NOT NULL GROUP BY feed_id`)
    .all() as Array<{ feedId: number; error: string }>;
  for (const row of errors) of(row.feedId).lastPageError = row.error;
  const articles = db.prepare(`SELECT feed_id AS feedId, COUNT(*) AS articles, COALESCE(SUM(versions), 0) AS versions, MIN(next_check_at) AS nextRevisit
    FROM articles GROUP BY feed_id`).all() as Array<{ feedId: number; articles: number; versions: number; nextRevisit: string | null }>;
  for (const row of articles) Object.assign(of(row.feedId), { articles: row.articles, versions: row.versions, nextRevisit: row.nextRevisit });
  const checks = db.prepare('SELECT articles.feed_id AS feedId, COUNT(*) AS checks FROM checks JOIN articles ON articles.id = checks.article_id GROUP BY articles.feed_id')
    .all() as Array<{ feedId: number; checks: number }>;
  for (const row of checks) of(row.feedId).checks = row.checks;
  return counts;
}
