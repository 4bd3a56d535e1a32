import type { ArticleObject } from '../extract/extract.js';
import type { ParsedFeed } from '../feeds/model.js';
import type { Wrapper } from '../extract/wrapper.js';
import type { PublisherHints } from '../schedule/policy.js';
import type { NextCheck } from '../schedule/revisit.js';
import type { EncodedBody, ReferenceBody, StoredBody } from './codec.js';
import type { ChangeKind, ObjectDiff } from './diff.js';
import type { NormalizedObject } from './normalize.js';
import type { CopyPart } from './copy-plan.js';

/**
 * The archive as the rest of Forest sees it: the daemon, the CLI and the web server reach
 * storage only through this interface, with domain types — no SQL and no database rows outside
 * src/archive. Every method is async, so that a second backend (PostgreSQL, for a deployment
 * that outgrows one machine) can implement it without touching its callers; the SQLite backend
 * (sqlite-store.ts, sqlite-work.ts) answers at once.
 *
 * Each method that writes is one transaction. Where what to write depends on what is stored (a
 * capture's meaning for its article), the caller passes the rule as a pure function, and the
 * store runs it inside the transaction on what it read there: the rule stays with its siblings
 * in src/daemon, and a kill leaves all of it or none.
 */

// The contract's records of work and reports (each backend reads and writes them).

export type WorkKind = 'poll' | 'capture' | 'revisit';

/** One unit of work: a feed to poll, an item's page to capture, an article to revisit. */
export interface WorkRef {
  kind: WorkKind;
  id: number;
  url: string;
  /** When it became due (ms since the epoch); for a capture, when its item was first seen. */
  dueAt: number;
  /** A capture whose earlier attempt failed: taken after first attempts and revisits. */
  retry?: boolean;
}

/** How much work waits, for status and the overload report. */
export interface Backlog {
  duePolls: number;
  pendingCaptures: number;
  dueRevisits: number;
  queuedExtractions: number;
}

/** A fetched response as stored: everything but the body, which comes hashed and compressed. */
export interface FetchedPage {
  url: string;
  finalUrl: string;
  status: number;
  headers: Record<string, string>;
  contentType: string | null;
  redirects: Array<{ status: number; from: string; to: string }>;
  /** The new address when every redirect on the way was permanent (301/308); otherwise null. */
  permanentUrl: string | null;
  notModified: boolean;
  /** From Retry-After on 429/503. */
  retryAfterMs: number | null;
  fetchedAt: Date;
  durationMs: number;
}

export interface LeaseHolder {
  owner: string;
  pid: number;
  host: string;
  startedAt: string;
  heartbeatAt: string;
  status: string | null;
}

export interface LeaseRequest {
  me: { owner: string; pid: number; host: string };
  now: Date;
  /** A holder whose heartbeat is older than this (ms) died: its lease is taken over (on PostgreSQL: its claims, once they expire this long after their last renewal). */
  staleAfterMs: number;
  /** The pause between two requests to one host (http.perHostDelay), kept across daemons on PostgreSQL. */
  hostDelayMs?: number;
  /**
   * On PostgreSQL: how long ended units' claims wait to be given back together, in one statement
   * (0: each at once). Until then the unit is still this daemon's: done, and no longer due.
   */
  releaseBatchMs?: number;
  /** Whether the holder's process still runs (what can be told for a process on this host). */
  isAlive: (holder: LeaseHolder) => boolean;
}

/** A unit of work as it is claimed (WorkStore.claim): its kind and row. */
export interface ClaimRef {
  kind: WorkKind | 'extract' | 'learn';
  /** The feed (poll), item (capture), article (revisit), snapshot (extract) or template (learn). */
  id: number;
}

/** Politeness shared with other processes: a host is taken before each request and given back after it (net/fetcher.ts). */
export interface HostGate {
  /** Takes `host` for one request: 0 when taken, else how long (ms) to wait before asking again. */
  take(host: string): Promise<number>;
  /** The request ended: the host rests perHostDelay from now. */
  give(host: string): Promise<void>;
}

