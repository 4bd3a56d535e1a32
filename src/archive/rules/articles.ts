import { z } from 'zod';
import { groupedByCanonical } from '../../net/site.js';
import type { NextCheck } from '../../schedule/revisit.js';
import type { ObjectDiff } from '../diff.js';
import { unpackContent } from '../packed-content.js';
import { count, integer, nullableInteger, nullableText, text } from '../rows.js';
import { inserted, row, rows, run, type Steps } from '../steps.js';
import type { ArticleState, ArticleSummary, CheckedPage, CheckResult, FetchedPage, RedoneVersion, RevisitRecord, StoredComparisonKey, VersionContent, VersionDecision } from '../store.js';
import { insertSnapshot, queueRequisites } from './captures.js';

/**
 * Articles, their versions and the checks between them, on either engine (docs/architecture.md
 * §6; steps.ts says how a rule runs). An article is one feed item's object; a version is stored
 * only when the normalized object's hash changes; every look at the page is a check. Content is
 * stored once per object hash in `contents`, which each engine indexes for search in its schema
 * (an FTS5 trigger on SQLite, a generated tsvector on PostgreSQL).
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
  /** Checks in a row that got no answer (migration 0025): the next is a retry. */
  failed_checks: integer,
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
  /** Re-extracted when the method changed (migration 0026): how it was made first, and when it was made again. */
  first_method: nullableText,
  first_hash: nullableText,
  reextracted_at: nullableText,
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

/** The article of an item; `lock`: held until the transaction ends, so that two extractions of one article decide one after the other. */
export function articleOfItem(itemId: number, options: { lock?: boolean } = {}): Steps<ArticleRow | undefined> {
  return row(articleRow, 'SELECT * FROM articles WHERE item_id = ?', [itemId], 'articleOfItem', options);
}

export function articleById(id: number, options: { lock?: boolean } = {}): Steps<ArticleRow | undefined> {
  return row(articleRow, 'SELECT * FROM articles WHERE id = ?', [id], 'articleById', options);
}

export function versionOf(articleId: number, n: number): Steps<VersionRow | undefined> {
  return row(versionRow, `SELECT ${VERSION_COLUMNS} FROM versions JOIN contents ON contents.hash = versions.hash
    WHERE versions.article_id = ? AND versions.n = ?`, [articleId, n], 'versionOf');
}

export function versionsOf(articleId: number): Steps<VersionRow[]> {
  return rows(versionRow, `SELECT ${VERSION_COLUMNS} FROM versions JOIN contents ON contents.hash = versions.hash
    WHERE versions.article_id = ? ORDER BY versions.n`, [articleId], 'versionsOf');
}

/** The versions of an item's article, oldest first (none: the item has no article). */
export function versionsOfItem(itemId: number): Steps<VersionRow[]> {
  return rows(versionRow, `SELECT ${VERSION_COLUMNS} FROM versions JOIN contents ON contents.hash = versions.hash JOIN articles ON articles.id = versions.article_id
    WHERE articles.item_id = ? ORDER BY versions.n`, [itemId], 'versionsOfItem');
}

export function checksOf(articleId: number): Steps<CheckRow[]> {
  return rows(checkRow, 'SELECT * FROM checks WHERE article_id = ? ORDER BY at, id', [articleId], 'checksOf');
}

const articleUrls = z.object({ id: integer, url: text, finalUrl: nullableText });

/** Other articles (in other feeds, or other items) with the same canonical URL, of the same site as each (net/site.ts). */
export function* sameArticleElsewhere(article: ArticleRow): Steps<number[]> {
  if (!article.canonical_url) return [];
  const others = yield* rows(articleUrls, 'SELECT id, url, final_url AS "finalUrl" FROM articles WHERE canonical_url = ? AND id <> ? ORDER BY id',
    [article.canonical_url, article.id], 'sameArticleElsewhere');
  return groupedByCanonical({ id: article.id, url: article.url, finalUrl: article.final_url, canonicalUrl: article.canonical_url }, others).map((other) => other.id);
}

const storedObject = z.object({ blocks: text, packed: z.instanceof(Uint8Array).nullable() });

/** The article's comparison key, with its object. */
export function* comparisonKeyOf(article: ArticleRow): Steps<StoredComparisonKey | null> {
  if (article.compare_hash === null || article.compare_method === null || article.compare_snapshot_id === null) return null;
  const stored = article.compare_object === null ? yield* row(storedObject, 'SELECT blocks, packed FROM contents WHERE hash = ?', [article.compare_hash], 'comparisonKeyOf') : undefined;
  const object = article.compare_object ?? (stored && (stored.packed === null ? stored.blocks : unpackContent(stored.packed).blocks));
  if (object === undefined) return null;
  return {
    hash: article.compare_hash, method: article.compare_method, wrapperId: article.compare_wrapper_id, snapshotId: article.compare_snapshot_id, object,
    extractor: article.compare_extractor, source: article.compare_source,
  };
}

