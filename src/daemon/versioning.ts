import {
  addVersion, articleOfItem, createArticle, latestVersion, nextCheck, recordCheck, type ArticleRow, type CheckedPage, type VersionContent,
  type VersionRow,
} from '../archive/articles.js';
import { diffObjects } from '../archive/diff.js';
import { shareExtractionContent, type PendingSnapshot, type WrapperRow } from '../archive/extractions.js';
import { normalizeArticle, objectHash, type NormalizedObject } from '../archive/normalize.js';
import type { ArticleObject } from '../extract/extract.js';
import type { PipelineContext } from './pipeline.js';

/**
 * Change detection (DESIGN §6): each extraction of an item's page is compared with the article's
 * latest version by the hash of its normalized object. Equal → an *unchanged* check; different →
 * a new version with its diff. When the extraction method or wrapper changed since that version,
 * the version's snapshot is re-extracted the way the new one was before anything is declared
 * edited: a better wrapper is not an edit.
 */

export type Outcome = 'first' | 'unchanged' | 'changed' | 'failed' | 'skipped';

/** Re-extracts a stored snapshot with the given wrapper (or none), for like-with-like comparison. */
export type Reextract = (snapshotId: number, wrapper: WrapperRow | null) => ArticleObject | null;

function contentOf(snapshot: PendingSnapshot, article: ArticleObject, wrapperId: number | null): VersionContent {
  const object = normalizeArticle(article);
  return {
    snapshotId: snapshot.snapshot_id, capturedAt: snapshot.fetched_at, method: article.method, wrapperId,
    title: article.title, byline: article.byline, published: article.published, text: article.text, html: article.html,
    object, hash: objectHash(object),
  };
}

/**
 * The object to compare the new extraction with: the latest version's, or — when that version
 * was extracted another way — its snapshot re-extracted the new way.
 */
function comparable(latest: VersionRow, content: VersionContent, wrapper: WrapperRow | null, reextract: Reextract): { object: NormalizedObject; hash: string; note: string | null } {
  const stored = JSON.parse(latest.blocks) as NormalizedObject;
  if (latest.method === content.method && latest.wrapper_id === content.wrapperId) return { object: stored, hash: latest.hash, note: null };
  const again = reextract(latest.snapshot_id, wrapper);
  if (!again || again.method === 'none') return { object: stored, hash: latest.hash, note: null };
  const object = normalizeArticle(again);
  const how = (method: string, wrapperId: number | null) => (wrapperId === null ? method : `${method} (wrapper ${wrapperId})`);
  return { object, hash: objectHash(object), note: `extraction changed from ${how(latest.method, latest.wrapper_id)} to ${how(content.method, content.wrapperId)}; compared like with like` };
}

/**
 * Records what one extraction of an item's page means for its article. Runs inside the
 * extraction's transaction, so a kill leaves both or neither.
 */
export function recordVersion(context: PipelineContext, snapshot: PendingSnapshot, article: ArticleObject, wrapper: WrapperRow | null, reextract: Reextract): Outcome {
  const { db } = context;
  const { revisit } = context.settings;
  const existing: ArticleRow | undefined = articleOfItem(db, snapshot.item_id);
  const page: CheckedPage = { at: snapshot.fetched_at, status: snapshot.status, snapshotId: snapshot.snapshot_id, headers: JSON.parse(snapshot.headers) as Record<string, string> };
  if (article.method === 'none') {
    if (!existing) return 'skipped';
    recordCheck(db, existing, page, 'failed', nextCheck(revisit, existing.revisit_step, false, page.at), article.reason ?? 'nothing extracted');
    return 'failed';
  }
  const content = contentOf(snapshot, article, article.method === 'forest' ? wrapper?.id ?? null : null);
  if (!existing) {
    createArticle(db, { itemId: snapshot.item_id, feedId: snapshot.feed_id, url: snapshot.url, finalUrl: snapshot.final_url, canonicalUrl: snapshot.canonical_url },
      content, page, nextCheck(revisit, 0, false, page.at));
    shareExtractionContent(db, snapshot.snapshot_id, content.hash);
    return 'first';
  }
  const latest = latestVersion(db, existing.id);
  if (!latest) throw new Error(`article ${existing.id} has no version`);
  if (latest.hash === content.hash) {
    recordCheck(db, existing, page, 'unchanged', nextCheck(revisit, existing.revisit_step, false, page.at), null);
    shareExtractionContent(db, snapshot.snapshot_id, content.hash);
    return 'unchanged';
  }
  const previous = comparable(latest, content, article.method === 'forest' ? wrapper : null, reextract);
  if (previous.hash === content.hash) {
    recordCheck(db, existing, page, 'unchanged', nextCheck(revisit, existing.revisit_step, false, page.at), previous.note);
    return 'unchanged';
  }
  const diff = diffObjects(previous.object, content.object);
  addVersion(db, existing, content, diff, page, nextCheck(revisit, existing.revisit_step, true, page.at), previous.note);
  shareExtractionContent(db, snapshot.snapshot_id, content.hash);
  return 'changed';
}
