import type { FetchResult } from '../net/fetcher.js';
import { isHtmlType, type Requisite } from '../requisites/discover.js';
import { fetchRequisites } from '../requisites/fetch.js';
import type { PipelineContext } from './context.js';
import { DAEMON_OPTIONS } from './options.js';

/** How many captures the lane serves at once, when it is behind, and how many may wait (DAEMON_OPTIONS.requisites). */
export interface LaneOptions { captures: number; holdCapturesAt: number; waiting: number }

/**
 * Captures' requisites, fetched beside the daemon's work (issue #67): a stored capture is handed
 * over and its unit ends; at most `captures` captures' requisites are fetched at once, the rest
 * wait their turn. From `holdCapturesAt` on the lane is behind, and the daemon takes no new
 * captures until it is not (daemon.ts); at most `waiting` wait — past that, the newest are given
 * up and logged (only the captures and revisits already in flight when a hold began can still
 * reach it). Nothing is thrown:
 * what fails is logged and listed with the capture. A daemon stopping waits for the requisites in
 * flight until its deadline, then aborts them: their capture is kept either way.
 */
export class RequisiteLane {
  private readonly waiting: Array<{ snapshotId: number; page: PageBeingRead }> = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly controller = new AbortController();

  constructor(private readonly context: PipelineContext, private readonly options: LaneOptions = DAEMON_OPTIONS.requisites) {}

  /** A stored capture whose requisites are to be fetched. */
  add(snapshotId: number, page: FetchResult): void {
    if (this.controller.signal.aborted || !namesRequisites(page)) return;
    if (this.waiting.length >= this.options.waiting) {
      this.context.log.warn({ url: page.finalUrl, snapshot: snapshotId, waiting: this.waiting.length }, 'requisites given up: too many captures wait for theirs');
      return;
    }
    // The page goes to the pool at once: a capture waits for its reading in the pool's queue, not
    // in one of the lane's few fetching places (waiting there, the lane fell behind the captures).
    this.waiting.push({ snapshotId, page: readPage(this.context, page) });
    this.next();
  }

  /** Captures waiting or in flight. */
  get pending(): number {
    return this.waiting.length + this.inFlight.size;
  }

  /** Whether so many captures wait that new ones should wait before being captured (holdCapturesAt). */
  get behind(): boolean {
    return this.pending >= this.options.holdCapturesAt;
  }

  private next(): void {
    while (this.inFlight.size < this.options.captures && this.waiting.length > 0) {
      const { snapshotId, page } = this.waiting.shift()!;
      const work = captureRequisites(this.context, snapshotId, page, this.controller.signal).finally(() => {
        this.inFlight.delete(work);
        this.next();
      });
      this.inFlight.add(work);
    }
  }

  /** Stops taking captures, lets those in flight finish for at most `deadlineMs`, then aborts them; the waiting ones are dropped. */
  async stop(deadlineMs: number): Promise<void> {
    // Their captures are kept; what the pages name is not fetched for them (nothing records that it waited).
    if (this.waiting.length > 0) this.context.log.warn({ captures: this.waiting.length }, 'requisites not fetched: captures still waited for theirs at shutdown');
    this.waiting.length = 0;
    const all = Promise.allSettled([...this.inFlight]);
    const timer = setTimeout(() => this.controller.abort(new Error('shutdown')), deadlineMs);
    await all;
    clearTimeout(timer);
    this.controller.abort(new Error('shutdown'));
  }
}

/** Whether a fetched page can name requisites: an HTML page with a body (an image or a PDF captured as a page names none). */
export const namesRequisites = (page: FetchResult): boolean => isHtmlType(page.contentType) && page.body.length > 0;

/** A captured page being read, in the pool, for what it names (daemon/tasks.ts, discoverTask). */
export interface PageBeingRead {
  url: string;
  named: Promise<Requisite[]>;
}

export function readPage(context: PipelineContext, page: FetchResult): PageBeingRead {
  const named = context.pool.discover({ kind: 'page', body: page.body, contentType: page.contentType, url: page.finalUrl });
  // Awaited when the capture's turn comes; a failure is logged then, not reported unhandled meanwhile.
  named.catch(() => undefined);
  return { url: page.finalUrl, named };
}

/** One capture's requisites, fetched and recorded together. */
export async function captureRequisites(context: PipelineContext, snapshotId: number, page: PageBeingRead, signal: AbortSignal): Promise<void> {
  const { fetcher, requisiteFetcher, store, settings, log, pool } = context;
  if (!requisiteFetcher) return;
  const started = performance.now();
  try {
    // A feed may choose its own kinds in the subscription list (`requisites`).
    const kinds = await store.requisiteKinds(snapshotId) ?? settings.capture.requisites.kinds;
    if (kinds.length === 0) return;
    // The page and its sheets are read in the pool: parsing them was main-thread work every capture paid.
    const records = await fetchRequisites(
      { page: fetcher, requisites: requisiteFetcher }, store, { url: page.url, requisites: await page.named }, { ...settings.capture.requisites, kinds }, signal,
      (css, url) => pool.discover({ kind: 'sheet', css, url }),
    );
    if (records.length === 0 || signal.aborted) return;
    await store.recordRequisites(snapshotId, records);
    const kept = records.filter((record) => record.body !== null);
    log.info({
      url: page.url, snapshot: snapshotId, requisites: records.length, kept: kept.length,
      bytes: kept.reduce((sum, record) => sum + (record.body && 'data' in record.body ? record.body.size : 0), 0), ms: Math.round(performance.now() - started),
    }, 'requisites captured');
  } catch (error) {
    if (signal.aborted) return;
    log.warn({ url: page.url, snapshot: snapshotId, error: error instanceof Error ? error.message : String(error) }, 'requisites not captured');
  }
}
