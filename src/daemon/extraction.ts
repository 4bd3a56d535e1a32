import { getBlob } from '../archive/blobs.js';
import {
  activeWrapper, addTemplate, itemExtractedBefore, pagesOfTemplate, pendingExtractions, recentSnapshotsOfTemplate, saveExtraction, snapshotById, storeWrapper,
  templatesOf, type PendingSnapshot, type TemplateRow,
} from '../archive/extractions.js';
import { preparePage, type PreparedPage } from '../extract/dom.js';
import { emptyArticle, extractFromPage, notHtmlReason, type ArticleObject } from '../extract/extract.js';
import { learnFromSamples } from '../extract/learn.js';
import { closestTemplate, structureSignature } from '../extract/template.js';
import type { PipelineContext } from './pipeline.js';
import { recordVersion, type Outcome, type Reextract } from './versioning.js';

/**
 * Extraction in the daemon: every captured page is extracted and stored with the method and
 * wrapper used. Pages are sorted into templates per feed; a template gets a FOREST wrapper once
 * it has `extract.learnAfter` pages, re-learned at 5 and 10 pages and every 10 after, and at once
 * when the wrapper stops matching (a redesign). A new wrapper re-extracts the template's pages,
 * and a page whose result differs is updated.
 */

const RELEARN_FROM = 10;
const REEXTRACT_LIMIT = 50;

function learningDue(pages: number, learnAfter: number): boolean {
  return pages === learnAfter || pages === 5 || pages === 10 || (pages > 10 && pages % 10 === 0);
}

function options(snapshot: PendingSnapshot) {
  return { feedTitle: snapshot.title, feedSummary: snapshot.summary, feedPublished: snapshot.published, feedUpdated: snapshot.updated };
}

function loadPage(context: PipelineContext, snapshot: PendingSnapshot): { page: PreparedPage } | { reason: string } {
  const body = getBlob(context.db, snapshot.sha256);
  if (!body) return { reason: 'snapshot body missing' };
  const reason = notHtmlReason(body, snapshot.content_type, context.settings.extract.maxBytes);
  if (reason) return { reason };
  return { page: preparePage(body, { url: snapshot.final_url, contentType: snapshot.content_type }) };
}

function relearn(context: PipelineContext, template: TemplateRow, reason: string): void {
  const { db, log } = context;
  const started = performance.now();
  const samples = recentSnapshotsOfTemplate(db, template.id, RELEARN_FROM).flatMap((snapshot) => {
    const loaded = loadPage(context, snapshot);
    return 'page' in loaded ? [{ snapshot, page: loaded.page }] : [];
  });
  if (samples.length < 2) return;
  const { wrapper } = learnFromSamples(samples.map(({ snapshot, page }) => ({ input: page, feedTitle: snapshot.title, feedSummary: snapshot.summary })));
  if (!wrapper) {
    log.info({ template: template.id, reason }, 'no wrapper could be learned');
    return;
  }
  const wrapperId = storeWrapper(db, template.feed_id, template.id, wrapper, reason);
  let updated = 0;
  for (const snapshot of recentSnapshotsOfTemplate(db, template.id, REEXTRACT_LIMIT)) {
    const loaded = loadPage(context, snapshot);
    if (!('page' in loaded)) continue;
    const article = extractFromPage(loaded.page, { ...options(snapshot), wrapper });
    if (article.text !== snapshot.text) {
      saveExtraction(db, snapshot.snapshot_id, snapshot.item_id, template.id, article.method === 'forest' ? wrapperId : null, article);
      updated++;
    }
  }
  log.info({ feed: template.feed_id, template: template.id, wrapper: wrapper.xpath, samples: samples.length, reason, reextracted: updated, ms: Math.round(performance.now() - started) }, 'wrapper learned');
}

/** Re-extracts a stored snapshot with a given wrapper (or single-page), for like-with-like comparison. */
function reextractor(context: PipelineContext, snapshot: PendingSnapshot): Reextract {
  return (snapshotId, wrapper) => {
    const stored = snapshotById(context.db, snapshotId);
    if (!stored) return null;
    const loaded = loadPage(context, stored);
    // The feed fields of the new capture: the same signifiers on both sides.
    return 'page' in loaded ? extractFromPage(loaded.page, { ...options(snapshot), wrapper: wrapper?.wrapper ?? null }) : null;
  };
}

export interface SnapshotOutcome {
  article: ArticleObject;
  outcome: Outcome;
}

/**
 * Extracts one snapshot and records what it means for its article, in one transaction (a kill
 * leaves the snapshot pending, and a restart does it again); then learns a wrapper when due.
 */
export function extractSnapshot(context: PipelineContext, snapshot: PendingSnapshot): SnapshotOutcome {
  const { db, settings } = context;
  const loaded = loadPage(context, snapshot);
  const revisit = itemExtractedBefore(db, snapshot.item_id, snapshot.snapshot_id);
  const done = db.transaction(() => {
    if (!('page' in loaded)) {
      const article = emptyArticle(loaded.reason);
      saveExtraction(db, snapshot.snapshot_id, snapshot.item_id, null, null, article);
      return { article, template: null, active: null, outcome: recordVersion(context, snapshot, article, null, reextractor(context, snapshot)) };
    }
    const signature = structureSignature(loaded.page);
    const template = closestTemplate(signature, templatesOf(db, snapshot.feed_id)) ?? addTemplate(db, snapshot.feed_id, signature);
    const active = activeWrapper(db, template.id);
    const article = extractFromPage(loaded.page, { ...options(snapshot), wrapper: active?.wrapper ?? null });
    saveExtraction(db, snapshot.snapshot_id, snapshot.item_id, template.id, article.method === 'forest' ? active!.id : null, article);
    return { article, template, active, outcome: recordVersion(context, snapshot, article, active, reextractor(context, snapshot)) };
  })();
  const { article, template, active, outcome } = done;
  // Only new pages teach: a revisit of a page the wrapper never matched would re-learn on every
  // check.
  if (template && !revisit) {
    const pages = pagesOfTemplate(db, template.id);
    if (active && article.method !== 'forest') relearn(context, template, `stopped matching at page ${pages}`);
    else if (learningDue(pages, settings.extract.learnAfter)) relearn(context, template, `${pages} pages`);
  }
  return { article, outcome };
}

/** Extracts up to `limit` captured pages that have no extraction yet. */
export function extractPending(context: PipelineContext, limit: number): number {
  const pending = pendingExtractions(context.db, limit);
  for (const snapshot of pending) {
    const started = performance.now();
    try {
      const { article, outcome } = extractSnapshot(context, snapshot);
      context.log.info({ url: snapshot.final_url, method: article.method, article: outcome, words: article.text.split(/\s+/).filter(Boolean).length, ...(article.reason ? { reason: article.reason } : {}), ms: Math.round(performance.now() - started) }, 'extracted');
    } catch (error) {
      const failed = emptyArticle(`error: ${(error as Error).message}`);
      context.db.transaction(() => {
        saveExtraction(context.db, snapshot.snapshot_id, snapshot.item_id, null, null, failed);
        recordVersion(context, snapshot, failed, null, () => null);
      })();
      context.log.error({ url: snapshot.final_url, err: error }, 'extraction failed');
    }
  }
  return pending.length;
}
