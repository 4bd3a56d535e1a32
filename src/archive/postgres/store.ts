import type { ArticleObject } from '../../extract/extract.js';
import type { Wrapper } from '../../extract/wrapper.js';
import type { NextCheck } from '../../schedule/revisit.js';
import type { EncodedBody } from '../codec.js';
import { loadCodec } from '../codec.js';
import {
  articleOf, articleToRevisitOf, captureOf, changeOf, checkOf, feedGapSchema, feedOf, feedStatusOf, feedToPollOf, learningPagesOf, pageWithCursor, versionOfRow,
} from '../domain-rows.js';
import { ExportingStore } from '../exports/export.js';
import { itemById, knownGuids } from '../rules/items.js';
import { checkedRow, count, json, storedHeaders } from '../rows.js';
import {
  FencedError, StorageFullError, type ArticleFilter, type CheckedPage, type RequisiteRecord, type PictureEdit, type ClaimRef, type HostGate, type Decide, type ExtractionRecord, type FetchedPage, type LeaseRequest, type PollRecord,
  type PushRequest, type RevisitRecord, type StoredCapture, type StoredComparisonKey, type RedoneVersion, type StoredExtraction, type Store,
} from '../store.js';
import { listArticles, pageOfArticles, articlesAfter } from './article-lists.js';
import { articleById, articleOfItem, checksOf, versionsOfItem, comparisonKeyOf, otherArticleAt, postponeCheck, recordCheck, recordRevisit, sameArticleElsewhere, versionOf, versionsOf } from '../rules/articles.js';
import { captureReferenceOf, dequeueRequisites, latestPayloadDigest, queuedRequisites, recordCapture, recordCaptureFailure, storedBlob } from '../rules/captures.js';
import { confirmWrapper, itemExtractedBefore, recentSnapshotsOfTemplate, retireWrapper, snapshotById, templateChoicesOf } from '../rules/extractions.js';
import { keptWithoutBody, recordExtraction, recordRevisitWithoutBody, storeWrapperWith } from '../rules/work.js';
import { runStepsAsync, type Steps } from '../steps.js';
import * as copy from './copy-rows.js';
import { migratePg, PgDatabase, type Sql } from './database.js';
import { countEnabledFeeds, feedById, feedCounts, listFeeds, pollFeedsNow } from './feeds.js';
import { syncSubscriptions } from '../rules/feeds.js';
import { Batched } from './batched.js';
import { claimUnits, daemonsOf, heartbeat, holdsClaim, latestDaemon, leave, registerDaemon, releaseUnits, unitKey } from './lease.js';
import { PgHostGate } from './host-gate.js';
import { applyRetention, checkArchive } from './maintenance.js';
import { dueNotifications, notificationSummary, queueWebhookEvents, recordDelivery } from './notifications.js';
import { pollDays, recentPolls, recordPoll } from './polls.js';
import { backlog, dueCaptures, duePolls, dueRevisits, extractionBacklogOver, nextWorkAt, queuedExtractions } from './queues.js';
import { search } from './search.js';
import {
  activeWrappers, articleVersionCounts, checkCounts, countArticles, exampleCaptures, recentChanges, storedBodyBytes,
  versionsByMethod,
} from './summary.js';
import { captureContent, capturesOfUrl, wrappersOfFeed } from '../rules/access.js';
import { dropUnusedRequisites, recordRequisites, requisiteAt, requisiteKindsOf, requisiteDigestProblems, requisitesOf, requisiteHistories } from '../rules/requisites.js';
import { latestPictures, picturesOfVersion, recordPictureEdit } from '../rules/pictures.js';
import { addPages, pageProgressOf } from '../rules/pages.js';
import {
  confirmPush, denyPush, forgetPush, pushCandidates, recordPush, recordPushFailure, recordPushRequest, subscriptionByCallback, subscriptionOfFeed,
  subscriptionsByFeed,
} from './websub.js';

