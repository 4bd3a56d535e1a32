import { existsSync, statSync } from 'node:fs';
import { z } from 'zod';
import { captureContent, capturesOfUrl, recentChanges, wrappersOfFeed } from './access.js';
import { articleById, articlesAfter, checksOf, pageOfArticles, sameArticleElsewhere, versionOf, versionsOf, type ArticleRow, type CheckRow, type VersionRow } from './articles.js';
import { checkpoint, heldOpenElsewhere, limitSize, openDatabase, type Db } from './database.js';
import { blockSchema, normalizedObjectSchema } from './normalize.js';
import { exportJsonl, exportWarc, writeCdxj, writeJsonl, writeWarc } from './export.js';
import { feedCounts, listFeeds, pollFeedsNow, syncSubscriptions, type FeedRow } from './feeds.js';
import { backupArchive, checkArchive } from './integrity.js';
import { leaseHolder } from './lease.js';
import { dueNotifications, eventsAfterCursor, moveCursor, notificationSummary, queueDelivery, recordDelivery } from './notifications.js';
import { backlog } from './queues.js';
import { applyRetention, vacuum } from './retention.js';
import { pollDays, recentPolls } from './polls.js';
import { search } from './search.js';
import { json, storedHeaders } from './rows.js';
import { SqliteWork } from './sqlite-work.js';
import { confirmPush, denyPush, recordPush, subscriptionByCallback, subscriptionsByFeed } from './websub.js';
import type { ArchiveEvent, Article, Check, Feed, FeedStatus, Store, Version } from './store.js';
import { activeWrappers, articleVersionCounts, checkCounts, countArticles, exampleCaptures, storedBodyBytes, versionsByMethod } from './summary.js';

/**
 * The Store on SQLite (better-sqlite3, synchronous: each method does its work before it
 * returns its promise). Rows become domain types here; the JSON a row holds (a version's object,
 * its diff and change kinds, a feed's tags) is validated as it is read, so a damaged row is an
 * error naming the row rather than a wrong value somewhere later.
 */

const changeKind = z.enum(['title', 'byline', 'dates', 'body-edit', 'paragraphs-added', 'paragraphs-removed', 'media-added', 'media-removed']);
const wordPart = z.object({ op: z.enum(['equal', 'added', 'removed']), text: z.string() });
const blockChange = z.union([
  z.object({ op: z.literal('equal'), count: z.number() }),
  z.object({ op: z.enum(['added', 'removed']), block: blockSchema }),
  z.object({ op: z.literal('changed'), before: blockSchema, after: blockSchema, words: z.array(wordPart) }),
]);
const objectDiff = z.object({
  fields: z.array(z.object({ field: z.enum(['title', 'byline', 'published']), before: z.string().nullable(), after: z.string().nullable() })),
  blocks: z.array(blockChange),
  media: z.object({ added: z.array(z.string()), removed: z.array(z.string()) }),
  kinds: z.array(changeKind),
  editedShare: z.number(),
  summary: z.string(),
});

const feedOf = (row: FeedRow): Feed => ({
  id: row.id, subscribedUrl: row.subscribed_url, url: row.url, title: row.title ?? row.feed_title, feedTitle: row.feed_title, siteUrl: row.site_url,
  tags: json(z.array(z.string()), row.tags, `feed ${row.id}'s tags`), schedule: row.cron, enabled: row.enabled === 1, format: row.format,
});

const articleOf = (row: ArticleRow): Article => ({
  id: row.id, feedId: row.feed_id, url: row.url, finalUrl: row.final_url, canonicalUrl: row.canonical_url, title: row.title, versions: row.versions,
  firstCaptured: row.first_captured, lastChecked: row.last_checked, nextCheck: row.next_check_at, goneSince: row.gone_since,
});

function versionOfRow(row: VersionRow): Version {
  const where = `version ${row.n} of article ${row.article_id}`;
  return {
    n: row.n, capturedAt: row.captured_at, method: row.method, wrapperId: row.wrapper_id, reason: row.extraction_reason, hash: row.hash,
    change: json(z.array(changeKind), row.change, `${where} (change)`), summary: row.summary,
    diff: row.diff === null ? null : json(objectDiff, row.diff, `${where} (diff)`),
    title: row.title, byline: row.byline, published: row.published, text: row.text, html: row.html,
    object: json(normalizedObjectSchema, row.blocks, `${where} (object)`),
  };
}

const checkOf = (row: CheckRow): Check => ({ at: row.at, status: row.status, result: row.result, version: row.version_n, reason: row.reason });

const feedGapSchema = z.object({ since: z.string(), until: z.string(), recovered: z.number(), pages: z.number(), complete: z.boolean(), missing: z.number().nullable() });

export class SqliteStore extends SqliteWork implements Store {
  constructor(db: Db, private readonly path: string) {
    super(db);
  }

  async syncSubscriptions(...args: Parameters<Store['syncSubscriptions']>) {
    return this.unlessFull(() => syncSubscriptions(this.db, ...args));
  }

  async feeds() {
    return listFeeds(this.db).map(feedOf);
  }