/** A key rebased onto a new way of extracting: its object is kept, since no version holds it. */
export function* setComparisonKey(articleId: number, key: StoredComparisonKey): Steps<void> {
  yield* run(`UPDATE articles SET compare_hash = ?, compare_method = ?, compare_wrapper_id = ?, compare_snapshot_id = ?, compare_object = ?, compare_extractor = ?, compare_source = ? WHERE id = ?`,
    [key.hash, key.method, key.wrapperId, key.snapshotId, key.object, key.extractor, key.source, articleId]);
}

/**
 * An object's content, stored once per hash: the HTML and the object stay packed as the pool packed
 * them (packed-content.ts); the text is kept as text, for the search index.
 */
function* insertContent(content: Pick<VersionContent, 'hash' | 'title' | 'byline' | 'published' | 'text' | 'packed'>): Steps<void> {
  yield* run(`INSERT INTO contents (hash, title, byline, published, text, html, blocks, packed) VALUES (?, ?, ?, ?, ?, '', '', ?) ON CONFLICT (hash) DO NOTHING`,
    [content.hash, content.title, content.byline, content.published, content.text, content.packed]);
}

function* insertVersion(articleId: number, n: number, content: VersionContent, diff: ObjectDiff | null): Steps<void> {
  yield* insertContent(content);
  // A new version is the new comparison key (its object is in `contents`).
  yield* run(`UPDATE articles SET compare_hash = ?, compare_method = ?, compare_wrapper_id = ?, compare_snapshot_id = ?, compare_object = NULL, compare_extractor = ?, compare_source = ? WHERE id = ?`,
    [content.hash, content.method, content.wrapperId, content.snapshotId, content.extractor, content.source, articleId]);
  yield* insertVersionRow(articleId, n, content, diff);
}

/** What a version row names: its capture, how its object was made, and the object's hash (its content in `contents`). */
export type VersionRef = Pick<VersionContent, 'snapshotId' | 'capturedAt' | 'method' | 'wrapperId' | 'hash'>;

