import type { ArticleObject } from '../extract/extract.js';
import type { Wrapper } from '../extract/wrapper.js';
import type { NextCheck } from '../schedule/revisit.js';
import type { EncodedBody, ReferenceBody, StoredBody } from './codec.js';
import type { CopyPart } from './copy-plan.js';
import type { ArchiveCheck, ArchiveEvent, ArchiveExamples, ArchiveTotals, Article, ArticleCursor, ArticleFilter, ArticleSummary, ArticleToRevisit, Backlog, Capture, Change, Check, CheckedPage, ClaimRef, Decide, DeliveryOutcome, ExportReport, ExportSink, ExtractedFields, ExtractionRecord, Feed, FeedStatus, FeedToPoll, FetchedPage, HostGate, ItemToCapture, LeaseHolder, LeaseRequest, LeaseResult, ListSync, Memento, NotificationSummary, NotifyEvent, PollDay, PollEntry, PollRecord, Progress, PushCandidate, PushRequest, PushSubscriptionRecord, QueuedNotification, RetentionReport, RevisitRecord, SearchHit, SearchOptions, StoredCapture, RedoneVersion, StoredComparisonKey, StoredExtraction, Subscription, SyncReport, TemplateChoice, UpsertReport, Version, WarcOptions, WorkRef, WrapperInfo, RequisiteContent, RequisiteRecord, RequisiteHistory, StoredRequisite, LatestPictures, PictureEdit, VersionPicture, PageRequest, PageProgress, RequisiteSetting } from './model.js';

/**
 * The archive as the rest of Forest sees it: the daemon, the CLI and the web server reach
 * storage only through this interface, with the domain types of model.ts — no SQL and no database rows outside
 * src/archive. Every method is async, so that a second backend (PostgreSQL, for a deployment
 * that outgrows one machine) can implement it without touching its callers; the SQLite backend
 * (sqlite/store.ts, sqlite/work.ts) answers at once.
 *
 * Each method that writes is one transaction. Where what to write depends on what is stored (a
 * capture's meaning for its article), the caller passes the rule as a pure function, and the
 * store runs it inside the transaction on what it read there: the rule stays with its siblings
 * in src/daemon, and a kill leaves all of it or none.
 */

// The model's records, for the roles' callers.
export * from './model.js';

/** The WebSub callback's side (`forest serve`): verification of intent and pushes (web/websub.ts). */
export interface ArchivePush {
  pushSubscription(callback: string): Promise<PushSubscriptionRecord | null>;
  /** The hub verified a subscription (it is active until `leaseUntil`, renewed at `renewAt`) or an unsubscription (the row goes). */
  confirmPush(callback: string, verified: { mode: 'subscribe'; leaseUntil: Date; renewAt: Date } | { mode: 'unsubscribe' }, now: Date): Promise<void>;
  /** The hub refused the subscription (hub.mode=denied). */
  denyPush(callback: string, reason: string, now: Date, retryAt: Date): Promise<void>;
  /** A verified push: counted, and its feed due now. */
  recordPush(callback: string, now: Date): Promise<void>;
}

/** The daemon's WebSub pass (daemon/websub.ts). */
export interface PushWork {
  /** Feeds with a hub, or with a subscription, whose subscription may need a request now. */
  pushCandidates(now: Date, limit: number): Promise<PushCandidate[]>;
  recordPushRequest(feedId: number, request: PushRequest): Promise<void>;
  /** A request the hub did not accept: tried again at `retryAt`. */
  recordPushFailure(feedId: number, error: string, retryAt: Date): Promise<void>;
  /** A subscription given up on: its row goes. */
  forgetPush(feedId: number): Promise<void>;
}

/** What reading the archive needs: the CLI's read commands and the web app. */
export interface ArchiveReader {
  feeds(): Promise<Feed[]>;
  feedStatuses(): Promise<FeedStatus[]>;
  /** The daemon's lease on this archive, if one was taken (on PostgreSQL: the daemon heard from last). */
  leaseHolder(): Promise<LeaseHolder | null>;
  /** Every daemon working on this archive (SQLite: the lease's holder; PostgreSQL: each registered daemon), longest running first. */
  daemons(): Promise<LeaseHolder[]>;

