import Database from 'better-sqlite3';
import type { ArticleObject } from '../../extract/extract.js';
import type { Wrapper } from '../../extract/wrapper.js';
import type { NextCheck } from '../../schedule/revisit.js';
import { captureReferenceOf, dequeueRequisites, latestPayloadDigest, queuedRequisites, recordCapture, recordCaptureFailure, storedBlob } from '../rules/captures.js';
import type { EncodedBody } from '../codec.js';
import { hasRoomToWrite, type Db } from './database.js';
import { articleToRevisitOf, captureOf, feedToPollOf, learningPagesOf, versionOfRow } from '../domain-rows.js';
import { articleById, articleOfItem, versionsOfItem, comparisonKeyOf, otherArticleAt, postponeCheck, recordCheck, recordRevisit } from '../rules/articles.js';
import { confirmWrapper, itemExtractedBefore, recentSnapshotsOfTemplate, retireWrapper, snapshotById, templateChoicesOf } from '../rules/extractions.js';
import { keptWithoutBody, recordExtraction, recordRevisitWithoutBody, storeWrapperWith } from '../rules/work.js';
import { runOn } from './sql.js';
import { recordRequisites, requisiteHistories, requisiteKindsOf } from '../rules/requisites.js';
import { latestPictures, recordPictureEdit } from '../rules/pictures.js';
import { ExportingStore } from '../exports/export.js';
import type { Steps } from '../steps.js';
import { countEnabledFeeds, feedById } from './feeds.js';
import { itemById, knownGuids } from '../rules/items.js';
import { acquireLease, releaseLease, renewLease } from './lease.js';
import { recordPoll } from './polls.js';
import { forgetPush, pushCandidates, recordPushFailure, recordPushRequest, subscriptionOfFeed } from './websub.js';
import { backlog, duePolls, dueCaptures, dueRevisits, extractionBacklogOver, nextWorkAt, queuedExtractions } from './queues.js';
import {
  StorageFullError, type CheckedPage, type RequisiteRecord, type PictureEdit, type ClaimRef, type Decide, type FetchedPage, type LeaseRequest, type PollRecord, type PushRequest, type ExtractionRecord, type RevisitRecord, type StoredCapture, type StoredComparisonKey, type RedoneVersion,
  type StoredExtraction, type WorkStore,
} from '../store.js';

/**
 * The daemon's side of the SQLite store (WorkStore): its queues, captures, extractions and
 * versions. Each method that writes is one transaction (better-sqlite3 runs it to the end before
 * the method's promise resolves, so no other work interleaves with it), and a write that finds
 * no room raises StorageFullError — the daemon stops taking work until there is room again.
 */

export abstract class SqliteWork extends ExportingStore implements WorkStore {
  constructor(readonly db: Db) {
    super();
  }

  /** Runs `work` as one transaction (see `unlessFull`). */
  protected write<T>(work: () => T): T {
    return this.unlessFull(this.db.transaction(work));
  }

  /** Runs a shared rule (steps.ts) as one transaction. */
  protected writeSteps<T>(steps: Steps<T>): T {
    return this.write(() => runOn(this.db, steps));
  }

  /** Runs a shared rule that only reads. */
  protected read<T>(steps: Steps<T>): T {
    return runOn(this.db, steps);
  }

  protected async query<T>(steps: Steps<T>): Promise<T> {
    return runOn(this.db, steps);
  }

