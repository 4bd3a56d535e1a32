import { isStorageFull, type ArticleToRevisit, type Decide, type FetchedPage, type RedoneVersion, type StoredCapture, type StoredComparisonKey, type TemplateChoice } from '../archive/store.js';
import { emptyArticle, wrapperSetAside } from '../extract/extract.js';
import type { PipelineContext } from './context.js';
import type { Comparison, ExtractOutcome, PageInput, RevisitOutcome } from './tasks.js';
import { decideVersion, outcomeOf, type Extracted, type Outcome } from './versioning.js';
import { DAEMON_OPTIONS } from './options.js';

/**
 * Extraction in the daemon: every captured page is extracted, in the worker pool, and stored with
 * the method and wrapper used. Pages are sorted into templates per feed; a template gets a FOREST
 * wrapper once it has `extract.learnAfter` pages, re-learned at 5 and 10 pages and ever further
 * apart after (learningDue), and at once when the wrapper stops matching (a redesign) or the
 * per-page guard sets its object aside (a change inside the template). A new wrapper re-extracts
 * the template's recent pages, and a page whose result differs is updated.
 *
 * The main thread only reads the stored (compressed) bodies and writes the results, each in one
 * short transaction: a kill leaves a snapshot queued, and a restart extracts it again.
 */

/**
 * Pages a template waits, since its last learning, before a wrapper that stopped matching is
 * re-learned: DAEMON_OPTIONS.learning.relearnGap after a redesign (the first failure), doubling with each re-learning
 * that did not help — a template whose pages no wrapper fits (bench:scale: 291 of 617
 * learnings were such retries, each parsing ten pages) is not re-learned every few pages forever.
 */
export function relearnGap(failedRelearns: number): number {
  return DAEMON_OPTIONS.learning.relearnGap * 2 ** Math.min(failedRelearns, DAEMON_OPTIONS.learning.relearnBackoffSteps);
}

/**
 * Whether a re-learning that found no wrapper retires the template's active one: a re-learning on
 * drift (not a routine one), after `retireAfter` of them in a row (DAEMON_OPTIONS.learning).
 */
export function retiresWrapper(failedRelearns: number, routine: boolean): boolean {
  return !routine && failedRelearns >= DAEMON_OPTIONS.learning.retireAfter;
}

/**
 * Whether a template's page count calls for a routine learning: at `learnAfter`, 5 and 10 pages,
 * then at a doubling gap (20, 40, 80, 160) up to every DAEMON_OPTIONS.learning.routineGap pages. FOREST's wrappers
 * plateau at 8–10 samples (forest-paper §5): past that a re-learning only follows slow change,
 * and drift is re-learned at once anyway (the guard, a wrapper that stops matching). Every 10
 * pages, a feed publishing every minute was re-learned 144 times a day, each learning usually
 * storing a new version of the same wrapper.
 */
export function learningDue(pages: number, learnAfter: number): boolean {
  if (pages === learnAfter || pages === 5) return true;
  let at = 10;
  while (at < pages && at < DAEMON_OPTIONS.learning.routineGap) at *= 2;
  return at >= pages ? at === pages : (pages - at) % DAEMON_OPTIONS.learning.routineGap === 0;
}

/** A stored capture as the pool reads it, with the feed item's fields of `feed` (the same signifiers on both sides of a comparison). */
async function pageInput(context: PipelineContext, capture: StoredCapture, feed: StoredCapture = capture): Promise<PageInput | null> {
  const body = capture.sha256 === null ? null : await context.store.storedBody(capture.sha256);
  if (!body) return null;
  return { body, contentType: capture.contentType, url: capture.finalUrl, feed: feed.item };
}

/** Change detection's rule (versioning.ts), as the store runs it inside the transaction that records the extraction. */
const decider = (context: PipelineContext, extracted: Extracted, comparison: Comparison, note: string | null): Decide =>
  (article, capture) => decideVersion(article, capture, extracted, comparison, note, context.settings.revisit);

const how = (method: string, wrapperId: number | null) => (wrapperId === null ? method : `${method} (wrapper ${wrapperId})`);

/**
 * Records a revisit whose article object the pool found unchanged (tasks.ts, revisitTask): the
 * capture keeps the payload's digest, not its bytes, with the extraction and an unchanged check,
 * in one transaction — what the queued extraction of a stored revisit records, minus the body.
 * Returns false, recording nothing, when change detection calls it anything but "unchanged" (a
 * page that no longer presents the article, availability.ts): such a capture is kept whole, the
 * usual way.
 */
