import type { ArticleObject } from '../extract/extract.js';
import type { ParsedFeed } from '../feeds/model.js';
import type { PublisherHints } from '../schedule/policy.js';
import type { NextCheck } from '../schedule/revisit.js';
import type { EncodedBody } from './codec.js';
import type { ChangeKind, ObjectDiff } from './diff.js';
import type { NormalizedObject } from './normalize.js';

/**
 * The archive's domain model: the records the Store's roles (store.ts) speak in — feeds, items'
 * pages, articles, versions, checks, polls, pushes, notifications — and the records of work the
 * daemon hands a store. Types only, and the errors a store raises: no engine, no SQL.
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
  /** A poll overdue past its overflow risk's time (archive/due.ts duePollOrder): items may be scrolling out. */
  atRisk?: boolean;
}

/** How much work waits, for status and the overload report. */
export interface Backlog {
  duePolls: number;
  pendingCaptures: number;
  dueRevisits: number;
  queuedExtractions: number;
  /** Captures waiting for their requisites (requisite_queue). */
  queuedRequisites: number;
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
  kind: WorkKind | 'extract' | 'learn' | 'requisites';
  /** The feed (poll), item (capture), article (revisit), snapshot (extract, requisites) or template (learn). */
  id: number;
}

/** Politeness shared with other processes: a host is taken before each request and given back after it (net/fetcher.ts). */
export interface HostGate {
  /**
   * Takes `host` for one request that rests it `restMs` after (the pause the fetcher's own queue
   * keeps after that request: a page's perHostDelay, a requisite's lighter
   * capture.requisites.perHostDelay): 0 when taken, else how long (ms) to wait before asking again.
   * A lighter request waits its own rest after the last request, a full one the page pace.
   */
  take(host: string, restMs: number): Promise<number>;
  /** The request ended: the host rests `restMs` from now. */
  give(host: string, restMs: number): Promise<void>;
  /** True while this daemon is alone on the archive and keeps its hosts in its own queues (nothing written per request). */
  readonly isAlone: boolean;
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
  /** The requisites its pages are captured with, instead of capture.requisites.kinds (null: those). */
  requisites?: RequisiteSetting[] | null | undefined;
}

/** The kinds of requisite a setting turns on (capture.requisites.kinds, or a feed's own `requisites`). */
export type RequisiteSetting = 'images' | 'styles' | 'media';

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
  /** From when the feed's items are at risk unpolled (schedule/policy.ts PollDecision.riskAt). */
  riskAt: Date | null;
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

export interface UpsertReport {
  newItems: number;
  changedItems: number;
  /** The items whose date, title or summary changed. */
  changedIds: number[];
}

/** What each engine's summarising of old polls and checks did. */
export interface LogRetention {
  polls: number;
  checks: number;
}

export interface RetentionReport extends LogRetention {
  /** Requisites dropped: their capture's body was gone (rules/requisites.ts, dropUnusedRequisites). */
  requisites: number;
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
  /** As the subscription list gives it: its own title (null: the feed's) and requisites (null: the settings'). */
  subscription: Subscription;
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
  /** Articles whose last check got no answer (retried, schedule/revisit.ts), and the first retry. */
  retrying: number;
  nextRetry: string | null;
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
  /** Checks in a row that got no answer: the next check (`nextCheck`) is their retry. */
  failedChecks: number;
}