/** A write of claimed work whose claim another daemon has taken over (its own claim expired): nothing was written. */
export class FencedError extends Error {
  override name = 'FencedError';
}

export type LeaseResult = { acquired: true } | { acquired: false; holder: LeaseHolder };

/** A subscription as the list gives it. */
export interface Subscription {
  url: string;
  title?: string | null | undefined;
  siteUrl?: string | null | undefined;
  tags: string[];
  schedule?: string | null | undefined;
  enabled: boolean;
}

/**
 * How a list reaches the archive. `replace` (the default; SQLite, where the file is the list):
 * the archive matches it, feeds gone from it are unsubscribed. On a PostgreSQL archive several
 * daemons share, the database is the list and each machine's file only feeds it: `add` subscribes
 * the listed feeds the archive lacks and leaves every other feed as it is (a daemon's start, so
 * that two daemons with different files never flip a feed), and `change` applies one edit — the
 * listed feeds added or updated, `removed` unsubscribed.
 */
export type ListSync = { mode: 'replace' } | { mode: 'add' } | { mode: 'change'; removed: string[] };

export interface SyncReport {
  added: string[];
  updated: string[];
  removed: string[];
}

export interface CheckCounts {
  /** Each article's first capture (it made version 1). */
  firstCaptures: number;
  /** Every later check: unchanged, changed (it made a new version), gone (404/410), unavailable or failed. */
  revisits: number;
  unchanged: number;
  changed: number;
  gone: number;
  unavailable: number;
  failed: number;
}

/** Where an export writes, and how many bytes it has written so far. */
export interface ExportSink {
  write(data: Uint8Array | string): void | Promise<void>;
  readonly bytes: number;
}

export interface ExportReport {
  articles: number;
  versions: number;
  records: Record<string, number>;
  bytes: number;
}

export interface WarcOptions {
  gzip: boolean;
  software: string;
  progress?: Progress;
  /** Captures fetched after this ISO time are left out (the articles are filtered by `filter`). */
  capturedUntil?: string;
  /** Each capture's response or revisit record, where it lies in the output: for a CDXJ index. */
  onCapture?: (entry: WarcIndexEntry) => void;
}

/** A capture record of a WARC, as a CDXJ index line describes it. */
export interface WarcIndexEntry {
  url: string;
  /** ISO time of the capture. */
  date: string;
  status: number;
  mime: string | null;
  /** WARC-Payload-Digest, e.g. sha256:… */
  digest: string | null;
  offset: number;
  length: number;
}

export interface SearchOptions {
  feed?: string | undefined;
  /** ISO bounds on the version's capture time. */
  since?: string | undefined;
  until?: string | undefined;
  /** One hit per matching version instead of one per article. */
  allVersions?: boolean;
  limit?: number;
  /** Results to skip (the next page). */
  offset?: number;
}

export interface SearchHit {
  article: number;
  feed: string;
  url: string;
  title: string | null;
  /** The versions the query matched, and the article's latest. */
  versions: number[];
  latest: number;
  /** False when the text matched only in versions an edit has since replaced. */
  inLatest: boolean;
  capturedAt: string;
  rank: number;
  snippet: string;
}

export interface PollSchedule {
  nextPollAt: Date;
  reason: string;
  /** The scheduler's state after this poll (JSON). */
  state: string;
  ratePerHour: number | null;
  window: number | null;
  maxAgeSeconds: number | null;
}

/**
 * A poll whose document shared no item with what was seen before (issue #52): items may have
 * scrolled out between `since` (the previous poll that read the document) and `until`.
 * `recovered` items were found by following the feed's archive back over `pages` documents;
 * `complete` when that walk reached an item already known, so nothing is missing; else about
 * `missing` items (an upper estimate from the feed's rate) may be.
 */
export interface FeedGap {
  since: string;
  until: string;
  recovered: number;
  pages: number;
  complete: boolean;
  missing: number | null;
}

