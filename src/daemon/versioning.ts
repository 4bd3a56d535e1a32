import type { NormalizedObject } from '../archive/normalize.js';
import { packContent } from '../archive/packed-content.js';
import type { ArticleState, CheckedPage, StoredCapture, VersionContent, VersionDecision } from '../archive/store.js';
import { EXTRACTOR_VERSION, type ArticleObject } from '../extract/extract.js';
import { nextCheck } from '../schedule/revisit.js';
import { canonicalVerdict, textVerdict } from './availability.js';
import type { Comparison } from './tasks.js';

/**
 * Change detection (docs/architecture.md §6): each extraction of an item's page is compared with the article's
 * comparison key by the hash of its normalized object. Equal → an *unchanged* check; different →
 * a new version with its diff. The comparison itself (hash, diff, and re-extracting the key's
 * snapshot when a new wrapper changed how pages are extracted: a better wrapper is not an edit)
 * runs in the worker pool; `decideVersion` turns its verdict into what the archive records. It is
 * pure: the store runs it inside the transaction that stores the extraction, on the article as
 * that transaction reads it, so a kill leaves both or neither.
 */

export type Outcome = 'first' | 'unchanged' | 'changed' | 'unavailable' | 'failed' | 'skipped';

/** What the pool made of one capture. */
export interface Extracted {
  article: ArticleObject;
  object: NormalizedObject | null;
  hash: string | null;
  /** The HTML and the object packed for storage (packed-content.ts); null when no version may come of it (no object, or the key's). */
  packed: Uint8Array | null;
  wrapperId: number | null;
  canonicalUrl: string | null;
}

/** The revisit settings the schedule of the next check follows. */
export interface RevisitSettings {
  enabled: boolean;
  after: readonly number[];
}

function contentOf(capture: StoredCapture, extracted: Extracted & { object: NormalizedObject; hash: string }): VersionContent {
  const { article } = extracted;
  return {
    snapshotId: capture.snapshotId, capturedAt: capture.fetchedAt, method: article.method, wrapperId: extracted.wrapperId,
    title: article.title, byline: article.byline, published: article.published, text: article.text, html: article.html,
    object: extracted.object, hash: extracted.hash, extractor: EXTRACTOR_VERSION, source: article.source,
    // The pool packs whatever may become a version; only an extraction that found the key's
    // object comes without, and it becomes one only if the article is not what it was made for.
    packed: extracted.packed ?? packContent(article.html, extracted.object),
  };
}

const hasObject = (extracted: Extracted): extracted is Extracted & { object: NormalizedObject; hash: string } => extracted.object !== null && extracted.hash !== null;

/** What one extraction of an item's page means for its article (`existing`: null when the item has none yet). */
export function decideVersion(existing: ArticleState | null, capture: StoredCapture, extracted: Extracted, comparison: Comparison, note: string | null, revisit: RevisitSettings): VersionDecision {
  const page: CheckedPage = { at: capture.fetchedAt, status: capture.status, snapshotId: capture.snapshotId, headers: capture.headers };
  if (!hasObject(extracted)) {
    if (!existing) return { kind: 'none' };
    return { kind: 'check', result: 'failed', page, next: nextCheck(revisit, existing.revisitStep, false, page.at), reason: extracted.article.reason ?? 'nothing extracted' };
  }
  if (!existing) {
    return {
      kind: 'first', content: contentOf(capture, extracted), page, next: nextCheck(revisit, 0, false, page.at),
      article: { itemId: capture.itemId, feedId: capture.feedId, url: capture.url, finalUrl: capture.finalUrl, canonicalUrl: extracted.canonicalUrl },
    };
  }
  const unchanged = nextCheck(revisit, existing.revisitStep, false, page.at);
  // Versions follow the order of their captures. A capture older than the latest version's (two
  // revisits queued at once, the newer extracted first) shows a state the article has since left:
  // it is kept as a capture and a check, never as a version after a newer one.
  if (existing.latestCapturedAt !== null && capture.fetchedAt < existing.latestCapturedAt) {
    return { kind: 'check', result: 'failed', page, next: unchanged, reason: `captured before the latest version (${existing.latestCapturedAt}): extracted too late to be a version` };
  }
  // A page that no longer presents the article (availability.ts) is neither an edit nor the same.
  const unavailable = canonicalVerdict(existing.url, existing.canonicalUrl, extracted.canonicalUrl)
    ?? (comparison.kind === 'edited' ? textVerdict(existing.latestTextLength, extracted.article.text.length) : null);
  if (unavailable !== null) return { kind: 'check', result: 'unavailable', page, next: unchanged, reason: unavailable };
  if (comparison.kind === 'same' || comparison.kind === 'first' || comparison.kind === 'rebase') {
    // 'first' and 'rebase' here mean the article had no usable key: nothing to call an edit.
    const source = extracted.article.source;
    const sameObject = comparison.kind === 'same' && source !== null ? { sameObject: { hash: extracted.hash, source } } : {};
    return { kind: 'check', result: 'unchanged', page, next: unchanged, reason: note, ...sameObject };
  }
  return { kind: 'edit', content: contentOf(capture, extracted), diff: comparison.diff, page, next: nextCheck(revisit, existing.revisitStep, true, page.at), reason: note };
}

/** The decision as the daemon's log says it. */
export function outcomeOf(decision: VersionDecision): Outcome {
  switch (decision.kind) {
    case 'none':
      return 'skipped';
    case 'first':
      return 'first';
    case 'check':
      return decision.result;
    case 'edit':
      return 'changed';
  }
}
