import { groupedByCanonical } from '../net/site.js';
import { z } from 'zod';
import type { NextCheck } from '../schedule/revisit.js';
import type { Db } from './database.js';
import type { ObjectDiff } from './diff.js';
import { checkedRow, checkedRows, count, integer, nullableInteger, nullableText, text } from './rows.js';
import { unpackContent } from './packed-content.js';
import { insertSnapshot } from './snapshots.js';
import type { ArticleFilter, ArticleState, FetchedPage, ArticleSummary, CheckedPage, CheckResult, RevisitRecord, StoredComparisonKey, VersionContent, VersionDecision } from './store.js';

/**
 * Articles, their versions and the checks between them (docs/architecture.md §6). An article is one feed item's
 * object; a version is stored only when the normalized object's hash changes; every look at the
 * page is a check. Content is stored once per object hash in `contents`, which also feeds the
 * FTS5 index.
 */

export const articleRow = z.object({
  id: integer,
  item_id: integer,
  feed_id: integer,
  url: text,
  final_url: nullableText,
  canonical_url: nullableText,
  title: nullableText,
  versions: integer,
  first_captured: text,
  last_checked: nullableText,
  revisit_step: integer,
  next_check_at: nullableText,
  etag: nullableText,
  last_modified: nullableText,
  compare_hash: nullableText,
  compare_method: nullableText,
  compare_wrapper_id: nullableInteger,
  compare_snapshot_id: nullableInteger,
  compare_object: nullableText,
  /** The extractor version that made the key (migration 0011). */
  compare_extractor: integer,
  /** What the key's object was made from, when known (migration 0013). */
  compare_source: nullableText,
  /** Since when the page answers 404/410 (null while it is there). */
  gone_since: nullableText,
});
export type ArticleRow = z.infer<typeof articleRow>;

const storedVersionRow = z.object({
  id: integer,
  article_id: integer,
  n: integer,
  snapshot_id: integer,
  captured_at: text,
  method: text,
  wrapper_id: nullableInteger,
  hash: text,
  change: text,
  summary: nullableText,
  diff: nullableText,
  title: nullableText,
  byline: nullableText,
  published: nullableText,
  text,
  html: text,
  blocks: text,
  /** Why the version's extraction set a wrapper aside (or found nothing), if it did. */
  extraction_reason: nullableText,
  /** The HTML and the object, compressed (migration 0015); `html` and `blocks` are then ''. */
  packed: z.instanceof(Uint8Array).nullable(),
});
/** A version with its HTML and object as text, however they are stored. */
export const versionRow = storedVersionRow.transform(({ packed, ...row }) => (packed === null ? row : { ...row, ...unpackContent(packed) }));
export type VersionRow = z.infer<typeof versionRow>;

const checkResult = z.enum(['unchanged', 'changed', 'failed', 'gone', 'unavailable']) satisfies z.ZodType<CheckResult>;

export const checkRow = z.object({
  id: integer,
  article_id: integer,
  at: text,
  status: nullableInteger,
  result: checkResult,
  snapshot_id: nullableInteger,
  version_n: nullableInteger,
  reason: nullableText,
});
export type CheckRow = z.infer<typeof checkRow>;

export const articleSummary = z.object({
  id: integer, feed: text, guid: text, url: text, canonicalUrl: nullableText, title: nullableText, versions: integer,
  firstCaptured: text, lastChecked: nullableText, nextCheck: nullableText,
}) satisfies z.ZodType<ArticleSummary>;

export const VERSION_COLUMNS = `versions.*, contents.title, contents.byline, contents.published, contents.text, contents.html, contents.blocks, contents.packed,
  (SELECT extractions.reason FROM extractions WHERE extractions.snapshot_id = versions.snapshot_id) AS extraction_reason`;

export function articleOfItem(db: Db, itemId: number): ArticleRow | undefined {
  return checkedRow(articleRow, db.prepare('SELECT * FROM articles WHERE item_id = ?').get(itemId), 'articleOfItem');
}

export function articleById(db: Db, id: number): ArticleRow | undefined {
  return checkedRow(articleRow, db.prepare('SELECT * FROM articles WHERE id = ?').get(id), 'articleById');
}