export function recordUnchangedRevisit(context: PipelineContext, article: ArticleToRevisit, page: FetchedPage, revisit: Extract<RevisitOutcome, { kind: 'same' }>): Promise<boolean> {
  const { extracted } = revisit;
  return context.store.recordRevisitWithoutBody(article.itemId, page, revisit.sha256, extracted, decider(context, extracted, { kind: 'same' }, null));
}

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

  /** The fill running now, and whether another was asked for meanwhile (it runs right after). */
  private filling: Promise<number> | null = null;
  private fillAgain = false;

  /**
   * Starts what the queue holds and the pool has room for; each started job is handed to
   * `track`. One fill at a time (each reads the queue, and two at once would start a page
   * twice); one asked for meanwhile runs when it ends. Resolves to how many jobs it started.
   */
  fill(track: (key: string, work: Promise<unknown>) => void): Promise<number> {
    if (this.filling) {
      this.fillAgain = true;
      return this.filling;
    }
    this.filling = (async () => {
      let started = 0;
      try {
        do {
          this.fillAgain = false;
          started += await this.fillOnce(track);
        } while (this.fillAgain);
      } finally {
        this.filling = null;
      }
      return started;
    })();
    return this.filling;
  }

  private async fillOnce(track: (key: string, work: Promise<unknown>) => void): Promise<number> {
    const room = this.capacity - this.running.size;
    if (room <= 0) return 0;
    let started = 0;
    const { store } = this.context;
    // Enough candidates to pass over the feeds already being extracted.
    for (const { snapshotId, feedId } of await store.queuedExtractions(Math.min(DAEMON_OPTIONS.learning.maxCandidates, room * 8 + this.running.size))) {
      if (started >= room) break;
      if (this.running.has(snapshotId) || this.feeds.has(feedId)) continue;
      // Another daemon on the archive may be extracting it (WorkStore.claim).
      const claim = { kind: 'extract', id: snapshotId } as const;
      if (!(await store.claim(claim, new Date()))) continue;
      const capture = await store.storedCapture(snapshotId);
      if (!capture) {
        await store.release(claim, new Date());
        continue;
      }
      this.running.add(snapshotId);
      this.feeds.add(feedId);
      started++;
      const extraction = this.extract(capture).finally(() => store.release(claim, new Date()));
      track(`extract:${snapshotId}`, extraction.then(({ learning }) => {
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

  /**
   * Extracts one capture and records what it means for its article. Returns the learning of a
   * wrapper it made due (already started), or null — wrapped, since an async function that
   * returned the promise itself would wait for it.
   */
  async extract(capture: StoredCapture): Promise<{ learning: Promise<void> | null }> {
    const none = { learning: null };
    const { store, log, pool, settings } = this.context;
    const started = performance.now();
    // `ahead`: the revisit that stored the page had extracted it (extracted-ahead.ts).
    const report = (method: string, outcome: Outcome, words: number, reason: string | null, ahead = false) => {
      log.info({ url: capture.finalUrl, method, article: outcome, words, ...(reason ? { reason } : {}), ...(ahead ? { ahead } : {}), ms: Math.round(performance.now() - started) }, 'extracted');
    };
    /** Nothing extracted (`reason`): recorded as such, and as a failed check of an archived article. */
    const recordNothing = async (reason: string) => {
      const article = emptyArticle(reason);
      const { decision } = await store.recordExtraction(capture, { template: null, canonicalUrl: null, wrapperId: null, article, hash: null }, { rebasedKey: null, countsForTemplate: false },
        decider(this.context, { article, object: null, hash: null, packed: null, wrapperId: null, canonicalUrl: null }, { kind: 'first' }, null));
      return { article, outcome: outcomeOf(decision) };
    };
    try {
      const key = await store.comparisonKey(capture.itemId);
      // Read for each page (an index lookup): a cache over 10,000 feeds' signatures would be most of the heap.
      const templates = await store.templateChoices(capture.feedId);
      const inputs = { page: { contentType: capture.contentType, url: capture.finalUrl, feed: capture.item }, maxBytes: settings.extract.maxBytes, templates, compare: key };
      let result = this.context.ahead?.take(capture.snapshotId, inputs) ?? null;
      const ahead = result !== null;
      if (!result) {
        const page = await pageInput(this.context, capture);
        if (!page) {
          const { article, outcome } = await recordNothing('snapshot body missing');
          report('none', outcome, 0, article.reason);
          return none;
        }
        result = await pool.extract({ ...inputs, page });
      }
      const { comparison, rebased, redone } = await this.resolve(capture, result, templates, key);
      // Only new pages teach: revisits of one article would make its own text look like template.
      const revisit = await store.itemExtractedBefore(capture.itemId, capture.snapshotId);
      const note = key && rebased ? `extraction changed from ${how(key.method, key.wrapperId)} to ${how(result.article.method, result.wrapperId)}; compared like with like` : null;
      const { decision, templateId, pages } = await store.recordExtraction(capture, result, { rebasedKey: rebased, redone, countsForTemplate: !revisit }, decider(this.context, result, comparison, note));
      report(result.article.method, outcomeOf(decision), result.article.text.split(/\s+/).filter(Boolean).length, result.article.reason, ahead);
      if (templateId === null || pages === null) return none;
      // The wrapper this page was extracted with (not one learned since).
      const used = templates.find((template) => template.id === templateId);
      if (result.article.method === 'forest') this.failedRelearns.delete(templateId);
      if (used?.wrapper && result.article.method !== 'forest' && this.mayRelearn(templateId, pages)) {
        this.failedRelearns.set(templateId, (this.failedRelearns.get(templateId) ?? 0) + 1);
        // Drift (issue #10) shows either way: the wrapper no longer matches (a redesign), or it
        // matches but the per-page guard set its object aside (the template changed inside).
        const why = wrapperSetAside(result.article) ? 'set aside by the guard' : 'stopped matching';
        return { learning: this.relearn(capture.feedId, templateId, `${why} at page ${pages}`, pages, false) };
      }
      return learningDue(pages, settings.extract.learnAfter) ? { learning: this.relearn(capture.feedId, templateId, `${pages} pages`, pages, true) } : none;
    } catch (error) {
      // A full database is Forest's state, not the page's: the page stays queued (the daemon stops taking work).
      if (isStorageFull(error)) throw error;
      log.error({ url: capture.finalUrl, err: error }, 'extraction failed');
      const { article } = await recordNothing(`error: ${(error as Error).message}`);
      report('none', 'failed', 0, article.reason);
      return none;
    }
  }

  /**
   * When the article's comparison key was made another way (another method or wrapper), it is
   * rebased once: the key's capture is re-extracted the new way in the pool, and kept.
   */
  private async resolve(capture: StoredCapture, result: ExtractOutcome, templates: TemplateChoice[], key: StoredComparisonKey | null): Promise<{ comparison: Comparison; rebased: StoredComparisonKey | null; redone: RedoneVersion[] }> {
    if (result.comparison.kind !== 'rebase' || !key || !result.object || !result.hash) return { comparison: result.comparison, rebased: null, redone: [] };
    const { store } = this.context;
    // The captures behind the key and behind every version made another way, read as the new capture's item.
    const pageOf = async (snapshotId: number) => {
      const old = await store.storedCapture(snapshotId);
      return old ? pageInput(this.context, old, capture) : null;
    };
    const method = result.article.method;
    const versions = await Promise.all((await store.versionsOfItem(capture.itemId)).map(async (version) => {
      const keyCapture = version.snapshotId === key.snapshotId;
      const madeSo = version.method === method && version.wrapperId === result.wrapperId;
      return { n: version.n, method: version.method, wrapperId: version.wrapperId, hash: version.hash, object: version.object, keyCapture, page: madeSo || keyCapture ? null : await pageOf(version.snapshotId) };
    }));
    const wrapper = result.wrapperId !== null ? templates.find((template) => template.wrapperId === result.wrapperId)?.wrapper ?? null : null;
    const outcome = await this.context.pool.rebase({
      page: await pageOf(key.snapshotId), maxBytes: this.context.settings.extract.maxBytes, method, wrapperId: result.wrapperId, wrapper, object: result.object, hash: result.hash, previous: key, versions,
    });
    return { comparison: outcome.comparison, rebased: outcome.key ? { ...outcome.key, snapshotId: key.snapshotId } : null, redone: outcome.versions };
  }

  /**
   * A wrapper that stopped matching is re-learned once the template has had enough pages since
   * its last learning (relearnGap): a wrapper that still fails is not re-learned on every page
   * (each learning parses the template's recent pages again).
   */
  private mayRelearn(templateId: number, pages: number): boolean {
    return pages - (this.learnedAt.get(templateId) ?? 0) >= relearnGap(this.failedRelearns.get(templateId) ?? 0);
  }

  /** Learns (or re-learns: `routine`, or for drift) a template's wrapper in the pool; one learning per template at a time. */
  private async relearn(feedId: number, templateId: number, reason: string, pages: number, routine: boolean): Promise<void> {
    if (this.learning.has(templateId)) return;
    this.learning.add(templateId);
    // One daemon learns a template at a time (WorkStore.claim).
    const claim = { kind: 'learn', id: templateId } as const;
    if (!(await this.context.store.claim(claim, new Date()))) {
      this.learning.delete(templateId);
      return;
    }
    this.learnedAt.set(templateId, pages);
    // One learning at a time over all templates: it holds every sample page's tree at once, the
    // largest allocation Forest makes.
    const turn = this.learningTurn;
    let done!: () => void;
    this.learningTurn = new Promise<void>((resolve) => (done = resolve));
    await turn;
    const { store, log, pool, settings } = this.context;
    try {
      const started = performance.now();
      const pagesOf = async (limit: number) => {
        const pages = await Promise.all((await store.recentCapturesOfTemplate(templateId, limit)).map(async (capture) => {
          const page = await pageInput(this.context, capture);
          return page ? [{ ...page, snapshotId: capture.snapshotId, itemId: capture.itemId, extracted: capture.extracted }] : [];
        }));
        return pages.flat();
      };
      const samples = await pagesOf(DAEMON_OPTIONS.learning.relearnFrom);
      if (samples.length < 2) return;
      const recent = await pagesOf(DAEMON_OPTIONS.learning.reextractLimit);
      const active = (await store.templateChoices(feedId)).find((template) => template.id === templateId);
      const outcome = await pool.learn({ samples, pages: recent, maxBytes: settings.extract.maxBytes, current: active?.wrapper ?? null, routine });
      if (!outcome.wrapper) {
        // A wrapper the leave-one-out check rejected: the template keeps single-page extraction,
        // or the wrapper it has, which the per-page guard watches — until its drift has been
        // re-learned `retireAfter` times in vain, and it is retired.
        if (outcome.check) log.info({ feed: feedId, template: templateId, reason, check: outcome.check, ms: Math.round(performance.now() - started) }, 'wrapper rejected');
        else log.info({ template: templateId, reason }, 'no wrapper could be learned');
        const failed = this.failedRelearns.get(templateId) ?? 0;
        if (active?.wrapperId && retiresWrapper(failed, routine)) {
          await store.retireWrapper(active.wrapperId, `${reason}; ${failed} re-learnings found none to replace it`);
          this.failedRelearns.delete(templateId);
          log.info({ feed: feedId, template: templateId, wrapper: active.wrapperId, reason }, 'wrapper retired: back to the single page');
        }
        return;
      }
      if (outcome.unchanged && active?.wrapperId) {
        // The same wrapper again, or (routine) one that changes none of the recent pages: a new
        // version of it would only make every article's comparison key look stale.
        await store.confirmWrapper(active.wrapperId, outcome.samples, reason);
        log.info({ feed: feedId, template: templateId, samples: outcome.samples, reason, check: outcome.check, ms: Math.round(performance.now() - started) }, 'wrapper re-learned: unchanged');
        return;
      }
      const wrapper = outcome.wrapper;
      const itemOf = new Map(recent.map((page) => [page.snapshotId, page.itemId]));
      const reextracted = outcome.changed.flatMap((changed) => {
        const itemId = itemOf.get(changed.snapshotId);
        return itemId === undefined ? [] : [{ ...changed, itemId }];
      });
      const wrapperId = await store.storeWrapper(feedId, templateId, wrapper, outcome.check ? `${reason}; ${outcome.check}` : reason, reextracted);
      log.info({ feed: feedId, template: templateId, wrapper: wrapper.xpath, wrapperId, samples: outcome.samples, reason, check: outcome.check, reextracted: outcome.changed.length, ms: Math.round(performance.now() - started) }, 'wrapper learned');
    } catch (error) {
      log.error({ err: error, template: templateId }, 'learning failed');
    } finally {
      this.learning.delete(templateId);
      done();
      await this.context.store.release(claim, new Date()).catch((error: unknown) => log.error({ err: error, template: templateId }, 'could not release the learning'));
    }
  }
}