  /** Each table is read once (grouped counts), never a query per feed. */
  async feedStatuses(): Promise<FeedStatus[]> {
    const counts = feedCounts(this.db);
    const pushes = subscriptionsByFeed(this.db);
    return listFeeds(this.db).map((row) => {
      const count = counts.get(row.id);
      const enabled = row.enabled === 1;
      return {
        id: row.id, url: row.subscribed_url, fetchUrl: row.url, title: row.title ?? row.feed_title, enabled,
        lastPoll: row.last_poll_at, result: row.last_result, httpStatus: row.last_status, nextPoll: enabled ? row.next_poll_at : null,
        scheduleReason: row.schedule_reason, ratePerHour: row.rate_per_hour, window: row.window_size,
        items: count?.items ?? 0, pages: count?.pages ?? 0, pendingPages: count?.pendingPages ?? 0, failedPages: count?.failedPages ?? 0,
        errors: row.error_count, consecutiveErrors: row.consecutive_errors, lastError: row.last_error, lastPageError: count?.lastPageError ?? null,
        lastGap: row.last_gap ? json(feedGapSchema, row.last_gap, `feed ${row.id}'s last gap`) : null,
        push: ((push) => push ? { hub: push.hub, topic: push.topic, state: push.state, leaseUntil: push.leaseUntil, lastPushAt: push.lastPushAt, pushes: push.pushes, lastError: push.lastError } : null)(pushes.get(row.id)),
        articles: count?.articles ?? 0, versions: count?.versions ?? 0, checks: count?.checks ?? 0, nextRevisit: count?.nextRevisit ?? null,
      };
    });
  }

  async queueNotifications(...[webhooks, compose, limit, now]: Parameters<Store['queueNotifications']>) {
    // Each webhook's events are composed, queued and its cursor moved in one transaction.
    let queued = 0;
    for (const webhook of webhooks) {
      this.db.transaction(() => {
        const { versions, gaps, cursor } = eventsAfterCursor(this.db, webhook, limit);
        const tagsOf = (tags: string, where: string) => json(z.array(z.string()), tags, `${where} (its feed's tags)`);
        const events: ArchiveEvent[] = [
          ...versions.map((row): ArchiveEvent => {
            const where = `version ${row.n} of article ${row.articleId}`;
            return {
              kind: 'version', id: row.id, articleId: row.articleId, n: row.n, title: row.title, url: row.url, feed: row.feed, feedTitle: row.feedTitle,
              tags: tagsOf(row.tags, where), capturedAt: row.capturedAt, change: json(z.array(z.string()), row.change, `${where} (change)`), summary: row.summary,
              diff: row.diff === null ? null : json(objectDiff, row.diff, `${where} (diff)`),
            };
          }),
          ...gaps.map((row): ArchiveEvent => {
            const about = { id: row.id, feed: row.feed, feedTitle: row.feedTitle, tags: tagsOf(row.tags, `poll ${row.id}`) };
            return row.gap !== null ? { kind: 'gap', ...about, gap: json(feedGapSchema, row.gap, `poll ${row.id} (gap)`) }
              : { kind: 'feed', ...about, feedId: row.feedId, state: row.feedEvent ?? 'failing', at: row.startedAt, status: row.status, error: row.error };
          }),
        ];
        for (const event of events) {
          const delivery = compose(webhook, event);
          if (delivery) {
            queueDelivery(this.db, webhook, delivery, now);
            queued++;
          }
        }
        moveCursor(this.db, webhook, cursor);
      })();
    }
    return queued;
  }

  async dueNotifications(...[now, limit]: Parameters<Store['dueNotifications']>) {
    return dueNotifications(this.db, now, limit);
  }

  async recordDelivery(...[id, outcome, now]: Parameters<Store['recordDelivery']>) {
    recordDelivery(this.db, id, outcome, now);
  }

  async notificationSummary() {
    return notificationSummary(this.db);
  }

  async pushSubscription(callback: string) {
    return subscriptionByCallback(this.db, callback);
  }

  async confirmPush(...[callback, verified, now]: Parameters<Store['confirmPush']>) {
    this.write(() => confirmPush(this.db, callback, verified, now));
  }

  async denyPush(...[callback, reason, , retryAt]: Parameters<Store['denyPush']>) {
    this.write(() => denyPush(this.db, callback, reason, retryAt));
  }

  async recordPush(callback: string, now: Date) {
    this.write(() => recordPush(this.db, callback, now));
  }

  async pollNow(...[feeds, now]: Parameters<Store['pollNow']>) {
    return pollFeedsNow(this.db, feeds, now);
  }

  async leaseHolder() {
    return leaseHolder(this.db);
  }

  async articles(...args: Parameters<Store['articles']>) {
    return pageOfArticles(this.db, ...args);
  }

  async articlesAfter(...[filter, cursor, limit]: Parameters<Store['articlesAfter']>) {
    // One more than asked: whether a next page exists, without a count.
    const rows = articlesAfter(this.db, filter, cursor, limit + 1);
    const articles = rows.slice(0, limit);
    const last = articles.at(-1);
    return { articles, next: rows.length > limit && last ? { firstCaptured: last.firstCaptured, id: last.id } : null };
  }