export interface PollRecord {
  startedAt: Date;
  durationMs: number;
  result: 'ok' | 'not-modified' | 'error';
  /** The feed document's response, and its size (decompressed). */
  fetch: (FetchedPage & { bytes: number }) | null;
  parsed: ParsedFeed | null;
  error: string | null;
  schedule: PollSchedule;
  capturePages: boolean;
  /** When the articles of items this poll found changed are checked next (null: left as scheduled). */
  revisitChangedItemsAt: Date | null;
  /** False for a failure that was Forest's own (a timeout while it was behind schedule). */
  countsAsFailure?: boolean;
  /** The gap this poll found, if it found one; its recovered items are among `parsed.items`. */
  gap?: FeedGap | null;
  /** What this poll makes of its feed for the webhooks (daemon/feed-events.ts): failing, gone, or nothing. */
  feedEvent?: 'failing' | 'gone' | null;
  /** For a feed a hub pushes: polls in a row that found items no push announced, and whether the subscription is dropped for it (daemon/websub.ts). */
  push?: { missedInRow: number; drop: boolean } | null;
}

/** Where a WebSub subscription stands (migration 0019). */
export type PushState = 'subscribing' | 'active' | 'unsubscribing' | 'denied' | 'failed' | 'dropped';

/** A feed's WebSub subscription, as status shows it. */
export interface PushSubscription {
  hub: string;
  topic: string;
  state: PushState;
  /** When the hub's lease ends, once it verified the subscription. */
  leaseUntil: string | null;
  lastPushAt: string | null;
  pushes: number;
  lastError: string | null;
}

/** A subscription with what only the daemon and the callback see: its callback id and secret. */
export interface PushSubscriptionRecord extends PushSubscription {
  feedId: number;
  callback: string;
  secret: string;
  /** Requests in a row that did not end verified. */
  attempts: number;
  retryAt: string | null;
  renewAt: string | null;
  /** Polls in a row that found items no push announced. */
  missedInRow: number;
}

/** A feed the daemon's WebSub pass may have to subscribe, renew or unsubscribe (daemon/websub.ts decides). */
export interface PushCandidate {
  feedId: number;
  feedUrl: string;
  /** The hub and topic the feed names now (null: it names none). */
  hub: string | null;
  topic: string | null;
  /** Enabled and on the list: it should be subscribed. */
  wanted: boolean;
  subscription: PushSubscriptionRecord | null;
}

/** A subscription or unsubscription request, as sent to a hub. */
export interface PushRequest {
  hub: string;
  topic: string;
  callback: string;
  secret: string;
  state: 'subscribing' | 'unsubscribing';
  at: Date;
  /** When it is tried again if the hub has not verified it by then. */
  retryAt: Date;
}

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

export interface UpsertReport {
  newItems: number;
  changedItems: number;
  /** The items whose date, title or summary changed. */
  changedIds: number[];
}

export interface RetentionReport {
  polls: number;
  checks: number;
}

/** One thing `forest check` looks at, and what it found wrong (nothing when `problems` is empty). */
export interface ArchiveCheck {
  name: string;
  problems: string[];
}

/** A subscribed feed, with what its subscription and its document say about it. */
export interface Feed {
  id: number;
  /** The URL as subscribed (the list's key). */
  subscribedUrl: string;
  /** The URL polled now (after permanent redirects). */
  url: string;
  /** The list's title, else the feed's own. */
  title: string | null;
  /** The title the feed document gives itself. */
  feedTitle: string | null;
  siteUrl: string | null;
  tags: string[];
  /** A cron expression, or null for the learned schedule. */
  schedule: string | null;
  enabled: boolean;
  format: string | null;
}

/** A feed's health and counts, for `forest status` and the dashboard. */
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
  /** The last gap a poll of the feed found (FeedGap), or null. */
  lastGap: FeedGap | null;
  /** Its WebSub subscription, when it has one. */
  push: PushSubscription | null;
  /** The object-level archive: articles, their versions, checks, and the next revisit due. */
  articles: number;
  versions: number;
  checks: number;
  nextRevisit: string | null;
}

