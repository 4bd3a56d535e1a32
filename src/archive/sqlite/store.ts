import { existsSync, statSync } from 'node:fs';
import { loadCodec } from '../codec.js';
import { recentChanges } from './access.js';
import { captureContent, capturesOfUrl, wrappersOfFeed } from '../rules/access.js';
import { dropUnusedRequisites, requisiteAt, requisiteDigestProblems, requisitesOf } from '../rules/requisites.js';
import { picturesOfVersion } from '../rules/pictures.js';
import { addPages, pageProgressOf } from '../rules/pages.js';
import { articlesAfter, listArticles, pageOfArticles } from './article-lists.js';
import { articleById, checksOf, sameArticleElsewhere, versionOf, versionsOf } from '../rules/articles.js';
import { checkpoint, heldOpenElsewhere, limitSize, openDatabase, type Db } from './database.js';
import { archiveEvents, articleOf, changeOf, checkOf, feedGapSchema, feedOf, feedStatusOf, pageWithCursor, versionOfRow } from '../domain-rows.js';
import * as copy from './copy-rows.js';
import { feedCounts, listFeeds, pollFeedsNow } from './feeds.js';
import { syncSubscriptions } from '../rules/feeds.js';
import { backupArchive, checkArchive } from './integrity.js';
import { leaseHolder } from './lease.js';
import { dueNotifications, eventsAfterCursor, moveCursor, notificationSummary, queueDelivery, recordDelivery } from './notifications.js';
import { backlog } from './queues.js';
import { applyRetention, vacuum } from './retention.js';
import { pollDays, recentPolls } from './polls.js';
import { search } from './search.js';
import { json, storedHeaders } from '../rows.js';
import { SqliteWork } from './work.js';
import { confirmPush, denyPush, recordPush, subscriptionByCallback, subscriptionsByFeed } from './websub.js';
import type { ArticleFilter, FeedStatus, Store } from '../store.js';
import { activeWrappers, articleVersionCounts, checkCounts, countArticles, exampleCaptures, storedBodyBytes, versionsByMethod } from './summary.js';

/**
 * The Store on SQLite (better-sqlite3, synchronous: each method does its work before it
 * returns its promise). Rows become domain types here; the JSON a row holds (a version's object,
 * its diff and change kinds, a feed's tags) is validated as it is read, so a damaged row is an
 * error naming the row rather than a wrong value somewhere later.
 */

export class SqliteStore extends SqliteWork implements Store {
  constructor(db: Db, private readonly path: string) {
    super(db);
  }

  async syncSubscriptions(...args: Parameters<Store['syncSubscriptions']>) {
    const [subscriptions, how] = args;
    return this.writeSteps(syncSubscriptions(subscriptions, new Date(), how));
  }

  async feeds() {
    return listFeeds(this.db).map(feedOf);
  }

  /** Each table is read once (grouped counts), never a query per feed. */
  async feedStatuses(): Promise<FeedStatus[]> {
    const counts = feedCounts(this.db);
    const pushes = subscriptionsByFeed(this.db);
    return listFeeds(this.db).map((row) => feedStatusOf(row, counts.get(row.id), pushes.get(row.id)));
  }

  async queueNotifications(...[webhooks, compose, limit, now]: Parameters<Store['queueNotifications']>) {
    // Each webhook's events are composed, queued and its cursor moved in one transaction.
    let queued = 0;
    for (const webhook of webhooks) {
      this.db.transaction(() => {
        const { versions, gaps, cursor } = eventsAfterCursor(this.db, webhook, limit);
        const events = archiveEvents(versions, gaps);
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

  async addPages(urls: string[], now: Date) {
    return this.writeSteps(addPages(urls, now));
  }

  async pageProgress(itemId: number) {
    return this.read(pageProgressOf(itemId));
  }

  async leaseHolder() {
    return leaseHolder(this.db);
  }

  async daemons() {
    const holder = leaseHolder(this.db);
    return holder ? [holder] : [];
  }

  async articles(...args: Parameters<Store['articles']>) {
    return pageOfArticles(this.db, ...args);
  }

  async articlesAfter(...[filter, cursor, limit]: Parameters<Store['articlesAfter']>) {
    return pageWithCursor(articlesAfter(this.db, filter, cursor, limit + 1), limit);
  }

  async article(id: number) {
    const row = this.read(articleById(id));
    return row ? articleOf(row) : null;
  }

  async versions(articleId: number) {
    return this.read(versionsOf(articleId)).map(versionOfRow);
  }

  async version(articleId: number, n: number) {
    const row = this.read(versionOf(articleId, n));
    return row ? versionOfRow(row) : null;
  }

  async checks(articleId: number) {
    return this.read(checksOf(articleId)).map(checkOf);
  }

  async sameArticleElsewhere(articleId: number) {
    const row = this.read(articleById(articleId));
    return row ? this.read(sameArticleElsewhere(row)) : [];
  }

  async search(...args: Parameters<Store['search']>) {
    return search(this.db, ...args);
  }

  async changes(...[filter, limit]: Parameters<Store['changes']>) {
    return recentChanges(this.db, filter, limit).map(changeOf);
  }

  async requisitesOf(snapshotId: number) {
    return this.read(requisitesOf(snapshotId));
  }

  async requisiteAt(url: string, at: Date) {
    await loadCodec();
    return this.read(requisiteAt(url, at));
  }

  async versionPictures(articleId: number, n: number) {
    return this.read(picturesOfVersion(articleId, n));
  }

  async mementos(url: string) {
    return this.read(capturesOfUrl(url)).map((row) => ({ snapshotId: row.snapshotId, datetime: row.fetchedAt, status: row.status, canonicalUrl: row.canonicalUrl }));
  }

  async capture(snapshotId: number) {
    const row = this.read(captureContent(snapshotId));
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
    return this.read(wrappersOfFeed(feedId, limit)).map((row) => ({ ...row, active: row.active === 1 }));
  }

  async totals() {
    return { checks: checkCounts(this.db), versionsByMethod: versionsByMethod(this.db), articles: countArticles(this.db), backlog: backlog(this.db, new Date()) };
  }

  async examples() {
    return { storedBodyBytes: storedBodyBytes(this.db), captures: exampleCaptures(this.db), wrappers: activeWrappers(this.db) };
  }

  async versionCounts() {
    return articleVersionCounts(this.db);
  }

  async exportArticles(filter: ArticleFilter) {
    return listArticles(this.db, filter);
  }

  async copyRows(...[part, after, limit]: Parameters<Store['copyRows']>) {
    return copy.copyRows(this.db, part, after, limit);
  }

  async isEmptyArchive() {
    return copy.isEmptyArchive(this.db);
  }

  async insertCopied(...[part, rows]: Parameters<Store['insertCopied']>) {
    this.unlessFull(() => copy.insertCopied(this.db, part, rows));
  }

  async finishCopy() {
    this.unlessFull(() => copy.finishCopy(this.db));
  }

  async tableCounts() {
    return copy.tableCounts(this.db);
  }

  async verify() {
    await loadCodec();
    return [...checkArchive(this.db), { name: 'requisite bodies', problems: this.read(requisiteDigestProblems()) }];
  }

  backup(...args: Parameters<Store['backup']>) {
    return backupArchive(this.db, ...args);
  }

  async applyRetention(...args: Parameters<Store['applyRetention']>) {
    return this.unlessFull(() => ({ ...applyRetention(this.db, ...args), requisites: this.writeSteps(dropUnusedRequisites()) }));
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