  /** Runs `work`, which writes: SQLite's "full" becomes StorageFullError. */
  protected unlessFull<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      if (error instanceof Database.SqliteError && error.code === 'SQLITE_FULL') throw new StorageFullError(error.message);
      throw error;
    }
  }

  async duePolls(now: Date, limit: number) {
    return duePolls(this.db, now, limit);
  }

  async dueCaptures(now: Date, limit: number) {
    return dueCaptures(this.db, now, limit);
  }

  async dueRevisits(now: Date, limit: number) {
    return dueRevisits(this.db, now, limit);
  }

  async nextWorkAt(kinds: { capture: boolean; revisit: boolean }) {
    return nextWorkAt(this.db, kinds);
  }

  async queuedExtractions(limit: number) {
    return queuedExtractions(this.db, limit);
  }

  async extractionBacklogOver(count: number) {
    return extractionBacklogOver(this.db, count);
  }

  async backlog(now: Date) {
    return backlog(this.db, now);
  }

  async feedToPoll(id: number) {
    const row = feedById(this.db, id);
    if (!row) return null;
    return feedToPollOf(row, subscriptionOfFeed(this.db, id));
  }

  async knownGuids(feedId: number, guids: string[]) {
    return this.read(knownGuids(feedId, guids));
  }

  async recordPoll(feed: { id: number; url: string }, poll: PollRecord) {
    return this.write(() => recordPoll(this.db, feed, poll));
  }

  async itemToCapture(id: number) {
    const row = this.read(itemById(id));
    return row ? { id: row.id, url: row.orig_link ?? row.link } : null;
  }

  async captureReference(url: string) {
    return this.read(captureReferenceOf(url));
  }

  async recordCapture(itemId: number, page: FetchedPage, body: EncodedBody | null, requisites = false) {
    return this.writeSteps(recordCapture(itemId, page, body, requisites));
  }

  async recordCaptureFailure(itemId: number, error: string, retryAt: Date, maxAttempts: number) {
    this.writeSteps(recordCaptureFailure(itemId, error, retryAt, maxAttempts));
  }

  async articleToRevisit(id: number) {
    const row = this.read(articleById(id));
    const item = row ? this.read(itemById(row.item_id)) : undefined;
    if (!row || !item) return null;
    return articleToRevisitOf(row, item);
  }

  async otherArticleAt(url: string, exceptId: number) {
    return this.read(otherArticleAt(url, exceptId));
  }

  async latestPayloadDigest(itemId: number) {
    return this.read(latestPayloadDigest(itemId));
  }

  async versionsOfItem(itemId: number) {
    return this.read(versionsOfItem(itemId)).map(versionOfRow);
  }

  async recordCheck(articleId: number, page: CheckedPage, result: 'unchanged' | 'failed' | 'unavailable', next: NextCheck, reason: string | null) {
    this.writeSteps(recordCheck(articleId, page, result, next, reason));
  }

  async postponeCheck(articleId: number, at: string) {
    this.writeSteps(postponeCheck(articleId, at));
  }

  async recordRevisit(articleId: number, page: FetchedPage, record: RevisitRecord) {
    return this.writeSteps(recordRevisit(articleId, page, record));
  }

  async recordRevisitWithoutBody(itemId: number, page: FetchedPage, digest: string, extraction: ExtractionRecord & { template: { id: number } }, decide: Decide) {
    return keptWithoutBody(() => this.writeSteps(recordRevisitWithoutBody(itemId, page, digest, extraction, decide)));
  }

  async requisiteHistories(urls: readonly string[]) {
    return this.read(requisiteHistories(urls));
  }

  async recordRequisites(snapshotId: number, requisites: RequisiteRecord[]) {
    this.writeSteps(recordRequisites(snapshotId, requisites));
  }

  async requisiteKinds(snapshotId: number) {
    return this.read(requisiteKindsOf(snapshotId));
  }

  async queuedRequisites(limit: number) {
    // One daemon on a SQLite archive (its lease): no other daemon's claims to pass over.
    return this.read(queuedRequisites(limit, null));
  }

  async dequeueRequisites(snapshotId: number) {
    this.writeSteps(dequeueRequisites(snapshotId));
  }

  async latestPictures(articleId: number) {
    return this.read(latestPictures(articleId));
  }

  async recordPictureEdit(edit: PictureEdit) {
    return this.writeSteps(recordPictureEdit(edit));
  }

  async storedCapture(snapshotId: number) {
    const row = this.read(snapshotById(snapshotId));
    return row ? captureOf(row) : null;
  }

  async storedBody(sha256: string) {
    return this.read(storedBlob(sha256));
  }

  async comparisonKey(itemId: number): Promise<StoredComparisonKey | null> {
    const article = this.read(articleOfItem(itemId));
    return article ? this.read(comparisonKeyOf(article)) : null;
  }

  async templateChoices(feedId: number) {
    return this.read(templateChoicesOf(feedId));
  }

  async itemExtractedBefore(itemId: number, snapshotId: number) {
    return this.read(itemExtractedBefore(itemId, snapshotId));
  }

  async recentCapturesOfTemplate(templateId: number, limit: number) {
    return learningPagesOf(this.read(recentSnapshotsOfTemplate(templateId, limit)));
  }

  async recordExtraction(capture: StoredCapture, extraction: ExtractionRecord, options: { rebasedKey: StoredComparisonKey | null; redone?: RedoneVersion[]; countsForTemplate: boolean }, decide: Decide): Promise<StoredExtraction> {
    return this.writeSteps(recordExtraction(capture, extraction, options, decide));
  }

  async storeWrapper(feedId: number, templateId: number, wrapper: Wrapper, reason: string, reextracted: Array<{ snapshotId: number; itemId: number; article: ArticleObject }>) {
    return this.writeSteps(storeWrapperWith(feedId, templateId, wrapper, reason, reextracted));
  }

  async retireWrapper(wrapperId: number, reason: string) {
    this.writeSteps(retireWrapper(wrapperId, reason));
  }

  async confirmWrapper(wrapperId: number, samples: number, reason: string) {
    this.writeSteps(confirmWrapper(wrapperId, samples, reason));
  }

  async acquireLease(request: LeaseRequest) {
    return this.unlessFull(() => acquireLease(this.db, request));
  }

  async renewLease(owner: string, now: Date, status: unknown) {
    return this.write(() => renewLease(this.db, owner, now, status));
  }

  async releaseLease(owner: string) {
    this.write(() => releaseLease(this.db, owner));
  }

  /** One daemon per SQLite archive (its lease): every unit is its own, and its hosts' politeness is its fetcher's. */
  async claim(_ref: ClaimRef, _now: Date) {
    return true;
  }

  async claimAll(refs: readonly ClaimRef[], _now: Date) {
    return refs.map(() => true);
  }

  async release(_ref: ClaimRef, _now: Date) {}

  hostGate() {
    return null;
  }

  async pushCandidates(now: Date, limit: number) {
    return pushCandidates(this.db, now, limit);
  }

  async recordPushRequest(feedId: number, request: PushRequest) {
    this.write(() => recordPushRequest(this.db, feedId, request));
  }

  async recordPushFailure(feedId: number, error: string, retryAt: Date) {
    this.write(() => recordPushFailure(this.db, feedId, error, retryAt));
  }

  async forgetPush(feedId: number) {
    this.write(() => forgetPush(this.db, feedId));
  }

  async enabledFeedCount() {
    return countEnabledFeeds(this.db);
  }

  async hasRoomToWrite() {
    return hasRoomToWrite(this.db);
  }
}
