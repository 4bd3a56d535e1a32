import { articleOfItem, comparisonKeyOf, setComparisonKey, type ArticleRow, type StoredComparisonKey } from '../archive/articles.js';
import { storedBlob } from '../archive/blobs.js';
import { isStorageFull } from '../archive/database.js';
import {
  addTemplate, confirmWrapper, countTemplatePage, itemExtractedBefore, recentSnapshotsOfTemplate, saveExtraction, snapshotById, storeWrapper, templateChoicesOf,
  type PendingSnapshot,
} from '../archive/extractions.js';
import { queuedExtractions } from '../archive/queues.js';
import { dropCaptureBody, insertSnapshot, setCanonicalUrl, type FetchedPage } from '../archive/snapshots.js';
import { emptyArticle, wrapperSetAside } from '../extract/extract.js';
import type { PipelineContext } from './pipeline.js';
import type { Comparison, ExtractOutcome, PageInput, RevisitOutcome, TemplateChoice } from './tasks.js';
import { recordVersion, type Outcome } from './versioning.js';

/**
 * Extraction in the daemon: every captured page is extracted, in the worker pool, and stored with
 * the method and wrapper used. Pages are sorted into templates per feed; a template gets a FOREST
 * wrapper once it has `extract.learnAfter` pages, re-learned at 5 and 10 pages and every 10 after,
 * and at once when the wrapper stops matching (a redesign) or the per-page guard sets its object
 * aside (a change inside the template). A new wrapper re-extracts the
 * template's recent pages, and a page whose result differs is updated.
 *
 * The main thread only reads the stored (compressed) bodies and writes the results, each in one
 * short transaction: a kill leaves a snapshot queued, and a restart extracts it again.
 */

const RELEARN_FROM = 10;
const REEXTRACT_LIMIT = 50;
const MAX_CANDIDATES = 256;
const RELEARN_GAP = 3;
/** The gap doubles with each re-learning that did not make the template's pages match again, up to 2^4 × RELEARN_GAP pages. */
const RELEARN_BACKOFF_STEPS = 4;

/**
 * Pages a template waits, since its last learning, before a wrapper that stopped matching is
 * re-learned: RELEARN_GAP after a redesign (the first failure), doubling with each re-learning
 * that did not help — a template whose pages no wrapper fits (bench:scale: 291 of 617
 * learnings were such retries, each parsing ten pages) is not re-learned every few pages forever.
 */
export function relearnGap(failedRelearns: number): number {
  return RELEARN_GAP * 2 ** Math.min(failedRelearns, RELEARN_BACKOFF_STEPS);
}

function learningDue(pages: number, learnAfter: number): boolean {
  return pages === learnAfter || pages === 5 || pages === 10 || (pages > 10 && pages % 10 === 0);
}

function pageInput(context: PipelineContext, snapshot: PendingSnapshot, feed: PendingSnapshot = snapshot): PageInput | null {
  const body = storedBlob(context.db, snapshot.sha256);
  if (!body) return null;
  return {
    body, contentType: snapshot.content_type, url: snapshot.final_url,
    feed: { title: feed.title, summary: feed.summary, published: feed.published, updated: feed.updated, author: feed.author },
  };
}

const how = (method: string, wrapperId: number | null) => (wrapperId === null ? method : `${method} (wrapper ${wrapperId})`);

/**
 * Records a revisit whose article object the pool found unchanged (tasks.ts, revisitTask): the
 * snapshot keeps the payload's digest, not its bytes, with the extraction and an unchanged
 * check, in one transaction — what the queued extraction of a stored revisit records, minus the
 * body. Returns false, recording nothing, when recordVersion finds anything but "unchanged" (a
 * page that no longer presents the article, availability.ts): such a capture is kept whole, the
 * usual way.
 */
export function recordUnchangedRevisit(context: PipelineContext, article: ArticleRow, page: FetchedPage, revisit: Extract<RevisitOutcome, { kind: 'same' }>): boolean {
  const { db } = context;
  const { extracted } = revisit;
  const record = db.transaction(() => {
    const snapshotId = insertSnapshot(db, article.item_id, page, { digest: revisit.sha256 }, null);
    setCanonicalUrl(db, snapshotId, extracted.canonicalUrl);
    const outcome = recordVersion(context, snapshotById(db, snapshotId)!, extracted, { kind: 'same' }, null);
    // Anything but "unchanged" needs the body: undo, and let the caller store the capture.
    if (outcome !== 'unchanged') throw new NotUnchanged();
    saveExtraction(db, snapshotId, article.item_id, extracted.template.id, extracted.wrapperId, extracted.article, extracted.hash);
  });
  try {
    record();
    return true;
  } catch (error) {
    if (error instanceof NotUnchanged) return false;
    throw error;
  }
}