/** One poll of a feed, as its page lists it. */
export interface PollEntry {
  startedAt: string;
  result: 'ok' | 'not-modified' | 'error';
  status: number | null;
  durationMs: number;
  itemsSeen: number;
  newItems: number;
  changedItems: number;
  error: string | null;
  gap: FeedGap | null;
}

/** A day of a feed's polls (from the polls kept, and the daily sums of those retention dropped). */
export interface PollDay {
  /** YYYY-MM-DD (UTC). */
  day: string;
  polls: number;
  ok: number;
  notModified: number;
  errors: number;
  newItems: number;
  /** Polls that found a gap (only among the polls kept). */
  gaps: number;
}

/** One feed item's article: its object's versions and the checks of its page. */
export interface Article {
  id: number;
  feedId: number;
  url: string;
  finalUrl: string | null;
  canonicalUrl: string | null;
  title: string | null;
  /** How many versions it has (the latest is number `versions`). */
  versions: number;
  firstCaptured: string;
  lastChecked: string | null;
  nextCheck: string | null;
  /** Since when the page answers 404/410, or null. */
  goneSince: string | null;
}

/** One version of an article's object, as stored. */
export interface Version {
  n: number;
  capturedAt: string;
  /** How the object was extracted: `sigfeed` (single page), `forest` (a wrapper), … */
  method: string;
  wrapperId: number | null;
  /** Why its extraction set the wrapper's result aside for the single page's (`wrapper set aside: …`), or null. */
  reason: string | null;
  hash: string;
  /** What changed from the version before (empty for the first). */
  change: ChangeKind[];
  summary: string | null;
  /** The diff recorded when the edit was found (null for the first version). */
  diff: ObjectDiff | null;
  title: string | null;
  byline: string | null;
  published: string | null;
  text: string;
  /** Sanitized HTML of the article's body. */
  html: string;
  /** The normalized object the hash covers. */
  object: NormalizedObject;
}

/** What one look at an article's page found (migrations 0004 and 0008). */
export type CheckResult = 'unchanged' | 'changed' | 'failed' | 'gone' | 'unavailable';

/** One look at an article's page. */
export interface Check {
  at: string;
  status: number | null;
  result: CheckResult;
  /** The version current after this check. */
  version: number | null;
  reason: string | null;
}

export interface ArticleFilter {
  /** A feed's URL, as subscribed or as fetched now. */
  feed?: string | undefined;
  /** ISO time: articles first captured at or after it. */
  since?: string | undefined;
  /** ISO time: articles first captured at or before it. */
  until?: string | undefined;
  /** Only the articles of feeds with this tag. */
  tag?: string | undefined;
  /** Only the articles that have been edited (more than one version). */
  changed?: boolean | undefined;
  /** Only the articles whose latest version's page is in this language (a BCP 47 range: `en` selects en-GB too). */
  language?: string | undefined;
}

/** Where a newest-first listing of articles stopped: the last article shown. */
export interface ArticleCursor {
  firstCaptured: string;
  id: number;
}

/** An article as a list shows it: with its feed's URL and its item's guid (`forest articles --json`). */
export interface ArticleSummary extends Pick<Article, 'id' | 'url' | 'canonicalUrl' | 'title' | 'versions' | 'firstCaptured' | 'lastChecked' | 'nextCheck'> {
  feed: string;
  guid: string;
}

/** Archive-wide totals (the demo's report; an overview page). */
export interface ArchiveTotals {
  checks: CheckCounts;
  versionsByMethod: Record<string, number>;
  articles: number;
  storedBodyBytes: number;
  /** One capture per feed. */
  examples: Array<{ title: string | null; url: string | null; finalUrl: string; bytes: number }>;
  /** The wrapper each feed uses now. */
  wrappers: Array<{ feed: string; xpath: string; samples: number }>;
  backlog: Backlog;
}