function* insertVersionRow(articleId: number, n: number, ref: VersionRef, diff: ObjectDiff | null): Steps<void> {
  yield* run(`INSERT INTO versions (article_id, n, snapshot_id, captured_at, method, wrapper_id, hash, change, summary, diff) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [articleId, n, ref.snapshotId, ref.capturedAt, ref.method, ref.wrapperId, ref.hash,
      JSON.stringify(diff?.kinds ?? []), diff ? diff.summary : 'first capture', diff ? JSON.stringify(diff) : null]);
}

/**
 * Version n + 1 of an object the archive already holds (its content and the comparison key stay
 * as they are: a picture edit, rules/pictures.ts), with its check.
 */
export function* addVersionRow(article: ArticleRow, ref: VersionRef, diff: ObjectDiff, next: NextCheck): Steps<number> {
  const n = article.versions + 1;
  yield* insertVersionRow(article.id, n, ref, diff);
  yield* run('UPDATE articles SET versions = ? WHERE id = ?', [n, article.id]);
  // The page's validators stay: no page was fetched for this check, only its pictures.
  const page: CheckedPage = { at: ref.capturedAt, status: null, snapshotId: ref.snapshotId };
  yield* writeCheck(article.id, page, { result: 'changed', versionN: n, reason: diff.summary }, next);
  return n;
}

/** What a check found: its result, the version it saw or made, and why. */
interface CheckOutcome { result: CheckRow['result']; versionN: number | null; reason: string | null }

/**
 * A check of an article: its row, and on the article the check's time, the next one and the count
 * of its checks stored (what status sums per feed, without reading the checks; retention's deletes
 * take theirs off). Validators (ETag, Last-Modified) only from a 200, the only answer whose body
 * they describe.
 */
function* writeCheck(articleId: number, page: CheckedPage, outcome: CheckOutcome, next: NextCheck, title?: string | null): Steps<void> {
  yield* run('INSERT INTO checks (article_id, at, status, result, snapshot_id, version_n, reason) VALUES (?, ?, ?, ?, ?, ?, ?)',
    [articleId, page.at, page.status, outcome.result, page.snapshotId, outcome.versionN, outcome.reason]);
  yield* run(`UPDATE articles SET last_checked = @at, revisit_step = @step, next_check_at = @next, failed_checks = @failures, checks = checks + 1,
      etag = CASE WHEN CAST(@status AS INTEGER) = 200 THEN CAST(@etag AS TEXT) ELSE etag END,
      last_modified = CASE WHEN CAST(@status AS INTEGER) = 200 THEN CAST(@lastModified AS TEXT) ELSE last_modified END,
      title = COALESCE(CAST(@title AS TEXT), title)
    WHERE id = @id`, {
    id: articleId, at: page.at, step: next.step, next: next.at, failures: next.failures ?? 0, status: page.status, title: title ?? null,
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
export function* createArticle(article: NewArticle, content: VersionContent, page: CheckedPage, next: NextCheck): Steps<number> {
  const id = yield* inserted(`INSERT INTO articles (item_id, feed_id, url, final_url, canonical_url, title, versions, first_captured)
    VALUES (?, ?, ?, ?, ?, ?, 1, ?) RETURNING id`, [article.itemId, article.feedId, article.url, article.finalUrl, article.canonicalUrl, content.title, content.capturedAt], 'createArticle');
  yield* insertVersion(id, 1, content, null);
  yield* writeCheck(id, page, { result: 'changed', versionN: 1, reason: 'first capture' }, next, content.title);
  return id;
}

/** A check that found an edit: version n + 1 with its diff. */
export function* addVersion(article: ArticleRow, content: VersionContent, diff: ObjectDiff, page: CheckedPage, next: NextCheck, reason: string | null): Steps<number> {
  const n = article.versions + 1;
  yield* insertVersion(article.id, n, content, diff);
  yield* run('UPDATE articles SET versions = ? WHERE id = ?', [n, article.id]);
  yield* writeCheck(article.id, page, { result: 'changed', versionN: n, reason: yield* noteComeBack(article, reason) }, next, content.title);
  return n;
}

/** Records what change detection decided for a capture of the item of `article` (in the caller's transaction). */
export function* applyDecision(article: ArticleRow | undefined, decision: VersionDecision): Steps<void> {
  if (decision.kind === 'none') return;
  if (decision.kind === 'first') {
    yield* createArticle(decision.article, decision.content, decision.page, decision.next);
    return;
  }
  if (!article) throw new Error(`a ${decision.kind} needs an article, and the item has none`);
  if (decision.kind === 'check') {
    yield* insertCheckOf(article, decision.page, decision.result, decision.next, decision.reason);
    // Only while the key still holds the object found: the key may have changed since the extraction was compared with it.
    if (decision.sameObject) yield* run('UPDATE articles SET compare_source = ? WHERE id = ? AND compare_hash = ?', [decision.sameObject.source, article.id, decision.sameObject.hash]);
  } else yield* addVersion(article, decision.content, decision.diff, decision.page, decision.next, decision.reason);
}

const latestVersion = z.object({ length: count, captured_at: text });

/** An article as change detection reads it: its latest version's length (what a near-empty page is measured against) and time. */
export function* articleStateOf(article: ArticleRow): Steps<ArticleState> {
  const latest = yield* row(latestVersion, `SELECT length(contents.text) AS length, versions.captured_at
    FROM versions JOIN contents ON contents.hash = versions.hash WHERE versions.article_id = ? AND versions.n = ?`, [article.id, article.versions], 'articleStateOf');
  return {
    id: article.id, url: article.url, canonicalUrl: article.canonical_url, revisitStep: article.revisit_step, latestTextLength: latest?.length ?? 0,
    latestCapturedAt: latest?.captured_at ?? null,
  };
}

/**
 * A check that found the page again after it was gone: the article is no longer marked gone, and
 * the check says since when it had been.
 */
function* noteComeBack(article: ArticleRow, reason: string | null): Steps<string | null> {
  if (article.gone_since === null) return reason;
  yield* run('UPDATE articles SET gone_since = NULL WHERE id = ?', [article.id]);
  return `back (gone since ${article.gone_since})${reason ? `; ${reason}` : ''}`;
}

/**
 * A check that found the same object (`unchanged`), none at all (`failed`), or a page that no
 * longer shows the article (`unavailable`).
 */
export function* recordCheck(articleId: number, page: CheckedPage, result: 'unchanged' | 'failed' | 'unavailable', next: NextCheck, reason: string | null): Steps<void> {
  yield* insertCheckOf(yield* storedArticle(articleId), page, result, next, reason);
}

/**
 * The article's versions re-extracted the way now in force (RedoneVersion), in the caller's
 * transaction: each keeps how it was first made; a version that changed since it was read is left
 * alone, and so is the diff that leads to it.
 */
export function* recordRedoneVersions(articleId: number, redone: RedoneVersion[], at: string): Steps<void> {
  for (const version of redone) {
    if (version.content) {
      yield* insertContent(version.content);
      const changed = yield* run(`UPDATE versions SET first_method = COALESCE(first_method, method), first_hash = COALESCE(first_hash, hash), reextracted_at = ?,
          method = ?, wrapper_id = ?, hash = ? WHERE article_id = ? AND n = ? AND hash = ?`,
      [at, version.content.method, version.content.wrapperId, version.content.hash, articleId, version.n, version.was]);
      if (changed === 0) continue;
    }
    if (version.diff) {
      yield* run('UPDATE versions SET change = ?, summary = ?, diff = ? WHERE article_id = ? AND n = ? AND hash = ?',
        [JSON.stringify(version.diff.kinds), version.diff.summary, JSON.stringify(version.diff), articleId, version.n, version.content?.hash ?? version.was]);
    }
  }
}

/** A check put off to `at` without being made (only while one is scheduled: a check that came in between stands). */
export function* postponeCheck(articleId: number, at: string): Steps<void> {
  yield* run('UPDATE articles SET next_check_at = ? WHERE id = ? AND next_check_at IS NOT NULL', [at, articleId]);
}

/** The check (in the caller's transaction), and the next one. */
function* insertCheckOf(article: ArticleRow, page: CheckedPage, result: 'unchanged' | 'failed' | 'unavailable', next: NextCheck, reason: string | null): Steps<void> {
  yield* writeCheck(article.id, page, { result, versionN: article.versions, reason: result === 'unchanged' ? yield* noteComeBack(article, reason) : reason }, next);
}

/** An article that must exist (articles are never deleted): its absence is a bug, not a state. Locked until the transaction ends. */
function* storedArticle(id: number): Steps<ArticleRow> {
  const found = yield* articleById(id, { lock: true });
  if (!found) throw new Error(`article ${id} is not in the archive`);
  return found;
}

/**
 * A revisit's capture, kept (RevisitRecord): queued for extraction — the article waits (no next
 * check) until the page is extracted and compared, and that comparison records the check — or
 * recorded at once as a check. A page gone (404/410) marks the article gone from then on; its
 * response is kept, so that exports show what the server said. A byte-identical payload's row
 * keeps its time, status, headers and digest (the body is stored once).
 */
export function* recordRevisit(articleId: number, page: FetchedPage, record: RevisitRecord): Steps<number> {
  const article = yield* storedArticle(articleId);
  const snapshotId = yield* insertSnapshot(article.item_id, page, record.body, record.kind === 'extract' ? 'revisit' : null);
  if (record.kind === 'extract') {
    if (record.requisites && record.body.size > 0) yield* queueRequisites(snapshotId, page.fetchedAt.toISOString());
    yield* run('UPDATE articles SET next_check_at = NULL WHERE id = ?', [article.id]);
    return snapshotId;
  }
  const checked: CheckedPage = { at: page.fetchedAt.toISOString(), status: page.status, snapshotId, headers: page.headers };
  let reason: string | null;
  if (record.kind === 'gone') {
    yield* run('UPDATE articles SET gone_since = COALESCE(gone_since, ?) WHERE id = ?', [checked.at, article.id]);
    reason = `HTTP ${page.status}${article.gone_since ? ` (gone since ${article.gone_since})` : ''}`;
  } else {
    reason = record.kind === 'identical' ? yield* noteComeBack(article, 'identical payload') : record.reason;
  }
  yield* writeCheck(article.id, checked, { result: record.kind === 'identical' ? 'unchanged' : record.kind, versionN: article.versions, reason }, record.next);
  return snapshotId;
}

const articleAt = z.object({ id: integer, title: nullableText });

/** Another archived article whose page is at `url` (a revisit redirected there), if any. */
export function* otherArticleAt(url: string, exceptId: number): Steps<{ id: number; title: string | null } | null> {
  return (yield* row(articleAt, 'SELECT id, title FROM articles WHERE url = ? AND id <> ? LIMIT 1', [url, exceptId], 'otherArticleAt')) ?? null;
}

/** The article of an item is checked next at `at` (a feed item that changed is revisited at once). */
export function* revisitItemAt(itemId: number, at: string): Steps<void> {
  yield* run('UPDATE articles SET next_check_at = ? WHERE item_id = ?', [at, itemId]);
}