/**
 * The Store on PostgreSQL (issue #51): the same contract as the SQLite store, over a pool. Each
 * method that writes is one transaction; where what to write depends on what is stored, the
 * daemon's rule runs inside it on rows read there, the article's row locked (FOR UPDATE) so that
 * another connection deciding for the same article waits for this one. A full disk (SQLSTATE
 * 53100) is StorageFullError, as SQLITE_FULL is.
 */

const isDiskFull = (error: unknown) => (error as { code?: unknown }).code === '53100';

export class PgStore extends ExportingStore implements Store {
  /** The daemon this store works for (acquireLease), and the fencing token of each unit it holds. */
  private me: string | null = null;
  private readonly held = new Map<string, number>();
  private claimTtlMs = 60_000;
  private hostDelayMs = 0;
  /** The daemon's host gate (acquireLease): every host's politeness kept with the other daemons, or alone. */
  private gate: PgHostGate | null = null;
  /** Ended units' claims, given back together a moment later (LeaseRequest.releaseBatchMs). */
  private releases: Batched<ClaimRef> | null = null;

  constructor(readonly db: PgDatabase, private readonly url: string) {
    super();
  }

  /**
   * Inside a write of claimed work: the claim is still this daemon's, with its token — else the
   * write is undone (FencedError). Writes of work this store did not claim are not fenced.
   */
  private async fence(sql: Sql, kind: ClaimRef['kind'], id: number): Promise<void> {
    const token = this.held.get(unitKey(kind, id));
    if (this.me === null || token === undefined) return;
    if (!(await holdsClaim(sql, this.me, kind, id, token))) {
      throw new FencedError(`${kind} ${id}: this daemon's claim expired and another daemon took the work over; what it did is dropped`);
    }
  }

  /** Runs a shared rule (steps.ts) on any pooled connection. */
  protected query<T>(steps: Steps<T>): Promise<T> {
    return runStepsAsync(this.db, steps);
  }

