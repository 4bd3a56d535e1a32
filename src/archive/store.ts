import type { ArchiveCheck } from './integrity.js';
import type { Backlog } from './queues.js';
import type { CheckCounts } from './summary.js';
import type { ChangeKind, ObjectDiff } from './diff.js';
import type { ExportReport, ExportSink, WarcOptions } from './export.js';
import type { LeaseHolder } from './lease.js';
import type { NormalizedObject } from './normalize.js';
import type { RetentionReport } from './retention.js';
import type { SearchHit, SearchOptions } from './search.js';
import type { Subscription, SyncReport } from './feeds.js';

/**
 * The archive as the rest of Forest sees it: the CLI (and the web server to come) read and
 * administer storage only through this interface, with domain types — no SQL and no database
 * rows outside src/archive. Every method is async, so that a second backend (PostgreSQL, for a
 * deployment that outgrows one machine) can implement it without touching its callers; the
 * SQLite backend (sqlite-store.ts) answers at once.
 *
 * The daemon's own work (queues, captures, extractions, versions) still goes through the
 * functions of src/archive directly: moving it behind this interface is the next step.
 */

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
  /** The object-level archive: articles, their versions, checks, and the next revisit due. */
  articles: number;
  versions: number;
  checks: number;
  nextRevisit: string | null;
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

export interface Store {
  /** Makes the subscriptions match the list (feeds gone from it are kept, marked unsubscribed). */
  syncSubscriptions(subscriptions: Subscription[]): Promise<SyncReport>;
  feeds(): Promise<Feed[]>;
  feedStatuses(): Promise<FeedStatus[]>;
  /** The daemon's lease on this archive, if one was taken. */
  leaseHolder(): Promise<LeaseHolder | null>;

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
  /** A feed's wrappers, the active ones first. */
  wrappers(feedId: number, limit: number): Promise<WrapperInfo[]>;
  totals(): Promise<ArchiveTotals>;
  /** Each article's URL and version count (to compare with what a test web really changed). */
  versionCounts(): Promise<Array<{ id: number; url: string; versions: number }>>;

  exportJsonl(filter: ArticleFilter, path: string, progress?: Progress): Promise<ExportReport>;
  exportWarc(filter: ArticleFilter, path: string, options: WarcOptions): Promise<ExportReport>;
  /** The same exports to a stream (forest serve); `filename` names the WARC in its warcinfo and in the CDXJ index. */
  writeJsonl(filter: ArticleFilter, sink: ExportSink): Promise<ExportReport>;
  writeWarc(filter: ArticleFilter, sink: ExportSink, filename: string, options: WarcOptions): Promise<ExportReport>;
  writeCdxj(filter: ArticleFilter, sink: ExportSink, filename: string, options: Omit<WarcOptions, 'onCapture' | 'progress'>): Promise<{ captures: number; bytes: number }>;
  verify(): Promise<ArchiveCheck[]>;
  backup(file: string, options: { overwrite: boolean }): Promise<{ file: string; bytes: number; ms: number }>;
  applyRetention(ages: { polls: number | null; checks: number | null }, now: Date): Promise<RetentionReport>;
  /** Rewrites the file to give free space back (holds the write lock while it runs). */
  compact(): Promise<void>;
  /** Bytes the archive takes on disk. */
  size(): Promise<number>;
  close(): Promise<void>;
}