export function versionOf(db: Db, articleId: number, n: number): VersionRow | undefined {
  return checkedRow(versionRow, db.prepare(`SELECT ${VERSION_COLUMNS} FROM versions JOIN contents ON contents.hash = versions.hash
    WHERE versions.article_id = ? AND versions.n = ?`).get(articleId, n), 'versionOf');
}

export function versionsOf(db: Db, articleId: number): VersionRow[] {
  return checkedRows(versionRow, db.prepare(`SELECT ${VERSION_COLUMNS} FROM versions JOIN contents ON contents.hash = versions.hash
    WHERE versions.article_id = ? ORDER BY versions.n`).all(articleId), 'versionsOf');
}

export function checksOf(db: Db, articleId: number): CheckRow[] {
  return checkedRows(checkRow, db.prepare('SELECT * FROM checks WHERE article_id = ? ORDER BY at, id').all(articleId), 'checksOf');
}

/** Other articles (in other feeds, or other items) with the same canonical URL, of the same site as each (net/site.ts). */
export function sameArticleElsewhere(db: Db, article: ArticleRow): number[] {
  if (!article.canonical_url) return [];
  const others = checkedRows(articleRow, db.prepare('SELECT * FROM articles WHERE canonical_url = ? AND id != ? ORDER BY id').all(article.canonical_url, article.id), 'sameArticleElsewhere');
  const urls = (row: ArticleRow) => ({ id: row.id, url: row.url, finalUrl: row.final_url });
  return groupedByCanonical({ ...urls(article), canonicalUrl: article.canonical_url }, others.map(urls)).map((other) => other.id);
}

/** The HTML and the object stay packed as the pool packed them (packed-content.ts); the text is kept as text, for the search index. */
function storeContent(db: Db, content: VersionContent): void {
  db.prepare(`INSERT INTO contents (hash, title, byline, published, text, html, blocks, packed) VALUES (?, ?, ?, ?, ?, '', '', ?)
    ON CONFLICT (hash) DO NOTHING`).run(content.hash, content.title, content.byline, content.published, content.text, content.packed);
}

const storedObject = z.object({ blocks: text, packed: z.instanceof(Uint8Array).nullable() });

/** The article's comparison key, with its object. */
export function comparisonKeyOf(db: Db, article: ArticleRow): StoredComparisonKey | null {
  if (article.compare_hash === null || article.compare_method === null || article.compare_snapshot_id === null) return null;
  const stored = article.compare_object === null ? checkedRow(storedObject, db.prepare('SELECT blocks, packed FROM contents WHERE hash = ?').get(article.compare_hash), 'comparisonKeyOf') : undefined;
  const object = article.compare_object ?? (stored && (stored.packed === null ? stored.blocks : unpackContent(stored.packed).blocks));
  if (object === undefined) return null;
  return {
    hash: article.compare_hash, method: article.compare_method, wrapperId: article.compare_wrapper_id, snapshotId: article.compare_snapshot_id, object,
    extractor: article.compare_extractor, source: article.compare_source,
  };
}

/** A key rebased onto a new way of extracting: its object is kept, since no version holds it. */
export function setComparisonKey(db: Db, articleId: number, key: StoredComparisonKey): void {
  db.prepare(`UPDATE articles SET compare_hash = ?, compare_method = ?, compare_wrapper_id = ?, compare_snapshot_id = ?, compare_object = ?, compare_extractor = ?, compare_source = ? WHERE id = ?`)
    .run(key.hash, key.method, key.wrapperId, key.snapshotId, key.object, key.extractor, key.source, articleId);
}