/** One version of an article's object, as stored. */
export interface Version {
  n: number;
  /** The capture it was extracted from. */
  snapshotId: number;
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
  /** When the extraction method changed, it was re-extracted the new way (a change of method is no edit): when, and how it was first extracted. */
  reextracted: { at: string; firstMethod: string; firstHash: string } | null;
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

/** Archive-wide counts (the API's status, the demo's progress): each one aggregate, whatever the archive's size. */
export interface ArchiveTotals {
  checks: CheckCounts;
  versionsByMethod: Record<string, number>;
  articles: number;
  backlog: Backlog;
}

/**
 * What the demo shows of its small archive at the end: every capture is read for it (a capture
 * per feed), so it is not part of the totals a status page asks for on an archive of any size.
 */
export interface ArchiveExamples {
  storedBodyBytes: number;
  /** One capture per feed. */
  captures: Array<{ title: string | null; url: string | null; finalUrl: string; bytes: number }>;
  /** The wrapper each feed uses now. */
  wrappers: Array<{ feed: string; xpath: string; samples: number }>;
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

/** What a requisite is to its page (requisites/discover.ts). */
export type RequisiteKind = 'image' | 'style' | 'font' | 'media' | 'icon';

/** One requisite of a capture as the daemon fetched it (issue #67): kept, found unchanged, or not kept and why. */
export interface RequisiteRecord {
  url: string;
  kind: RequisiteKind;
  /** Where the page (or a stylesheet) named it: `img srcset`, `css url()`, … */
  via: string;
  fetchedAt: Date;
  /** The server's answer; null when none came (refused address, timeout). */
  status: number | null;
  /** What the bytes are, sniffed (never only what the server said). */
  contentType: string | null;
  /** The bytes, encoded; `{ sha256 }` for bytes already stored (a 304 to a conditional GET); null when not kept. */
  body: EncodedBody | { sha256: string } | null;
  etag: string | null;
  lastModified: string | null;
  /** Why the bytes are not kept: `blocked: …`, `too large`, `not an image: text/html`, `HTTP 404`. */
  error: string | null;
}

/** A requisite as a capture lists it. */
export interface StoredRequisite {
  url: string;
  kind: RequisiteKind;
  via: string;
  fetchedAt: string;
  status: number | null;
  contentType: string | null;
  /** The bytes' digest when they are kept. */
  sha256: string | null;
  error: string | null;
}

/**
 * What the archive knows of a requisite URL before fetching it again: its last fetch (kept or
 * not: a 404 a moment ago need not be asked again) and its last kept one (the validators of a
 * conditional GET, and what a 304 keeps).
 */
export interface RequisiteHistory {
  last: { fetchedAt: string; status: number | null; contentType: string | null; error: string | null; kept: boolean };
  kept: RequisiteValidators | null;
}

/** The last kept fetch of a requisite URL: the validators of the next conditional GET, and what a 304 keeps. */
export interface RequisiteValidators {
  /** When that fetch was made, and what it answered (a reuse lists it again as it was). */
  fetchedAt: string;
  status: number | null;
  sha256: string;
  contentType: string | null;
  etag: string | null;
  lastModified: string | null;
}

/** A picture of an article's object (its lead image or a figure in its content) as a version keeps it (issue #67). */
export interface VersionPicture {
  url: string;
  sha256: string;
  contentType: string | null;
  fetchedAt: string;
}

/** The pictures of an article's latest version, as a revisit compares the page's pictures with them. */
export interface LatestPictures {
  articleId: number;
  /** The version they belong to: a picture edit is recorded only while it is still the latest. */
  versionN: number;
  /** Its object's blocks (a picture edit's diff leaves them all unchanged). */
  blocks: number;
  pictures: VersionPicture[];
  /** The article's feed's own requisite kinds (null: capture.requisites.kinds). */
  requisites: RequisiteSetting[] | null;
}

/** Pictures that changed at the same URLs while the object's text did not: a version of its own. */
export interface PictureEdit {
  articleId: number;
  /** The version the pictures were compared with. */
  basedOn: number;
  at: Date;
  /** The pictures as fetched now (kept with the new version's capture). */
  requisites: RequisiteRecord[];
  diff: ObjectDiff;
  next: NextCheck;
}

/** The feed URL of the pages archived by hand (rules/pages.ts): no URL a fetcher takes, nor one a subscription list may name (http and https only). */
export const HAND_LIST_URL = 'forest:pages';
export const HAND_LIST_TITLE = 'Pages archived by hand';

/** A page asked to be archived by hand: its item, and whether it was queued for capture or, archived already, for a revisit now. */
export interface PageRequest {
  url: string;
  itemId: number;
  state: 'queued' | 'revisit';
  /** The article to revisit (state revisit). */
  articleId: number | null;
}

/** Where a page archived by hand stands. */
export interface PageProgress {
  /** The capture's state: pending, captured or failed. */
  state: string;
  error: string | null;
  article: number | null;
  versions: number | null;
  lastChecked: string | null;
  /** Whether its first capture was extracted (1) or still waits (0). */
  extracted: number;
  /** Requisites listed with its first capture. */
  requisites: number;
}

/** A requisite's bytes as replay serves them. */
export interface RequisiteContent {
  url: string;
  fetchedAt: string;
  contentType: string | null;
  body: Buffer;
}

export type Progress = (done: number, total: number) => void;

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
  /** Checks in a row that got no answer: this one is a retry when above 0. */
  failedChecks: number;
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

/**
 * A version as the extraction method in force makes it (a change of method re-extracts the
 * versions made the old way: daemon/tasks.ts, rebaseTask): its new content, and the diff from the
 * version before (null for the first, or when neither changed).
 */
export interface RedoneVersion {
  n: number;
  /** Its hash when it was re-extracted: the version is left alone if it changed meanwhile. */
  was: string;
  content: { hash: string; method: string; wrapperId: number | null; title: string | null; byline: string | null; published: string | null; text: string; packed: Uint8Array } | null;
  diff: ObjectDiff | null;
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
  /** `requisites`: the capture is queued for its requisites (daemon/requisites.ts). */
  | { kind: 'extract'; body: EncodedBody; requisites?: boolean }
  | { kind: 'identical'; body: EncodedBody; next: NextCheck }
  | { kind: 'gone'; body: EncodedBody | null; next: NextCheck }
  | { kind: 'unavailable'; body: EncodedBody | null; next: NextCheck; reason: string };