/** A version after the first: an edit a revisit found (the change feed). */
export interface Change {
  articleId: number;
  version: number;
  capturedAt: string;
  title: string | null;
  url: string;
  change: ChangeKind[];
  summary: string | null;
  /** The diff from the version before, as recorded when the edit was found. */
  diff: ObjectDiff | null;
  feed: string;
  feedTitle: string | null;
}

/** A FOREST wrapper learned for one of a feed's templates. */
export interface WrapperInfo {
  id: number;
  templateId: number;
  xpath: string;
  samples: number;
  learnedAt: string;
  /** The one the template's pages are extracted with now. */
  active: boolean;
  /** Why it was learned (or re-learned). */
  reason: string;
}

/** A capture whose bytes are kept: a memento of its page (RFC 7089). */
export interface Memento {
  snapshotId: number;
  datetime: string;
  status: number;
  /** What the page names as its address (`<link rel=canonical>`): its claim, never the memento's original. */
  canonicalUrl: string | null;
}

/** A raw capture as it was fetched. */
export interface Capture {
  url: string;
  finalUrl: string;
  fetchedAt: string;
  status: number;
  /** The response headers as received (a repeated header is a list). */
  headers: Record<string, string | string[]>;
  contentType: string | null;
  body: Buffer;
}

export type Progress = (done: number, total: number) => void;

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
  /** A feed's polls over time: the latest `polls`, newest first, and its last `days` days of polling. */
  feedHistory(feedId: number, limits: { polls: number; days: number }): Promise<{ polls: PollEntry[]; days: PollDay[] }>;
  /** A feed's wrappers, the active ones first. */
  wrappers(feedId: number, limit: number): Promise<WrapperInfo[]>;
  totals(): Promise<ArchiveTotals>;
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

/** What a webhook is told of (notify.webhooks[].events). */
export type NotifyEvent = 'article' | 'version' | 'gap' | 'feed';

/** An event of the archive, as the notifier reads it: a version (version 1 is a new article), or a poll that found a gap. */
export type ArchiveEvent =
  | {
    kind: 'version'; id: number; articleId: number; n: number; title: string | null; url: string; feed: string; feedTitle: string | null; tags: string[];
    capturedAt: string; change: string[]; summary: string | null; diff: ObjectDiff | null;
  }
  | { kind: 'gap'; id: number; feed: string; feedTitle: string | null; tags: string[]; gap: FeedGap }
  | { kind: 'feed'; id: number; feedId: number; feed: string; feedTitle: string | null; tags: string[]; state: 'failing' | 'gone'; at: string; status: number | null; error: string | null };

/** A delivery waiting in the outbox. */
export interface QueuedNotification {
  id: number;
  webhook: string;
  event: NotifyEvent;
  /** The JSON body, without its delivery time. */
  payload: string;
  attempts: number;
}

export type DeliveryOutcome =
  | { delivered: true; status: number }
  | { delivered: false; status: number | null; error: string; retryAt: Date };