  /** A page of articles, newest first, and how many the filter selects. */
  articles(filter: ArticleFilter, page: { limit: number; offset: number }): Promise<{ articles: ArticleSummary[]; total: number }>;
  /** The articles after `cursor` (newest first), at most `limit`, and the cursor of the next page (null at the end). */
  articlesAfter(filter: ArticleFilter, cursor: ArticleCursor | null, limit: number): Promise<{ articles: ArticleSummary[]; next: ArticleCursor | null }>;
  article(id: number): Promise<Article | null>;
  versions(articleId: number): Promise<Version[]>;
  version(articleId: number, n: number): Promise<Version | null>;
  checks(articleId: number): Promise<Check[]>;
  /** Other articles with the same canonical URL (the same story in another feed). */
  sameArticleElsewhere(articleId: number): Promise<number[]>;
  search(query: string, options: SearchOptions): Promise<SearchHit[]>;
  /** Edits found by revisits, newest first, of one feed or of the feeds with a tag. */
  changes(filter: { feed?: string | undefined; tag?: string | undefined }, limit: number): Promise<Change[]>;
  /** The replayable captures of the articles whose item link, final URL or canonical URL is `url`, oldest first. */
  mementos(url: string): Promise<Memento[]>;
  capture(snapshotId: number): Promise<Capture | null>;
  /** A capture's requisites, as fetched with it (issue #67). */
  requisitesOf(snapshotId: number): Promise<StoredRequisite[]>;
  /** The kept bytes of a requisite URL fetched nearest to `at` (replay: each requisite at the capture nearest in time). */
  requisiteAt(url: string, at: Date): Promise<RequisiteContent | null>;
  /** The pictures a version keeps: the images its object names that its capture kept (issue #67). */
  versionPictures(articleId: number, n: number): Promise<VersionPicture[]>;
  /** A feed's polls over time: the latest `polls`, newest first, and its last `days` days of polling. */
  feedHistory(feedId: number, limits: { polls: number; days: number }): Promise<{ polls: PollEntry[]; days: PollDay[] }>;
  /** A feed's wrappers, the active ones first. */
  wrappers(feedId: number, limit: number): Promise<WrapperInfo[]>;
  totals(): Promise<ArchiveTotals>;
  /** The demo's look at its small archive (reads every capture: not for an archive of any size). */
  examples(): Promise<ArchiveExamples>;
  /** Each article's URL and version count (to compare with what a test web really changed). */
  versionCounts(): Promise<Array<{ id: number; url: string; versions: number }>>;
  /** The webhooks' delivery log. */
  notificationSummary(): Promise<NotificationSummary[]>;

  exportJsonl(filter: ArticleFilter, path: string, progress?: Progress): Promise<ExportReport>;
  exportWarc(filter: ArticleFilter, path: string, options: WarcOptions): Promise<ExportReport>;
  /** The same exports to a stream (forest serve); `filename` names the WARC in its warcinfo and in the CDXJ index. */
  writeJsonl(filter: ArticleFilter, sink: ExportSink): Promise<ExportReport>;
  writeWarc(filter: ArticleFilter, sink: ExportSink, filename: string, options: WarcOptions): Promise<ExportReport>;
  writeCdxj(filter: ArticleFilter, sink: ExportSink, filename: string, options: Omit<WarcOptions, 'onCapture' | 'progress'>): Promise<{ captures: number; bytes: number }>;
  close(): Promise<void>;
}