class NotUnchanged extends Error {}

/**
 * Pulls queued snapshots (newest first) into the pool, at most `capacity` at once, and one per
 * feed at a time: a feed's pages are extracted in order, so that each sees the templates and
 * wrappers the ones before it made (two pages of a new layout make one template, not two, and a
 * page is never judged by a wrapper learned after it started). Parallelism comes from feeds.
 * A learning holds its feed, not a slot.
 */
export class Extractor {
  private readonly running = new Set<number>();
  private readonly feeds = new Set<number>();
  private readonly learning = new Set<number>();
  /** Resolves when the learning before is done (learnings run one at a time). */
  private learningTurn: Promise<void> = Promise.resolve();
  /** The page count of each template at its last learning (since this process started). */
  private readonly learnedAt = new Map<number, number>();
  /** Re-learnings of each template since one of its pages last matched its wrapper. */
  private readonly failedRelearns = new Map<number, number>();

  constructor(private readonly context: PipelineContext, private readonly capacity: number) {}

  /** Starts what the queue holds and the pool has room for; each started job is handed to `track`. */
  fill(track: (key: string, work: Promise<unknown>) => void): number {
    const room = this.capacity - this.running.size;
    if (room <= 0) return 0;
    let started = 0;
    // Enough candidates to pass over the feeds already being extracted.
    for (const { snapshotId, feedId: queuedFeed } of queuedExtractions(this.context.db, Math.min(MAX_CANDIDATES, room * 8 + this.running.size))) {
      if (started >= room) break;
      if (this.running.has(snapshotId) || this.feeds.has(queuedFeed)) continue;
      const snapshot = snapshotById(this.context.db, snapshotId);
      if (!snapshot) continue;
      this.running.add(snapshotId);
      this.feeds.add(snapshot.feed_id);
      started++;
      const feedId = snapshot.feed_id;
      track(`extract:${snapshotId}`, this.extract(snapshot).then(({ learning }) => {
        this.running.delete(snapshotId);
        if (!learning) return void this.feeds.delete(feedId);
        // A learning the page made due runs apart from the extraction slots (learnings go one
        // at a time, and slots that waited for them would stop every feed's extraction behind
        // one slow learning); the feed's own next page still waits for its new wrapper.
        track(`extract:learning:${snapshotId}`, learning.finally(() => this.feeds.delete(feedId)));
      }, (error: unknown) => {
        this.running.delete(snapshotId);
        this.feeds.delete(feedId);
        throw error;
      }));
    }
    return started;
  }

  /** Read for each page (an index lookup): a cache over 10,000 feeds' signatures would be most of the heap. */
  private templateChoices(feedId: number): TemplateChoice[] {
    return templateChoicesOf(this.context.db, feedId);
  }