  async article(id: number) {
    const row = articleById(this.db, id);
    return row ? articleOf(row) : null;
  }

  async versions(articleId: number) {
    return versionsOf(this.db, articleId).map(versionOfRow);
  }

  async version(articleId: number, n: number) {
    const row = versionOf(this.db, articleId, n);
    return row ? versionOfRow(row) : null;
  }

  async checks(articleId: number) {
    return checksOf(this.db, articleId).map(checkOf);
  }

  async sameArticleElsewhere(articleId: number) {
    const row = articleById(this.db, articleId);
    return row ? sameArticleElsewhere(this.db, row).map((other) => other.id) : [];
  }

  async search(...args: Parameters<Store['search']>) {
    return search(this.db, ...args);
  }

  async changes(...[filter, limit]: Parameters<Store['changes']>) {
    return recentChanges(this.db, filter, limit).map((row) => ({
      articleId: row.articleId, version: row.n, capturedAt: row.capturedAt, title: row.title, url: row.url,
      change: json(z.array(changeKind), row.change, `version ${row.n} of article ${row.articleId} (change)`), summary: row.summary,
      diff: row.diff === null ? null : json(objectDiff, row.diff, `version ${row.n} of article ${row.articleId} (diff)`), feed: row.feed, feedTitle: row.feedTitle,
    }));
  }

  async mementos(url: string) {
    return capturesOfUrl(this.db, url).map((row) => ({ snapshotId: row.snapshotId, datetime: row.fetchedAt, status: row.status }));
  }

  async capture(snapshotId: number) {
    const row = captureContent(this.db, snapshotId);
    return row ? { ...row, headers: json(storedHeaders, row.headers, `capture ${snapshotId} (headers)`) } : null;
  }

  async feedHistory(feedId: number, limits: { polls: number; days: number }) {
    return {
      polls: recentPolls(this.db, feedId, limits.polls).map((row) => ({
        startedAt: row.started_at, result: row.result, status: row.status, durationMs: row.duration_ms, itemsSeen: row.items_seen, newItems: row.new_items,
        changedItems: row.changed_items, error: row.error, gap: row.gap === null ? null : json(feedGapSchema, row.gap, `a poll of feed ${feedId} (gap)`),
      })),
      days: pollDays(this.db, feedId, limits.days),
    };
  }

  async wrappers(feedId: number, limit: number) {
    return wrappersOfFeed(this.db, feedId, limit).map((row) => ({ ...row, active: row.active === 1 }));
  }

  async totals() {
    return {
      checks: checkCounts(this.db), versionsByMethod: versionsByMethod(this.db), articles: countArticles(this.db),
      storedBodyBytes: storedBodyBytes(this.db), examples: exampleCaptures(this.db), wrappers: activeWrappers(this.db), backlog: backlog(this.db, new Date()),
    };
  }

  async versionCounts() {
    return articleVersionCounts(this.db);
  }

  exportJsonl(...args: Parameters<Store['exportJsonl']>) {
    return exportJsonl(this.db, ...args);
  }

  exportWarc(...args: Parameters<Store['exportWarc']>) {
    return exportWarc(this.db, ...args);
  }

  writeJsonl(...args: Parameters<Store['writeJsonl']>) {
    return writeJsonl(this.db, ...args);
  }

  writeWarc(...args: Parameters<Store['writeWarc']>) {
    return writeWarc(this.db, ...args);
  }

  writeCdxj(...args: Parameters<Store['writeCdxj']>) {
    return writeCdxj(this.db, ...args);
  }

  async verify() {
    return checkArchive(this.db);
  }

  backup(...args: Parameters<Store['backup']>) {
    return backupArchive(this.db, ...args);
  }

  async applyRetention(...args: Parameters<Store['applyRetention']>) {
    return this.unlessFull(() => applyRetention(this.db, ...args));
  }

  async compact() {
    vacuum(this.db);
  }

  async size() {
    checkpoint(this.db);
    return this.path === ':memory:' ? 0 : ['', '-wal'].reduce((sum, suffix) => sum + (statSync(`${this.path}${suffix}`, { throwIfNoEntry: false })?.size ?? 0), 0);
  }

  async close() {
    if (this.db.open) this.db.close();
  }
}

/**
 * Opens the archive at `path`. Only what builds an archive (`run`, `demo`, `feeds`) creates a
 * missing one: to any other command an empty archive made on the spot would look like an
 * archive that lost everything.
 */
export function openStore(path: string, options: { create?: boolean; maxSize?: number | 'unlimited' } = {}): SqliteStore {
  if (!options.create && path !== ':memory:' && !existsSync(path)) {
    throw new Error(`no archive at ${path}: \`forest run\` creates it (\`forest demo\` makes a demo one), or point --db (or database.path) at an existing archive`);
  }
  const db = openDatabase(path);
  if (options.maxSize !== undefined && options.maxSize !== 'unlimited') limitSize(db, options.maxSize);
  return new SqliteStore(db, path);
}

/** Whether another process holds the archive file open (database.ts, heldOpenElsewhere). */
export const archiveFileInUse = (path: string): boolean => heldOpenElsewhere(path);