/** The delivery log, per webhook, for status and the web app. */
export interface NotificationSummary {
  webhook: string;
  delivered: number;
  waiting: number;
  lastDeliveredAt: string | null;
  lastError: string | null;
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

/** A search query the backend cannot parse (the message says how to write one). */
export class SearchQueryError extends Error {
  override name = 'SearchQueryError';
}

// The daemon's work: queues, captures, extractions and versions (src/daemon).

/** A write the archive had no room for (the disk, or `database.maxSize`): nothing of it was stored. */
export class StorageFullError extends Error {
  override name = 'StorageFullError';
}

export const isStorageFull = (error: unknown): error is StorageFullError => error instanceof StorageFullError;

/** A feed as its poll needs it: where to fetch, its validators, and what the scheduler reads. */
export interface FeedToPoll {
  id: number;
  url: string;
  etag: string | null;
  lastModified: string | null;
  /** The scheduler's state (JSON, schedule/state.ts), null before the first poll. */
  scheduleState: string | null;
  cron: string | null;
  /** What the feed said of its own schedule at its last parsed poll. */
  hints: Pick<PublisherHints, 'ttlMinutes' | 'updatePeriod' | 'updateFrequency' | 'skipHours' | 'skipDays'>;
  /** The max-age its last response was served with (seconds). */
  maxAgeSeconds: number | null;
  /** Its WebSub subscription: when active, polls only check that the hub delivers. */
  push: { state: PushState; leaseUntil: string | null; lastPushAt: string | null; missedInRow: number } | null;
}

/** An item whose page waits for its first capture. */
export interface ItemToCapture {
  id: number;
  /** The page (the item's original link, else its link); null when it has none. */
  url: string | null;
}

/** The feed item's fields, the signifiers and dates of extraction. */
export interface FeedFields {
  title: string | null;
  summary: string | null;
  published: string | null;
  updated: string | null;
  /** The item's author (dc:creator, author): the byline when the page shows none. */
  author: string | null;
}

/** An archived article as its revisit needs it. */
export interface ArticleToRevisit {
  id: number;
  itemId: number;
  feedId: number;
  url: string;
  etag: string | null;
  lastModified: string | null;
  /** How far along its revisit schedule it is (schedule/revisit.ts). */
  revisitStep: number;
  item: FeedFields;
}

/** A stored capture of an item's page, with the item's fields: what extraction reads. */
export interface StoredCapture {
  snapshotId: number;
  itemId: number;
  feedId: number;
  /** The URL requested (the item's link) and the one redirects led to. */
  url: string;
  finalUrl: string;
  fetchedAt: string;
  status: number;
  headers: Record<string, string>;
  contentType: string | null;
  /** The stored body's hash, or null when only its digest was kept. */
  sha256: string | null;
  item: FeedFields;
}

/** A template of a feed, as stored (JSON text: cloning one string to a worker is a copy, an array of thousands is not). */
export interface TemplateChoice {
  id: number;
  /** JSON: the structural signature. */
  signature: string;
  wrapperId: number | null;
  /** JSON: the active wrapper. */
  wrapper: string | null;
}

/** The object a new capture of an article is compared with: its latest version's, or one rebased (migration 0005). */
export interface StoredComparisonKey {
  hash: string;
  method: string;
  wrapperId: number | null;
  /** The capture it was extracted from. */
  snapshotId: number;
  /** JSON of the normalized object the hash covers. */
  object: string;
  /** The extractor version that made it (extract.ts, EXTRACTOR_VERSION): an older one's key is rebased before comparing. */
  extractor: number;
  /** What the object is made from (extract.ts, objectSource), when known: an extraction from the same source has this object. */
  source: string | null;
}

/** An article as change detection reads it, inside the transaction that records what a capture means. */
export interface ArticleState {
  id: number;
  url: string;
  canonicalUrl: string | null;
  revisitStep: number;
  /** Characters of text in its latest version (what a near-empty page is measured against). */
  latestTextLength: number;
  /** When its latest version's page was captured: a capture from before it is extracted too late to be a version. */
  latestCapturedAt: string | null;
}

/** One extraction of a capture, ready to be stored as a version. */
export type VersionContent = Pick<Version, 'capturedAt' | 'method' | 'wrapperId' | 'title' | 'byline' | 'published' | 'text' | 'html' | 'object' | 'hash'> & {
  snapshotId: number;
  /** The extractor version that made it: the article's comparison key from now on. */
  extractor: number;
  /** What the object was made from (extract.ts, objectSource), null when unknown: the key's source from now on. */
  source: string | null;
  /** `html` and `object` packed for storage (packed-content.ts), by the pool. */
  packed: Uint8Array;
};

/** The page a check looked at. */
export interface CheckedPage {
  at: string;
  status: number | null;
  snapshotId: number | null;
  headers?: Record<string, string>;
}

/** What a capture means for its item's article (daemon/versioning.ts decides, the store records). */
export type VersionDecision =
  /** No article yet and no object: nothing to record beyond the extraction. */
  | { kind: 'none' }
  | { kind: 'first'; article: { itemId: number; feedId: number; url: string; finalUrl: string; canonicalUrl: string | null }; content: VersionContent; page: CheckedPage; next: NextCheck }
  | {
    kind: 'check'; result: 'unchanged' | 'failed' | 'unavailable'; page: CheckedPage; next: NextCheck; reason: string | null;
    /** The comparison key's object, found again: its hash, and what this extraction made it from (the key's source from now on, if the key still holds that hash). */
    sameObject?: { hash: string; source: string };
  }
  | { kind: 'edit'; content: VersionContent; diff: ObjectDiff; page: CheckedPage; next: NextCheck; reason: string | null };

/** The rule that turns a capture into a decision for its article (null: the item has none yet). */
export type Decide = (article: ArticleState | null, capture: StoredCapture) => VersionDecision;

/** What an extraction keeps of the article object: re-extracting a page changed it when any of these differ. */
export type ExtractedFields = Pick<ArticleObject, 'title' | 'byline' | 'published' | 'modified' | 'leadImage' | 'language' | 'text'>;

/** What the pool extracted from a capture, to be stored with it. */
export interface ExtractionRecord {
  /** The page's template: a known one, a new layout to add, or none (not HTML, or nothing extracted). */
  template: { id: number } | { signature: string[] } | null;
  canonicalUrl: string | null;
  wrapperId: number | null;
  article: ArticleObject;
  /** The normalized object's hash (the extraction shares the content row of a version that holds it). */
  hash: string | null;
}

export interface StoredExtraction {
  decision: VersionDecision;
  templateId: number | null;
  /** The template's page count after this page, when it counted (a new item's page, not a revisit's). */
  pages: number | null;
}

/**
 * A revisit's capture, kept: queued for extraction (the article waits for it, with no next
 * check), or recorded at once as a check — byte-identical to the last capture, gone (404/410:
 * the article is marked gone), or plainly not the article any more (availability.ts).
 */
export type RevisitRecord =
  | { kind: 'extract'; body: EncodedBody }
  | { kind: 'identical'; body: EncodedBody; next: NextCheck }
  | { kind: 'gone'; body: EncodedBody | null; next: NextCheck }
  | { kind: 'unavailable'; body: EncodedBody | null; next: NextCheck; reason: string };

/** The daemon's work: due work, captures, extractions, versions, wrappers, and its lease. */
export interface WorkStore {
  /** Due work, in the order it is taken (each an index walk bounded by `limit`: archive/queues.ts). */
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
  /** An item's first capture, queued for extraction when it has a body. */
  recordCapture(itemId: number, page: FetchedPage, body: EncodedBody | null): Promise<number>;
  /** A failed capture attempt: retried at `retryAt`, or given up after `maxAttempts`. */
  recordCaptureFailure(itemId: number, error: string, retryAt: Date, maxAttempts: number): Promise<void>;

  articleToRevisit(id: number): Promise<ArticleToRevisit | null>;
  /** Another archived article whose page is at `url` (a revisit redirected there). */
  otherArticleAt(url: string, exceptId: number): Promise<{ id: number; title: string | null } | null>;
  /** The payload digest of the latest capture of an item's page. */
  latestPayloadDigest(itemId: number): Promise<string | null>;
  /** A look at an article's page that kept no capture: not modified, failed. */
  recordCheck(articleId: number, page: CheckedPage, result: 'unchanged' | 'failed' | 'unavailable', next: NextCheck, reason: string | null): Promise<void>;
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
  recordExtraction(capture: StoredCapture, extraction: ExtractionRecord, options: { rebasedKey: StoredComparisonKey | null; countsForTemplate: boolean }, decide: Decide): Promise<StoredExtraction>;
  /** A new wrapper, the template's active one from now on, with the recent pages it extracts differently. */
  storeWrapper(feedId: number, templateId: number, wrapper: Wrapper, reason: string, reextracted: Array<{ snapshotId: number; itemId: number; article: ArticleObject }>): Promise<number>;
  /** A re-learning that found the active wrapper again: it stays, and says so. */
  confirmWrapper(wrapperId: number, samples: number, reason: string): Promise<void>;

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