  /**
   * Extracts one snapshot and records what it means for its article. Returns the learning of a
   * wrapper it made due (already started), or null — wrapped, since an async function that
   * returned the promise itself would wait for it.
   */
  async extract(snapshot: PendingSnapshot): Promise<{ learning: Promise<void> | null }> {
    const none = { learning: null };
    const { db, log, pool, settings } = this.context;
    const started = performance.now();
    const report = (method: string, outcome: Outcome, words: number, reason: string | null) => {
      log.info({ url: snapshot.final_url, method, article: outcome, words, ...(reason ? { reason } : {}), ms: Math.round(performance.now() - started) }, 'extracted');
    };
    try {
      const page = pageInput(this.context, snapshot);
      if (!page) {
        const article = emptyArticle('snapshot body missing');
        const outcome = db.transaction(() => {
          saveExtraction(db, snapshot.snapshot_id, snapshot.item_id, null, null, article);
          return recordVersion(this.context, snapshot, { article, object: null, hash: null, wrapperId: null, canonicalUrl: null }, { kind: 'first' }, null);
        })();
        report('none', outcome, 0, article.reason);
        return none;
      }
      const existing = articleOfItem(db, snapshot.item_id);
      const key = existing ? comparisonKeyOf(db, existing) : null;
      const templates = this.templateChoices(snapshot.feed_id);
      const result = await pool.extract({ page, maxBytes: settings.extract.maxBytes, templates, compare: key });
      const { comparison, rebased } = await this.resolve(snapshot, result, templates, existing, key);
      const revisit = itemExtractedBefore(db, snapshot.item_id, snapshot.snapshot_id);
      const { outcome, templateId, pages } = db.transaction(() => {
        const templateId = result.template === null ? null : this.templateOf(snapshot.feed_id, result.template);
        setCanonicalUrl(db, snapshot.snapshot_id, result.canonicalUrl);
        if (existing && rebased) setComparisonKey(db, existing.id, rebased);
        // Only new pages teach: revisits of one article would make its own text look like template.
        const pages = templateId !== null && !revisit ? countTemplatePage(db, templateId) : null;
        const note = key && rebased ? `extraction changed from ${how(key.method, key.wrapperId)} to ${how(result.article.method, result.wrapperId)}; compared like with like` : null;
        const outcome = recordVersion(this.context, snapshot, result, comparison, note);
        saveExtraction(db, snapshot.snapshot_id, snapshot.item_id, templateId, result.wrapperId, result.article, result.hash);
        // Storage grows with what changed, not with how often we look: a revisit that found the
        // same object keeps its digest and headers, not its bytes.
        if (outcome === 'unchanged') dropCaptureBody(db, snapshot.snapshot_id);
        return { outcome, templateId, pages };
      })();
      report(result.article.method, outcome, result.article.text.split(/\s+/).filter(Boolean).length, result.article.reason);
      if (templateId === null || pages === null) return none;
      // The wrapper this page was extracted with (not one learned since).
      const used = templates.find((template) => template.id === templateId);
      if (result.article.method === 'forest') this.failedRelearns.delete(templateId);
      if (used?.wrapper && result.article.method !== 'forest' && this.mayRelearn(templateId, pages)) {
        this.failedRelearns.set(templateId, (this.failedRelearns.get(templateId) ?? 0) + 1);
        // Drift (issue #10) shows either way: the wrapper no longer matches (a redesign), or it
        // matches but the per-page guard set its object aside (the template changed inside).
        const why = wrapperSetAside(result.article) ? 'set aside by the guard' : 'stopped matching';
        return { learning: this.relearn(snapshot.feed_id, templateId, `${why} at page ${pages}`, pages) };
      }
      return learningDue(pages, settings.extract.learnAfter) ? { learning: this.relearn(snapshot.feed_id, templateId, `${pages} pages`, pages) } : none;
    } catch (error) {
      // A full database is Forest's state, not the page's: the page stays queued (the daemon stops taking work).
      if (isStorageFull(error)) throw error;
      const failed = emptyArticle(`error: ${(error as Error).message}`);
      db.transaction(() => {
        saveExtraction(db, snapshot.snapshot_id, snapshot.item_id, null, null, failed);
        recordVersion(this.context, snapshot, { article: failed, object: null, hash: null, wrapperId: null, canonicalUrl: null }, { kind: 'first' }, null);
      })();
      log.error({ url: snapshot.final_url, err: error }, 'extraction failed');
      report('none', 'failed', 0, failed.reason);
      return none;
    }
  }

  /**
   * The template a result belongs to: the pool matched it against the feed's templates, or saw a
   * new layout. No other page of the feed is extracted meanwhile (one per feed at a time), so a
   * new layout is added as it is, without matching it again here.
   */
  private templateOf(feedId: number, template: NonNullable<ExtractOutcome['template']>): number {
    return 'id' in template ? template.id : addTemplate(this.context.db, feedId, template.signature).id;
  }