/** The subscription list's one write: `forest feeds`, the web app's forms and API, the daemon's sync. */
export interface ArchiveSubscriptions {
  /** Makes the subscriptions match the list (feeds gone from it are kept, marked unsubscribed). */
  syncSubscriptions(subscriptions: Subscription[], how?: ListSync): Promise<SyncReport>;
  /**
   * Makes enabled feeds due now, whatever their schedule or back-off: those with these URLs (as
   * subscribed or as fetched), or those whose last poll failed with an error starting so. Returns
   * the URLs (as subscribed) of the feeds it made due.
   */
  pollNow(feeds: { urls: string[] } | { lastErrorStartsWith: string }, now: Date): Promise<string[]>;
  /** Pages to archive by hand (rules/pages.ts): queued for capture, or revisited now when archived already. */
  addPages(urls: string[], now: Date): Promise<PageRequest[]>;
  /** Where a page archived by hand stands (null: no such item). */
  pageProgress(itemId: number): Promise<PageProgress | null>;
}

/** Looking after the archive as a whole: `forest check`, `backup`, `vacuum`, and the daemon's retention. */
export interface ArchiveAdmin {
  verify(): Promise<ArchiveCheck[]>;
  backup(file: string, options: { overwrite: boolean }): Promise<{ file: string; bytes: number; ms: number }>;
  applyRetention(ages: { polls: number | null; checks: number | null }, now: Date): Promise<RetentionReport>;
  /** Rewrites the file to give free space back (holds the write lock while it runs). */
  compact(): Promise<void>;
  /** Bytes the archive takes on disk. */
  size(): Promise<number>;
  /** `forest copy`: a page of a part's rows (every column but derived ones), in key order after the key `after` of the last row read. */
  copyRows(part: CopyPart, after: unknown[] | null, limit: number): Promise<Array<Record<string, unknown>>>;
  /** Whether the archive holds no feed, item or article (a copy's target must hold none). */
  isEmptyArchive(): Promise<boolean>;
  /** Rows read by copyRows from another archive, inserted as they are, in one transaction. */
  insertCopied(part: CopyPart, rows: Array<Record<string, unknown>>): Promise<void>;
  /** After the last part: what each backend derives from the rows (SQLite's search index, PostgreSQL's id sequences). */
  finishCopy(): Promise<void>;
  /** Rows per table of the copy plan: what a copy's two sides are compared by. */
  tableCounts(): Promise<Record<string, number>>;
}

/** The outbox of webhook deliveries (archive/notifications.ts). */
export interface ArchiveNotifications {
  /**
   * For each webhook, the archive's events after its cursor (at most `limit`), each made a
   * delivery by `compose` (null: not one for this webhook), queued, and the cursor moved past
   * them — in one transaction. A webhook seen for the first time starts after the newest event.
   */
  queueNotifications(webhooks: string[], compose: (webhook: string, event: ArchiveEvent) => { event: NotifyEvent; payload: string } | null, limit: number, now: Date): Promise<number>;
  /** Deliveries due now (first tries and retries), oldest first. */
  dueNotifications(now: Date, limit: number): Promise<QueuedNotification[]>;
  recordDelivery(id: number, outcome: DeliveryOutcome, now: Date): Promise<void>;
}

/** What the web server holds: reads, and the subscription list its forms and API edit — never the daemon's work. */
export type WebArchive = ArchiveReader & ArchiveSubscriptions & ArchivePush;

/** The whole contract, as a backend implements it and the daemon uses it. */
export interface Store extends ArchiveReader, ArchiveSubscriptions, ArchiveAdmin, WorkStore, ArchiveNotifications, ArchivePush, PushWork {}