function insertVersion(db: Db, articleId: number, n: number, content: VersionContent, diff: ObjectDiff | null): void {
  storeContent(db, content);
  // A new version is the new comparison key (its object is in `contents`).
  db.prepare(`UPDATE articles SET compare_hash = ?, compare_method = ?, compare_wrapper_id = ?, compare_snapshot_id = ?, compare_object = NULL, compare_extractor = ?, compare_source = ? WHERE id = ?`)
    .run(content.hash, content.method, content.wrapperId, content.snapshotId, content.extractor, content.source, articleId);
  const { lastInsertRowid } = db.prepare(`INSERT INTO versions (article_id, n, snapshot_id, captured_at, method, wrapper_id, hash, change, summary, diff)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(articleId, n, content.snapshotId, content.capturedAt, content.method, content.wrapperId, content.hash,
    JSON.stringify(diff?.kinds ?? []), diff ? diff.summary : 'first capture', diff ? JSON.stringify(diff) : null);
  db.prepare('INSERT INTO version_search (rowid, title, text) VALUES (?, ?, ?)').run(lastInsertRowid, content.title ?? '', content.text);
}

function insertCheck(db: Db, articleId: number, page: CheckedPage, result: CheckRow['result'], versionN: number | null, reason: string | null): void {
  db.prepare('INSERT INTO checks (article_id, at, status, result, snapshot_id, version_n, reason) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(articleId, page.at, page.status, result, page.snapshotId, versionN, reason);
}

function updateSchedule(db: Db, articleId: number, page: CheckedPage, next: NextCheck, title?: string | null): void {
  db.prepare(`UPDATE articles SET last_checked = @at, revisit_step = @step, next_check_at = @next,
      etag = CASE WHEN @status = 200 THEN @etag ELSE etag END, last_modified = CASE WHEN @status = 200 THEN @lastModified ELSE last_modified END,
      title = COALESCE(@title, title)
    WHERE id = @id`).run({
    id: articleId, at: page.at, step: next.step, next: next.at, status: page.status, title: title ?? null,
    etag: page.headers?.['etag'] ?? null, lastModified: page.headers?.['last-modified'] ?? null,
  });
}

export interface NewArticle {
  itemId: number;
  feedId: number;
  url: string;
  finalUrl: string;
  canonicalUrl: string | null;
}

/** The first capture of an item's page: the article, its version 1 and the check, at once. */
export function createArticle(db: Db, article: NewArticle, content: VersionContent, page: CheckedPage, next: NextCheck): number {
  const { lastInsertRowid } = db.prepare(`INSERT INTO articles (item_id, feed_id, url, final_url, canonical_url, title, versions, first_captured)
    VALUES (?, ?, ?, ?, ?, ?, 1, ?)`).run(article.itemId, article.feedId, article.url, article.finalUrl, article.canonicalUrl, content.title, content.capturedAt);
  const id = Number(lastInsertRowid);
  insertVersion(db, id, 1, content, null);
  insertCheck(db, id, page, 'changed', 1, 'first capture');
  updateSchedule(db, id, page, next, content.title);
  return id;
}

/** A check that found an edit: version n + 1 with its diff. */
export function addVersion(db: Db, article: ArticleRow, content: VersionContent, diff: ObjectDiff, page: CheckedPage, next: NextCheck, reason: string | null): number {
  const n = article.versions + 1;
  insertVersion(db, article.id, n, content, diff);
  db.prepare('UPDATE articles SET versions = ? WHERE id = ?').run(n, article.id);
  insertCheck(db, article.id, page, 'changed', n, noteComeBack(db, article, reason));
  updateSchedule(db, article.id, page, next, content.title);
  return n;
}

/** Records what change detection decided for a capture of the item of `article` (in the caller's transaction). */
export function applyDecision(db: Db, article: ArticleRow | undefined, decision: VersionDecision): void {
  if (decision.kind === 'none') return;
  if (decision.kind === 'first') {
    createArticle(db, decision.article, decision.content, decision.page, decision.next);
    return;
  }
  if (!article) throw new Error(`a ${decision.kind} needs an article, and the item has none`);
  if (decision.kind === 'check') {
    insertCheckOf(db, article, decision.page, decision.result, decision.next, decision.reason);
    // Only while the key still holds the object found: the key may have changed since the extraction was compared with it.
    if (decision.sameObject) db.prepare('UPDATE articles SET compare_source = ? WHERE id = ? AND compare_hash = ?').run(decision.sameObject.source, article.id, decision.sameObject.hash);
  } else addVersion(db, article, decision.content, decision.diff, decision.page, decision.next, decision.reason);
}

/** An article as change detection reads it. */
export const articleStateOf = (db: Db, row: ArticleRow): ArticleState => ({
  id: row.id, url: row.url, canonicalUrl: row.canonical_url, revisitStep: row.revisit_step, latestTextLength: latestTextLength(db, row),
  latestCapturedAt: checkedRow(text, db.prepare('SELECT captured_at FROM versions WHERE article_id = ? AND n = ?').pluck().get(row.id, row.versions), 'latestCapturedAt') ?? null,
});

/**
 * A check that found the page again after it was gone: the article is no longer marked gone, and
 * the check says since when it had been.
 */
function noteComeBack(db: Db, article: ArticleRow, reason: string | null): string | null {
  if (article.gone_since === null) return reason;
  db.prepare('UPDATE articles SET gone_since = NULL WHERE id = ?').run(article.id);
  return `back (gone since ${article.gone_since})${reason ? `; ${reason}` : ''}`;
}

/**
 * A check that found the same object (`unchanged`), none at all (`failed`), or a page that no
 * longer shows the article (`unavailable`).
 */
export function recordCheck(db: Db, articleId: number, page: CheckedPage, result: 'unchanged' | 'failed' | 'unavailable', next: NextCheck, reason: string | null): void {
  db.transaction(() => insertCheckOf(db, storedArticle(db, articleId), page, result, next, reason))();
}

/** The check (in the caller's transaction), and the next one. */
function insertCheckOf(db: Db, article: ArticleRow, page: CheckedPage, result: 'unchanged' | 'failed' | 'unavailable', next: NextCheck, reason: string | null): void {
  insertCheck(db, article.id, page, result, article.versions, result === 'unchanged' ? noteComeBack(db, article, reason) : reason);
  updateSchedule(db, article.id, page, next);
}

/** An article that must exist (articles are never deleted): its absence is a bug, not a state. */
function storedArticle(db: Db, id: number): ArticleRow {
  const row = articleById(db, id);
  if (!row) throw new Error(`article ${id} is not in the archive`);
  return row;
}

/**
 * A revisit's capture, kept, in one transaction (RevisitRecord): queued for extraction — the
 * article waits (no next check) until the page is extracted and compared, and that comparison
 * records the check — or recorded at once as a check. A page gone (404/410) marks the article
 * gone from then on; its response is kept, so that exports show what the server said. A
 * byte-identical payload's row keeps its time, status, headers and digest (the body is stored
 * once).
 */
export function recordRevisit(db: Db, articleId: number, page: FetchedPage, record: RevisitRecord): number {
  return db.transaction(() => {
    const article = storedArticle(db, articleId);
    const snapshotId = insertSnapshot(db, article.item_id, page, record.body, record.kind === 'extract' ? 'revisit' : null);
    if (record.kind === 'extract') {
      db.prepare('UPDATE articles SET next_check_at = NULL WHERE id = ?').run(article.id);
      return snapshotId;
    }
    const checked: CheckedPage = { at: page.fetchedAt.toISOString(), status: page.status, snapshotId, headers: page.headers };
    let reason: string | null;
    if (record.kind === 'gone') {
      db.prepare('UPDATE articles SET gone_since = COALESCE(gone_since, ?) WHERE id = ?').run(checked.at, article.id);
      reason = `HTTP ${page.status}${article.gone_since ? ` (gone since ${article.gone_since})` : ''}`;
    } else {
      reason = record.kind === 'identical' ? noteComeBack(db, article, 'identical payload') : record.reason;
    }
    insertCheck(db, article.id, checked, record.kind === 'identical' ? 'unchanged' : record.kind, article.versions, reason);
    updateSchedule(db, article.id, checked, record.next);
    return snapshotId;
  })();
}

const articleAt = z.object({ id: integer, title: nullableText });

/** Another archived article whose page is at `url` (a revisit redirected there), if any. */
export function otherArticleAt(db: Db, url: string, exceptId: number): { id: number; title: string | null } | undefined {
  return checkedRow(articleAt, db.prepare('SELECT id, title FROM articles WHERE url = ? AND id != ? LIMIT 1').get(url, exceptId), 'otherArticleAt');
}

/** Characters of text in the article's latest version (what a near-empty page is measured against). */
export function latestTextLength(db: Db, article: ArticleRow): number {
  const length = db.prepare(`SELECT length(contents.text) FROM versions JOIN contents ON contents.hash = versions.hash
    WHERE versions.article_id = ? AND versions.n = ?`).pluck().get(article.id, article.versions);
  return checkedRow(count, length, 'latestTextLength') ?? 0;
}

/** The article of an item is checked next at `at` (a feed item that changed is revisited at once). */
export function revisitItemAt(db: Db, itemId: number, at: string): void {
  db.prepare('UPDATE articles SET next_check_at = ? WHERE item_id = ?').run(at, itemId);
}

const ARTICLE_FILTER = `FROM articles JOIN feeds ON feeds.id = articles.feed_id JOIN items ON items.id = articles.item_id
    WHERE (@feed IS NULL OR feeds.url = @feed OR feeds.subscribed_url = @feed) AND (@since IS NULL OR articles.first_captured >= @since)
      AND (@until IS NULL OR articles.first_captured <= @until)
      AND (@tag IS NULL OR EXISTS (SELECT 1 FROM json_each(feeds.tags) WHERE json_each.value = @tag)) AND (@changed = 0 OR articles.versions > 1)
      AND (@language IS NULL OR EXISTS (SELECT 1 FROM versions JOIN extractions ON extractions.snapshot_id = versions.snapshot_id
        WHERE versions.article_id = articles.id AND versions.n = articles.versions AND (lower(extractions.language) = @language OR lower(extractions.language) LIKE @language || '-%')))`;
// A language range matches a tag equal to it or starting with it and "-" (RFC 4647 §3.3.1, basic filtering): "en" selects en, en-GB, en-US.
const filterParams = (filter: ArticleFilter) => ({
  feed: filter.feed ?? null, since: filter.since ?? null, until: filter.until ?? null, tag: filter.tag ?? null, changed: filter.changed ? 1 : 0,
  language: filter.language ? filter.language.toLowerCase() : null,
});
const ARTICLE_SUMMARY = `SELECT articles.id, feeds.url AS feed, items.guid, articles.url, articles.canonical_url AS canonicalUrl, articles.title, articles.versions,
      articles.first_captured AS firstCaptured, articles.last_checked AS lastChecked, articles.next_check_at AS nextCheck ${ARTICLE_FILTER}`;

/** Every article the filter selects, oldest first (the order of an export). */
export function listArticles(db: Db, filter: ArticleFilter = {}): ArticleSummary[] {
  return checkedRows(articleSummary, db.prepare(`${ARTICLE_SUMMARY} ORDER BY articles.first_captured, articles.id`).all(filterParams(filter)), 'listArticles');
}

/** One page of the articles the filter selects, newest first, and how many it selects in all. */
export function pageOfArticles(db: Db, filter: ArticleFilter, page: { limit: number; offset: number }): { articles: ArticleSummary[]; total: number } {
  const params = filterParams(filter);
  const articles = checkedRows(articleSummary, db.prepare(`${ARTICLE_SUMMARY} ORDER BY articles.first_captured DESC, articles.id DESC LIMIT @limit OFFSET @offset`)
    .all({ ...params, limit: page.limit, offset: page.offset }), 'pageOfArticles');
  const total = checkedRow(count, db.prepare(`SELECT COUNT(*) ${ARTICLE_FILTER}`).pluck().get(params), 'pageOfArticles') ?? 0;
  return { articles, total };
}

/**
 * The articles the filter selects that come after `after` in newest-first order, at most
 * `limit`: a page that stays right while new articles arrive (keyset, on the
 * articles_first_captured index; an offset would shift under the reader).
 */
export function articlesAfter(db: Db, filter: ArticleFilter, after: { firstCaptured: string; id: number } | null, limit: number): ArticleSummary[] {
  return checkedRows(articleSummary, db.prepare(`${ARTICLE_SUMMARY} AND (@afterAt IS NULL OR articles.first_captured < @afterAt OR (articles.first_captured = @afterAt AND articles.id < @afterId))
    ORDER BY articles.first_captured DESC, articles.id DESC LIMIT @limit`)
    .all({ ...filterParams(filter), afterAt: after?.firstCaptured ?? null, afterId: after?.id ?? 0, limit }), 'articlesAfter');
}
