import type { ArticleObject } from '../../extract/extract.js';
import type { Wrapper } from '../../extract/wrapper.js';
import { captureOf } from '../domain-rows.js';
import type { Steps } from '../steps.js';
import type { Decide, ExtractionRecord, FetchedPage, StoredCapture, RedoneVersion, StoredComparisonKey, StoredExtraction } from '../store.js';
import { applyDecision, articleById, articleOfItem, articleStateOf, recordRedoneVersions, setComparisonKey } from './articles.js';
import { dropCaptureBody, insertSnapshot, setCanonicalUrl } from './captures.js';
import { addTemplate, countTemplatePage, saveExtraction, snapshotById, storeWrapper } from './extractions.js';

/**
 * The daemon's transactions whose writes depend on what is stored (WorkStore), written once: each
 * engine runs one as a single transaction (steps.ts), after its own checks (PostgreSQL's fencing
 * of claimed work). The article's row is read locked, so that another connection deciding for the
 * same article waits for this one.
 */

/** Thrown inside a transaction to undo it: the revisit's object was not the archived one after all. */
class NotUnchanged extends Error {}

/**
 * Runs `transaction` (an engine's run of recordRevisitWithoutBody): true when the revisit was
 * kept as its digest, false when it was undone because the page needs its body stored.
 */
export async function keptWithoutBody(transaction: () => unknown): Promise<boolean> {
  try {
    await transaction();
    return true;
  } catch (error) {
    if (error instanceof NotUnchanged) return false;
    throw error;
  }
}

/**
 * An extraction compared and recorded: its template (new ones added), the capture's canonical
 * link, the article's rebased key, the decision change detection makes on the rows read here, the
 * extraction itself — and a capture that found the same object keeps its digest and headers, not
 * its bytes (storage grows with what changed, not with how often we look).
 */
export function* recordExtraction(
  capture: StoredCapture, extraction: ExtractionRecord, options: { rebasedKey: StoredComparisonKey | null; redone?: RedoneVersion[]; countsForTemplate: boolean }, decide: Decide,
): Steps<StoredExtraction> {
  const locked = yield* articleOfItem(capture.itemId, { lock: true });
  const { template } = extraction;
  const templateId = template === null ? null : 'id' in template ? template.id : yield* addTemplate(capture.feedId, template.signature);
  yield* setCanonicalUrl(capture.snapshotId, extraction.canonicalUrl);
  if (locked && options.rebasedKey) yield* setComparisonKey(locked.id, options.rebasedKey);
  if (locked && options.redone?.length) yield* recordRedoneVersions(locked.id, options.redone, capture.fetchedAt);
  const article = locked && options.rebasedKey ? yield* articleById(locked.id) : locked;
  const pages = templateId !== null && options.countsForTemplate ? yield* countTemplatePage(templateId) : null;
  const decision = decide(article ? yield* articleStateOf(article) : null, capture);
  yield* applyDecision(article, decision);
  yield* saveExtraction(capture.snapshotId, capture.itemId, templateId, extraction.wrapperId, extraction.article, extraction.hash);
  if (decision.kind === 'check' && decision.result === 'unchanged') yield* dropCaptureBody(capture.snapshotId);
  return { decision, templateId, pages };
}

/**
 * A revisit whose page was extracted before its body was stored: kept as its digest alone when
 * the object is the archived one. Anything else needs the body: NotUnchanged undoes the
 * transaction, and the caller stores the capture.
 */
export function* recordRevisitWithoutBody(
  itemId: number, page: FetchedPage, digest: string, extraction: ExtractionRecord & { template: { id: number } }, decide: Decide,
): Steps<void> {
  const article = yield* articleOfItem(itemId, { lock: true });
  const snapshotId = yield* insertSnapshot(itemId, page, { digest }, null);
  yield* setCanonicalUrl(snapshotId, extraction.canonicalUrl);
  const stored = yield* snapshotById(snapshotId);
  if (!stored) throw new Error(`capture ${snapshotId} vanished inside its own transaction`);
  const decision = decide(article ? yield* articleStateOf(article) : null, captureOf(stored));
  if (decision.kind !== 'check' || decision.result !== 'unchanged') throw new NotUnchanged();
  yield* applyDecision(article, decision);
  yield* saveExtraction(snapshotId, itemId, extraction.template.id, extraction.wrapperId, extraction.article, extraction.hash);
}

/** A learned wrapper and the pages it extracted again, stored together. */
export function* storeWrapperWith(feedId: number, templateId: number, wrapper: Wrapper, reason: string, reextracted: Array<{ snapshotId: number; itemId: number; article: ArticleObject }>): Steps<number> {
  const id = yield* storeWrapper(feedId, templateId, wrapper, reason);
  for (const page of reextracted) yield* saveExtraction(page.snapshotId, page.itemId, templateId, page.article.method === 'forest' ? id : null, page.article);
  return id;
}