/** The daemon's work: due work, captures, extractions, versions, wrappers, and its lease. */
export interface WorkStore {
  /** Requisite URLs' last fetch and last kept fetch, by URL (none for a URL never fetched): whether to ask again, and the validators of a conditional GET. */
  requisiteHistories(urls: readonly string[]): Promise<Map<string, RequisiteHistory>>;
  /** A capture's requisites, recorded together in one transaction (their bytes once per sha256); the capture leaves the requisite queue. */
  recordRequisites(snapshotId: number, requisites: RequisiteRecord[]): Promise<void>;
  /** The oldest captures still waiting for their requisites (queued with them: recordCapture, recordRevisit), less those another daemon holds. */
  queuedRequisites(limit: number): Promise<number[]>;
  /** A capture leaves the requisite queue with nothing recorded (its page names none it wants, or fetching them failed). */
  dequeueRequisites(snapshotId: number): Promise<void>;
  /** The requisite kinds a capture's feed chose for its pages (the list's `requisites`), or null when it follows the settings. */
  requisiteKinds(snapshotId: number): Promise<RequisiteSetting[] | null>;
  /** The pictures of an article's latest version, for a revisit to compare (null: none kept). */
  latestPictures(articleId: number): Promise<LatestPictures | null>;
  /** A version made of changed pictures alone (rules/pictures.ts); its number, or null when another version came first. */
  recordPictureEdit(edit: PictureEdit): Promise<number | null>;
  /** Due work, in the order it is taken (each an index walk bounded by `limit`: archive/sqlite/queues.ts). */
  duePolls(now: Date, limit: number): Promise<WorkRef[]>;
  dueCaptures(now: Date, limit: number): Promise<WorkRef[]>;
  dueRevisits(now: Date, limit: number): Promise<WorkRef[]>;
  /** The earliest time any queued work falls due (ms), or null. */
  nextWorkAt(kinds: { capture: boolean; revisit: boolean }): Promise<number | null>;
  /** Captures waiting for extraction, first captures before revisits, newest first. */
  queuedExtractions(limit: number): Promise<Array<{ snapshotId: number; feedId: number }>>;
  /** Whether more than `count` captures wait for extraction. */
  extractionBacklogOver(count: number): Promise<boolean>;
  backlog(now: Date): Promise<Backlog>;

  feedToPoll(id: number): Promise<FeedToPoll | null>;
  /** Which of `guids` the feed already has. */
  knownGuids(feedId: number, guids: string[]): Promise<Set<string>>;
  /** Everything one poll changes (the poll, the items, the feed's validators and schedule), at once. */
  recordPoll(feed: { id: number; url: string }, poll: PollRecord): Promise<UpsertReport>;

  itemToCapture(id: number): Promise<ItemToCapture | null>;
  /** The capture a new one from the same site is compressed against (codec.ts), or null. */
  captureReference(url: string): Promise<ReferenceBody | null>;
  /** An item's first capture, queued for extraction when it has a body, and with `requisites` for its requisites. */
  recordCapture(itemId: number, page: FetchedPage, body: EncodedBody | null, requisites?: boolean): Promise<number>;
  /** A failed capture attempt: retried at `retryAt`, or given up after `maxAttempts`. */
  recordCaptureFailure(itemId: number, error: string, retryAt: Date, maxAttempts: number): Promise<void>;

  articleToRevisit(id: number): Promise<ArticleToRevisit | null>;
  /** Another archived article whose page is at `url` (a revisit redirected there). */
  otherArticleAt(url: string, exceptId: number): Promise<{ id: number; title: string | null } | null>;
  /** The payload digest of the latest capture of an item's page. */
  latestPayloadDigest(itemId: number): Promise<string | null>;
  /** A look at an article's page that kept no capture: not modified, failed. */
  recordCheck(articleId: number, page: CheckedPage, result: 'unchanged' | 'failed' | 'unavailable', next: NextCheck, reason: string | null): Promise<void>;
  /** A check not made (its host is not answering, daemon/host-trouble.ts): the article is looked at `at` instead, nothing recorded. */
  postponeCheck(articleId: number, at: string): Promise<void>;
  /** A revisit's capture, kept (RevisitRecord); returns its snapshot. */
  recordRevisit(articleId: number, page: FetchedPage, record: RevisitRecord): Promise<number>;
  /**
   * A revisit whose article object the pool found unchanged: its capture keeps the payload's
   * digest, not its bytes, with the extraction and the check. Records nothing and returns false
   * when `decide` calls it anything but unchanged (then the capture is stored whole).
   */
  recordRevisitWithoutBody(itemId: number, page: FetchedPage, digest: string, extraction: ExtractionRecord & { template: { id: number } }, decide: Decide): Promise<boolean>;