  /** Runs `work` as one transaction; a full disk becomes StorageFullError. */
  private async write<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    try {
      return await this.db.transaction(work);
    } catch (error) {
      if (isDiskFull(error)) throw new StorageFullError((error as Error).message);
      throw error;
    }
  }

  // Reading (ArchiveReader)

  async feeds() {
    return (await listFeeds(this.db)).map(feedOf);
  }

  async feedStatuses() {
    const [rows, counts, pushes] = [await listFeeds(this.db), await feedCounts(this.db), await subscriptionsByFeed(this.db)];
    return rows.map((row) => feedStatusOf(row, counts.get(row.id), pushes.get(row.id)));
  }

  leaseHolder() {
    return latestDaemon(this.db);
  }

  daemons() {
    return daemonsOf(this.db);
  }

  articles(...args: Parameters<Store['articles']>) {
    return pageOfArticles(this.db, ...args);
  }

  async articlesAfter(...[filter, cursor, limit]: Parameters<Store['articlesAfter']>) {
    return pageWithCursor(await articlesAfter(this.db, filter, cursor, limit + 1), limit);
  }

  async article(id: number) {
    const row = await this.query(articleById(id));
    return row ? articleOf(row) : null;
  }

  async versions(articleId: number) {
    return (await this.query(versionsOf(articleId))).map(versionOfRow);
  }

  async version(articleId: number, n: number) {
    const row = await this.query(versionOf(articleId, n));
    return row ? versionOfRow(row) : null;
  }

  async checks(articleId: number) {
    return (await this.query(checksOf(articleId))).map(checkOf);
  }

  async sameArticleElsewhere(articleId: number) {
    const row = await this.query(articleById(articleId));
    return row ? this.query(sameArticleElsewhere(row)) : [];
  }

  search(...args: Parameters<Store['search']>) {
    return search(this.db, ...args);
  }

  async changes(...[filter, limit]: Parameters<Store['changes']>) {
    return (await recentChanges(this.db, filter, limit)).map(changeOf);
  }

  requisitesOf(snapshotId: number) {
    return this.query(requisitesOf(snapshotId));
  }

  async requisiteAt(url: string, at: Date) {
    await loadCodec();
    return this.query(requisiteAt(url, at));
  }

  versionPictures(articleId: number, n: number) {
    return this.query(picturesOfVersion(articleId, n));
  }

  async mementos(url: string) {
    await loadCodec();
    return (await this.query(capturesOfUrl(url))).map((row) => ({ snapshotId: row.snapshotId, datetime: row.fetchedAt, status: row.status, canonicalUrl: row.canonicalUrl }));
  }

  async capture(snapshotId: number) {
    await loadCodec();
    const row = await this.query(captureContent(snapshotId));
    return row ? { ...row, headers: json(storedHeaders, row.headers, `capture ${snapshotId} (headers)`) } : null;
  }

  async feedHistory(feedId: number, limits: { polls: number; days: number }) {
    return {
      polls: (await recentPolls(this.db, feedId, limits.polls)).map((row) => ({
        startedAt: row.started_at, result: row.result, status: row.status, durationMs: row.duration_ms, itemsSeen: row.items_seen, newItems: row.new_items,
        changedItems: row.changed_items, error: row.error, gap: row.gap === null ? null : json(feedGapSchema, row.gap, `a poll of feed ${feedId} (gap)`),
      })),
      days: await pollDays(this.db, feedId, limits.days),
    };
  }

  async wrappers(feedId: number, limit: number) {
    return (await this.query(wrappersOfFeed(feedId, limit))).map((row) => ({ ...row, active: row.active === 1 }));
  }

  async totals() {
    return { checks: await checkCounts(this.db), versionsByMethod: await versionsByMethod(this.db), articles: await countArticles(this.db), backlog: await backlog(this.db, new Date()) };
  }

  async examples() {
    return { storedBodyBytes: await storedBodyBytes(this.db), captures: await exampleCaptures(this.db), wrappers: await activeWrappers(this.db) };
  }

  versionCounts() {
    return articleVersionCounts(this.db);
  }

  notificationSummary() {
    return notificationSummary(this.db);
  }

  exportArticles(filter: ArticleFilter) {
    return listArticles(this.db, filter);
  }

  // The subscription list (ArchiveSubscriptions)

  syncSubscriptions(...[subscriptions, how]: Parameters<Store['syncSubscriptions']>) {
    return this.write((sql) => runStepsAsync(sql, syncSubscriptions(subscriptions, new Date(), how)));
  }

  pollNow(...[feeds, now]: Parameters<Store['pollNow']>) {
    return pollFeedsNow(this.db, feeds, now);
  }

  addPages(urls: string[], now: Date) {
    return this.write((sql) => runStepsAsync(sql, addPages(urls, now)));
  }

  pageProgress(itemId: number) {
    return this.query(pageProgressOf(itemId));
  }

  // Administering (ArchiveAdmin)

  async verify() {
    await loadCodec();
    return [...await checkArchive(this.db), { name: 'requisite bodies', problems: await this.query(requisiteDigestProblems()) }];
  }

  copyRows(...[part, after, limit]: Parameters<Store['copyRows']>) {
    return copy.copyRows(this.db, part, after, limit);
  }

  isEmptyArchive() {
    return copy.isEmptyArchive(this.db);
  }

  insertCopied(...[part, rows]: Parameters<Store['insertCopied']>) {
    return copy.insertCopied(this.db, part, rows);
  }

  finishCopy() {
    return copy.finishCopy(this.db);
  }

  tableCounts() {
    return copy.tableCounts(this.db);
  }

  async backup(): Promise<{ file: string; bytes: number; ms: number }> {
    throw new Error(`forest backup copies a SQLite archive; back up a PostgreSQL archive with its own tools: pg_dump "${this.url.replace(/\?.*$/, '')}" > forest.sql (or pg_basebackup for the whole cluster)`);
  }

  async applyRetention(...[ages, now]: Parameters<Store['applyRetention']>) {
    const report = await applyRetention(this.db, ages, now);
    return { ...report, requisites: await this.write((sql) => runStepsAsync(sql, dropUnusedRequisites())) };
  }

  async compact() {
    await this.db.exec('VACUUM (ANALYZE)');
  }

  async size() {
    return checkedRow(count, (await this.db.column('SELECT pg_database_size(current_database())'))[0], 'size') ?? 0;
  }

  async close() {
    // What cannot be given back now expires by itself (no heartbeat renews it).
    await this.releases?.close();
    await this.db.close();
  }

  // Notifications and WebSub

  async queueNotifications(...[webhooks, compose, limit, now]: Parameters<Store['queueNotifications']>) {
    let queued = 0;
    for (const webhook of webhooks) queued += await this.write((sql) => queueWebhookEvents(sql, webhook, compose, limit, now));
    return queued;
  }

  dueNotifications(...[now, limit]: Parameters<Store['dueNotifications']>) {
    return dueNotifications(this.db, now, limit);
  }

  recordDelivery(...[id, outcome, now]: Parameters<Store['recordDelivery']>) {
    return recordDelivery(this.db, id, outcome, now);
  }

  pushSubscription(callback: string) {
    return subscriptionByCallback(this.db, callback);
  }

  confirmPush(...[callback, verified, now]: Parameters<Store['confirmPush']>) {
    return this.write((sql) => confirmPush(sql, callback, verified, now));
  }

  denyPush(...[callback, reason, , retryAt]: Parameters<Store['denyPush']>) {
    return this.write((sql) => denyPush(sql, callback, reason, retryAt));
  }

  recordPush(callback: string, now: Date) {
    return this.write((sql) => recordPush(sql, callback, now));
  }

  pushCandidates(now: Date, limit: number) {
    return pushCandidates(this.db, now, limit);
  }

  recordPushRequest(feedId: number, request: PushRequest) {
    return this.write((sql) => recordPushRequest(sql, feedId, request));
  }

  recordPushFailure(feedId: number, error: string, retryAt: Date) {
    return this.write((sql) => recordPushFailure(sql, feedId, error, retryAt));
  }

  forgetPush(feedId: number) {
    return this.write((sql) => forgetPush(sql, feedId));
  }

  // Working (WorkStore)

  duePolls(now: Date, limit: number) {
    return duePolls(this.db, now, limit);
  }

  dueCaptures(now: Date, limit: number) {
    return dueCaptures(this.db, now, limit);
  }

  dueRevisits(now: Date, limit: number) {
    return dueRevisits(this.db, now, limit);
  }

  nextWorkAt(kinds: { capture: boolean; revisit: boolean }) {
    return nextWorkAt(this.db, kinds);
  }

  queuedExtractions(limit: number) {
    return queuedExtractions(this.db, limit);
  }

  extractionBacklogOver(limit: number) {
    return extractionBacklogOver(this.db, limit);
  }

  backlog(now: Date) {
    return backlog(this.db, now);
  }

  async feedToPoll(id: number) {
    // Two reads at once, on two pooled connections: a poll waits for one round trip, not two.
    const [row, subscription] = await Promise.all([feedById(this.db, id), subscriptionOfFeed(this.db, id)]);
    return row ? feedToPollOf(row, subscription) : null;
  }

  knownGuids(feedId: number, guids: string[]) {
    return this.query(knownGuids(feedId, guids));
  }

  recordPoll(feed: { id: number; url: string }, poll: PollRecord) {
    return this.write(async (sql) => {
      await this.fence(sql, 'poll', feed.id);
      return recordPoll(sql, feed, poll);
    });
  }

  async itemToCapture(id: number) {
    const row = await this.query(itemById(id));
    return row ? { id: row.id, url: row.orig_link ?? row.link } : null;
  }

  captureReference(url: string) {
    return this.query(captureReferenceOf(url));
  }

  recordCapture(itemId: number, page: FetchedPage, body: EncodedBody | null, requisites = false) {
    return this.write(async (sql) => {
      await this.fence(sql, 'capture', itemId);
      return runStepsAsync(sql, recordCapture(itemId, page, body, requisites));
    });
  }

  recordCaptureFailure(itemId: number, error: string, retryAt: Date, maxAttempts: number) {
    return this.write(async (sql) => {
      await this.fence(sql, 'capture', itemId);
      await runStepsAsync(sql, recordCaptureFailure(itemId, error, retryAt, maxAttempts));
    });
  }

  async articleToRevisit(id: number) {
    const row = await this.query(articleById(id));
    const item = row ? await this.query(itemById(row.item_id)) : undefined;
    return row && item ? articleToRevisitOf(row, item) : null;
  }

  otherArticleAt(url: string, exceptId: number) {
    return this.query(otherArticleAt(url, exceptId));
  }

  latestPayloadDigest(itemId: number) {
    return this.query(latestPayloadDigest(itemId));
  }

  async versionsOfItem(itemId: number) {
    return (await this.query(versionsOfItem(itemId))).map(versionOfRow);
  }

  recordCheck(articleId: number, page: CheckedPage, result: 'unchanged' | 'failed' | 'unavailable', next: NextCheck, reason: string | null) {
    return this.write(async (sql) => {
      await this.fence(sql, 'revisit', articleId);
      await runStepsAsync(sql, recordCheck(articleId, page, result, next, reason));
    });
  }

  postponeCheck(articleId: number, at: string) {
    return this.write(async (sql) => {
      await this.fence(sql, 'revisit', articleId);
      await runStepsAsync(sql, postponeCheck(articleId, at));
    });
  }

  recordRevisit(articleId: number, page: FetchedPage, record: RevisitRecord) {
    return this.write(async (sql) => {
      await this.fence(sql, 'revisit', articleId);
      return runStepsAsync(sql, recordRevisit(articleId, page, record));
    });
  }

  async recordRevisitWithoutBody(itemId: number, page: FetchedPage, digest: string, extraction: ExtractionRecord & { template: { id: number } }, decide: Decide) {
    return keptWithoutBody(() => this.write(async (sql) => {
      const article = await runStepsAsync(sql, articleOfItem(itemId));
      if (article) await this.fence(sql, 'revisit', article.id);
      await runStepsAsync(sql, recordRevisitWithoutBody(itemId, page, digest, extraction, decide));
    }));
  }

  requisiteHistories(urls: readonly string[]) {
    return this.query(requisiteHistories(urls));
  }

  recordRequisites(snapshotId: number, requisites: RequisiteRecord[]) {
    return this.write((sql) => runStepsAsync(sql, recordRequisites(snapshotId, requisites)));
  }

  requisiteKinds(snapshotId: number) {
    return this.query(requisiteKindsOf(snapshotId));
  }

  queuedRequisites(limit: number) {
    // Outside a daemon's lease (a CLI's store) there are no claims of its own to keep apart from.
    return this.query(queuedRequisites(limit, this.me === null ? null : new Date().toISOString()));
  }

  dequeueRequisites(snapshotId: number) {
    return this.write((sql) => runStepsAsync(sql, dequeueRequisites(snapshotId)));
  }

  latestPictures(articleId: number) {
    return this.query(latestPictures(articleId));
  }

  recordPictureEdit(edit: PictureEdit) {
    return this.write((sql) => runStepsAsync(sql, recordPictureEdit(edit)));
  }

  async storedCapture(snapshotId: number) {
    const row = await this.query(snapshotById(snapshotId));
    return row ? captureOf(row) : null;
  }

  storedBody(sha256: string) {
    return this.query(storedBlob(sha256));
  }

  async comparisonKey(itemId: number): Promise<StoredComparisonKey | null> {
    const article = await this.query(articleOfItem(itemId));
    return article ? this.query(comparisonKeyOf(article)) : null;
  }

  templateChoices(feedId: number) {
    return this.query(templateChoicesOf(feedId));
  }

  itemExtractedBefore(itemId: number, snapshotId: number) {
    return this.query(itemExtractedBefore(itemId, snapshotId));
  }

  async recentCapturesOfTemplate(templateId: number, limit: number) {
    return learningPagesOf(await this.query(recentSnapshotsOfTemplate(templateId, limit)));
  }

  recordExtraction(capture: StoredCapture, extraction: ExtractionRecord, options: { rebasedKey: StoredComparisonKey | null; redone?: RedoneVersion[]; countsForTemplate: boolean }, decide: Decide): Promise<StoredExtraction> {
    return this.write(async (sql) => {
      await this.fence(sql, 'extract', capture.snapshotId);
      return runStepsAsync(sql, recordExtraction(capture, extraction, options, decide));
    });
  }

  storeWrapper(feedId: number, templateId: number, wrapper: Wrapper, reason: string, reextracted: Array<{ snapshotId: number; itemId: number; article: ArticleObject }>) {
    return this.write(async (sql) => {
      await this.fence(sql, 'learn', templateId);
      return runStepsAsync(sql, storeWrapperWith(feedId, templateId, wrapper, reason, reextracted));
    });
  }

  retireWrapper(wrapperId: number, reason: string) {
    return this.write((sql) => runStepsAsync(sql, retireWrapper(wrapperId, reason)));
  }

  confirmWrapper(wrapperId: number, samples: number, reason: string) {
    return this.write((sql) => runStepsAsync(sql, confirmWrapper(wrapperId, samples, reason)));
  }

  /** Any number of daemons share a PostgreSQL archive: each registers, and claims its work unit by unit. */
  async acquireLease(request: LeaseRequest) {
    this.me = request.me.owner;
    this.claimTtlMs = request.staleAfterMs;
    this.hostDelayMs = request.hostDelayMs ?? 0;
    const owner = request.me.owner;
    const batchMs = request.releaseBatchMs ?? 0;
    if (batchMs > 0) this.releases = new Batched(batchMs, (refs) => releaseUnits(this.db, owner, refs));
    const peerAlone = await this.write((sql) => registerDaemon(sql, request));
    this.gate = new PgHostGate(this.db, owner, this.claimTtlMs, this.hostDelayMs, peerAlone);
    return { acquired: true } as const;
  }

  /** The heartbeat; then the host gate looks whether this daemon is alone on the archive (host-gate.ts). */
  async renewLease(owner: string, now: Date, status: unknown) {
    const known = await this.write((sql) => heartbeat(sql, owner, now, status, this.claimTtlMs));
    if (known) await this.gate?.review();
    return known;
  }

  async releaseLease(owner: string) {
    // Leaving gives back every claim of the daemon at once, and leaves its hosts' rests behind.
    this.releases?.clear();
    await this.releases?.close();
    await this.gate?.leave();
    await this.write((sql) => leave(sql, owner));
    this.held.clear();
  }

  async claim(ref: ClaimRef, now: Date) {
    return (await this.claimAll([ref], now))[0]!;
  }

  async claimAll(refs: readonly ClaimRef[], now: Date) {
    const owner = this.me;
    if (owner === null) return refs.map(() => true);
    const keys = refs.map((ref) => unitKey(ref.kind, ref.id));
    // A unit ended but not yet given back is still this daemon's: the claim below renews it.
    await Promise.all(keys.map((key) => this.releases?.withdraw(key)));
    const tokens = await claimUnits(this.db, owner, refs, now, this.claimTtlMs);
    return tokens.map((token, index) => {
      if (token !== null) this.held.set(keys[index]!, token);
      return token !== null;
    });
  }

  async release(ref: ClaimRef, _now: Date) {
    if (this.me === null) return;
    const key = unitKey(ref.kind, ref.id);
    this.held.delete(key);
    if (this.releases) this.releases.add(key, ref);
    else await releaseUnits(this.db, this.me, [ref]);
  }

  hostGate(): HostGate | null {
    return this.gate;
  }

  enabledFeedCount() {
    return countEnabledFeeds(this.db);
  }

  /** PostgreSQL reports a full disk on the write itself (53100); there is no size cap of Forest's own to probe. */
  async hasRoomToWrite() {
    return true;
  }
}

/** Opens (migrating if needed) the PostgreSQL archive at `url`; a server that cannot be reached is an error that says which. */
export async function openPgStore(url: string, connections?: number): Promise<PgStore> {
  const db = new PgDatabase(url, connections === undefined ? {} : { max: connections });
  try {
    await migratePg(db);
  } catch (error) {
    await db.close();
    const where = url.replace(/\/\/[^@/]*@/, '//');
    throw new Error(`cannot open the PostgreSQL archive at ${where}: ${(error as Error).message} (check database.url, or FOREST_DATABASE_URL)`);
  }
  return new PgStore(db, url);
}
