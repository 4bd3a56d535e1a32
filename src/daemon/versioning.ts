import {
  addVersion, articleOfItem, createArticle, latestTextLength, recordCheck, type CheckedPage, type VersionContent,
} from '../archive/articles.js';
import type { ObjectDiff } from '../archive/diff.js';
import type { PendingSnapshot } from '../archive/extractions.js';
import type { NormalizedObject } from '../archive/normalize.js';
import { EXTRACTOR_VERSION, type ArticleObject } from '../extract/extract.js';
import { nextCheck } from '../schedule/revisit.js';
import { canonicalVerdict, textVerdict } from './availability.js';
import type { PipelineContext } from './pipeline.js';
import type { Comparison } from './tasks.js';

/**
 * Change detection (docs/architecture.md §6): each extraction of an item's page is compared with the article's
 * comparison key by the hash of its normalized object. Equal → an *unchanged* check; different →
 * a new version with its diff. The comparison itself (hash, diff, and re-extracting the key's
 * snapshot when a new wrapper changed how pages are extracted: a better wrapper is not an edit)
 * runs in the worker pool; this records its verdict, inside the extraction's transaction, before
 * the extraction row (which then points at the version's stored content).
 */

export type Outcome = 'first' | 'unchanged' | 'changed' | 'unavailable' | 'failed' | 'skipped';

/** What the pool made of one capture. */
export interface Extracted {
  article: ArticleObject;
  object: NormalizedObject | null;
  hash: string | null;
  wrapperId: number | null;
  canonicalUrl: string | null;
}

function contentOf(snapshot: PendingSnapshot, extracted: Extracted & { object: NormalizedObject; hash: string }): VersionContent {
  const { article } = extracted;
  return {
    snapshotId: snapshot.snapshot_id, capturedAt: snapshot.fetched_at, method: article.method, wrapperId: extracted.wrapperId,
    title: article.title, byline: article.byline, published: article.published, text: article.text, html: article.html,
    object: extracted.object, hash: extracted.hash, extractor: EXTRACTOR_VERSION,
  };
}

const hasObject = (extracted: Extracted): extracted is Extracted & { object: NormalizedObject; hash: string } => extracted.object !== null && extracted.hash !== null;

/**
 * Records what one extraction of an item's page means for its article. Runs inside the
 * extraction's transaction, so a kill leaves both or neither.
 */
export function recordVersion(context: PipelineContext, snapshot: PendingSnapshot, extracted: Extracted, comparison: Comparison, note: string | null): Outcome {
  const { db } = context;
  const { revisit } = context.settings;
  const existing = articleOfItem(db, snapshot.item_id);
  const page: CheckedPage = { at: snapshot.fetched_at, status: snapshot.status, snapshotId: snapshot.snapshot_id, headers: JSON.parse(snapshot.headers) as Record<string, string> };
  if (!hasObject(extracted)) {
    if (!existing) return 'skipped';
    recordCheck(db, existing, page, 'failed', nextCheck(revisit, existing.revisit_step, false, page.at), extracted.article.reason ?? 'nothing extracted');
    return 'failed';
  }
  const content = contentOf(snapshot, extracted);
  if (!existing) {
    createArticle(db, { itemId: snapshot.item_id, feedId: snapshot.feed_id, url: snapshot.url, finalUrl: snapshot.final_url, canonicalUrl: extracted.canonicalUrl },
      content, page, nextCheck(revisit, 0, false, page.at));
    return 'first';
  }
  // A page that no longer presents the article (availability.ts) is neither an edit nor the same.
  const unavailable = canonicalVerdict(existing.url, existing.canonical_url, extracted.canonicalUrl)
    ?? (comparison.kind === 'edited' ? textVerdict(latestTextLength(db, existing), extracted.article.text.length) : null);
  if (unavailable !== null) {
    recordCheck(db, existing, page, 'unavailable', nextCheck(revisit, existing.revisit_step, false, page.at), unavailable);
    return 'unavailable';
  }
  if (comparison.kind === 'same' || comparison.kind === 'first' || comparison.kind === 'rebase') {
    // 'first' and 'rebase' here mean the article had no usable key: nothing to call an edit.
    recordCheck(db, existing, page, 'unchanged', nextCheck(revisit, existing.revisit_step, false, page.at), note);
    return 'unchanged';
  }
  const diff: ObjectDiff = comparison.diff;
  addVersion(db, existing, content, diff, page, nextCheck(revisit, existing.revisit_step, true, page.at), note);
  return 'changed';
}