  storedCapture(snapshotId: number): Promise<StoredCapture | null>;
  storedBody(sha256: string): Promise<StoredBody | null>;
  /** The comparison key of an item's article, or null (no article, or no key). */
  comparisonKey(itemId: number): Promise<StoredComparisonKey | null>;
  /** The versions of an item's article, oldest first (a change of extraction method re-extracts them). */
  versionsOfItem(itemId: number): Promise<Version[]>;
  templateChoices(feedId: number): Promise<TemplateChoice[]>;
  /** Whether the item has an extraction other than this capture's (this is a revisit). */
  itemExtractedBefore(itemId: number, snapshotId: number): Promise<boolean>;
  /** The latest capture of each of a template's most recent pages (newest first), with what was last extracted from it. */
  recentCapturesOfTemplate(templateId: number, limit: number): Promise<Array<StoredCapture & { sha256: string; extracted: ExtractedFields }>>;
  /**
   * A capture's extraction and what it means for its article (`decide`), at once: a new template
   * when the page showed one, the key rebased onto how this page was extracted, the template's
   * page count when `countsForTemplate`, and — when the article did not change — the capture's
   * body dropped (its digest and headers stay).
   */
  recordExtraction(capture: StoredCapture, extraction: ExtractionRecord, options: { rebasedKey: StoredComparisonKey | null; redone?: RedoneVersion[]; countsForTemplate: boolean }, decide: Decide): Promise<StoredExtraction>;
  /** A new wrapper, the template's active one from now on, with the recent pages it extracts differently. */
  storeWrapper(feedId: number, templateId: number, wrapper: Wrapper, reason: string, reextracted: Array<{ snapshotId: number; itemId: number; article: ArticleObject }>): Promise<number>;
  /** A re-learning that found the active wrapper again: it stays, and says so. */
  confirmWrapper(wrapperId: number, samples: number, reason: string): Promise<void>;
  /** Retires a template's active wrapper: its pages go back to single-page extraction (rules/extractions.ts). */
  retireWrapper(wrapperId: number, reason: string): Promise<void>;

  /**
   * The daemon joins the archive's work. SQLite: its exclusive lease, taken, or the live holder
   * that has it. PostgreSQL: any number of daemons, each registered (always acquired); they
   * share the work through claims.
   */
  acquireLease(request: LeaseRequest): Promise<LeaseResult>;
  /** Renews the heartbeat (and the status report), and extends the daemon's claims; false if the lease was taken over. */
  renewLease(owner: string, now: Date, status: unknown): Promise<boolean>;
  /** Leaves the archive: the lease, or the registration with every claim and host the daemon held. */
  releaseLease(owner: string): Promise<void>;
  /**
   * Claims a unit of work for this daemon before it starts (`acquireLease` named the daemon):
   * false when another daemon holds it, or when it is no longer due (another daemon did it).
   * SQLite's single daemon always gets it. A write of claimed work checks the claim in its
   * transaction, and fails with FencedError once another daemon took it over.
   */
  claim(ref: ClaimRef, now: Date): Promise<boolean>;
  /** `claim` of several units at once (what a pass starts): whether each was granted, in order. */
  claimAll(refs: readonly ClaimRef[], now: Date): Promise<boolean[]>;
  /** The unit ended (done or not): its claim is let go. */
  release(ref: ClaimRef, now: Date): Promise<void>;
  /**
   * Hosts' politeness shared with the other daemons on the archive (each request takes its host
   * in the database, one daemon's request at a time, perHostDelay apart), or null when this
   * daemon is the only one (SQLite: its fetcher's own queue is enough).
   */
  hostGate(): HostGate | null;
  enabledFeedCount(): Promise<number>;
  /** Whether a capture's worth can be written now (while storage is full, to resume as soon as it is not). */
  hasRoomToWrite(): Promise<boolean>;
}