  /**
   * When the article's comparison key was made another way (another method or wrapper), it is
   * rebased once: the key's snapshot is re-extracted the new way in the pool, and kept.
   */
  private async resolve(snapshot: PendingSnapshot, result: ExtractOutcome, templates: TemplateChoice[], existing: ArticleRow | undefined, key: StoredComparisonKey | null): Promise<{ comparison: Comparison; rebased: StoredComparisonKey | null }> {
    if (result.comparison.kind !== 'rebase' || !existing || !key || !result.object || !result.hash) return { comparison: result.comparison, rebased: null };
    const old = snapshotById(this.context.db, key.snapshotId);
    const page = old ? pageInput(this.context, old, snapshot) : null;
    const wrapper = result.wrapperId !== null ? templates.find((template) => template.wrapperId === result.wrapperId)?.wrapper ?? null : null;
    const outcome = await this.context.pool.rebase({
      page, maxBytes: this.context.settings.extract.maxBytes, method: result.article.method, wrapperId: result.wrapperId, wrapper, object: result.object, hash: result.hash, previous: key,
    });
    return { comparison: outcome.comparison, rebased: outcome.key ? { ...outcome.key, snapshotId: key.snapshotId } : null };
  }

  /**
   * A wrapper that stopped matching is re-learned once the template has had enough pages since
   * its last learning (relearnGap): a wrapper that still fails is not re-learned on every page
   * (each learning parses the template's recent pages again).
   */
  private mayRelearn(templateId: number, pages: number): boolean {
    return pages - (this.learnedAt.get(templateId) ?? 0) >= relearnGap(this.failedRelearns.get(templateId) ?? 0);
  }

  /** Learns (or re-learns) a template's wrapper in the pool; one learning per template at a time. */
  private async relearn(feedId: number, templateId: number, reason: string, pages: number): Promise<void> {
    if (this.learning.has(templateId)) return;
    this.learning.add(templateId);
    this.learnedAt.set(templateId, pages);
    // One learning at a time over all templates: it holds every sample page's tree at once, the
    // largest allocation Forest makes.
    const turn = this.learningTurn;
    let done!: () => void;
    this.learningTurn = new Promise<void>((resolve) => (done = resolve));
    await turn;
    const { db, log, pool, settings } = this.context;
    try {
      const started = performance.now();
      const samples = recentSnapshotsOfTemplate(db, templateId, RELEARN_FROM).flatMap((snapshot) => {
        const page = pageInput(this.context, snapshot);
        return page ? [{ ...page, snapshotId: snapshot.snapshot_id }] : [];
      });
      if (samples.length < 2) return;
      const recent = recentSnapshotsOfTemplate(db, templateId, REEXTRACT_LIMIT).flatMap((snapshot) => {
        const page = pageInput(this.context, snapshot);
        return page ? [{ ...page, snapshotId: snapshot.snapshot_id, itemId: snapshot.item_id, text: snapshot.text }] : [];
      });
      const active = this.templateChoices(feedId).find((template) => template.id === templateId);
      const outcome = await pool.learn({ samples, pages: recent, maxBytes: settings.extract.maxBytes, current: active?.wrapper ?? null });
      if (!outcome.wrapper) {
        // A wrapper the leave-one-out check rejected: the template keeps single-page extraction
        // (or the wrapper it has, which the per-page guard watches).
        if (outcome.check) log.info({ feed: feedId, template: templateId, reason, check: outcome.check, ms: Math.round(performance.now() - started) }, 'wrapper rejected');
        else log.info({ template: templateId, reason }, 'no wrapper could be learned');
        return;
      }
      if (outcome.unchanged && active?.wrapperId) {
        // The same wrapper again: a new version of it would only make every article's
        // comparison key look stale.
        confirmWrapper(db, active.wrapperId, outcome.samples, reason);
        log.info({ feed: feedId, template: templateId, samples: outcome.samples, reason, ms: Math.round(performance.now() - started) }, 'wrapper re-learned: unchanged');
        return;
      }
      const wrapper = outcome.wrapper;
      const wrapperId = db.transaction(() => {
        const id = storeWrapper(db, feedId, templateId, wrapper, outcome.check ? `${reason}; ${outcome.check}` : reason);
        const itemOf = new Map(recent.map((page) => [page.snapshotId, page.itemId]));
        for (const changed of outcome.changed) {
          saveExtraction(db, changed.snapshotId, itemOf.get(changed.snapshotId)!, templateId, changed.article.method === 'forest' ? id : null, changed.article);
        }
        return id;
      })();
      log.info({ feed: feedId, template: templateId, wrapper: wrapper.xpath, wrapperId, samples: outcome.samples, reason, check: outcome.check, reextracted: outcome.changed.length, ms: Math.round(performance.now() - started) }, 'wrapper learned');
    } catch (error) {
      log.error({ err: error, template: templateId }, 'learning failed');
    } finally {
      this.learning.delete(templateId);
      done();
    }
  }
}
