import type { StoredBody } from '../archive/codec.js';
import type { FetchResult } from '../net/fetcher.js';
import { isHtmlType, type Requisite } from '../requisites/discover.js';
import { fetchRequisites } from '../requisites/fetch.js';
import type { PipelineContext } from './context.js';
import { DAEMON_OPTIONS } from './options.js';

/** How many captures the lane serves at once, when it is behind, how many it holds, and how often it looks in the archive (DAEMON_OPTIONS.requisites). */
export interface LaneOptions { captures: number; holdCapturesAt: number; waiting: number; refillEveryMs: number }

/**
 * Captures' requisites, fetched beside the daemon's work (issue #67): a stored capture is handed
 * over and its unit ends; at most `captures` captures' requisites are fetched at once, the rest
 * wait their turn. From `holdCapturesAt` on the lane is behind, and the daemon takes no new
 * captures until it is not (daemon.ts).
 *
 * What waits is the archive's: each capture was queued for its requisites in its own transaction
 * (requisite_queue), and leaves the queue in the one that records them. The lane holds at most
 * `waiting` of them in memory, as they are captured; the rest — captures past that, those a
 * killed or stopped run left, those of a daemon that died on a shared archive once its claims
 * expired — it reads back from the archive when it has nothing else to do, and at most every
 * `refillEveryMs` when idle. Nothing is thrown: what fails is logged and listed with the capture.
 * A daemon stopping waits for the requisites in flight until its deadline, then aborts them:
 * their captures stay queued for the next run.
 */
export class RequisiteLane {
  private readonly waiting: Array<{ snapshotId: number; page: PageBeingRead }> = [];
  private readonly inFlight = new Set<Promise<void>>();
  /** The captures waiting or in flight here: a read of the archive's queue passes over them. */
  private readonly held = new Set<number>();
  private readonly controller = new AbortController();
  /** Whether the archive may hold captures the lane has not taken (at start: what the last run left). */
  private archiveHasMore = true;
  private refilling: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopping = false;

  constructor(private readonly context: PipelineContext, private readonly options: LaneOptions = DAEMON_OPTIONS.requisites) {}

  /** Takes up what the archive's queue holds, now and whenever the lane runs dry. */
  start(): void {
    if (this.timer || this.controller.signal.aborted) return;
    this.timer = setInterval(() => {
      this.archiveHasMore = true;
      this.next();
    }, this.options.refillEveryMs);
    this.timer.unref();
    this.next();
  }

  /** A stored capture, queued in the archive for its requisites (recordCapture, recordRevisit). */
  add(snapshotId: number, page: FetchResult): void {
    if (this.controller.signal.aborted || !namesRequisites(page)) return;
    if (this.waiting.length >= this.options.waiting) {
      // It stays in the archive's queue, and is read back when the lane has room.
      this.archiveHasMore = true;
      return;
    }
    // The page goes to the pool at once: a capture waits for its reading in the pool's queue, not
    // in one of the lane's few fetching places (waiting there, the lane fell behind the captures).
    this.hold(snapshotId, readPage(this.context, page));
  }

  /** Captures waiting or in flight. */
  get pending(): number {
    return this.waiting.length + this.inFlight.size;
  }

  /** Whether so many captures wait that new ones should wait before being captured (holdCapturesAt). */
  get behind(): boolean {
    return this.pending >= this.options.holdCapturesAt;
  }

  private hold(snapshotId: number, page: PageBeingRead): void {
    if (this.held.has(snapshotId)) return;
    this.held.add(snapshotId);
    this.waiting.push({ snapshotId, page });
    this.next();
  }

  private next(): void {
    // A stopping lane starts nothing: what still waits stays queued for the next run.
    if (this.stopping) return;
    while (this.inFlight.size < this.options.captures && this.waiting.length > 0) {
      const { snapshotId, page } = this.waiting.shift()!;
      const work = this.serve(snapshotId, page).finally(() => {
        this.inFlight.delete(work);
        this.held.delete(snapshotId);
        this.next();
      });
      this.inFlight.add(work);
    }
    if (this.waiting.length === 0 && this.archiveHasMore && !this.refilling) {
      this.refilling = this.refill().finally(() => {
        this.refilling = null;
        if (this.waiting.length > 0) this.next();
      });
    }
  }

  /** One capture's requisites, once it is this daemon's to do (on a shared archive another may have taken it from the queue). */
  private async serve(snapshotId: number, page: PageBeingRead): Promise<void> {
    const { store, log } = this.context;
    const claim = { kind: 'requisites', id: snapshotId } as const;
    try {
      if (!(await store.claim(claim, new Date()))) return;
    } catch (error) {
      log.warn({ snapshot: snapshotId, error: error instanceof Error ? error.message : String(error) }, 'requisites not captured: could not claim them (they stay queued)');
      return;
    }
    try {
      await captureRequisites(this.context, snapshotId, page, this.controller.signal);
    } finally {
      await store.release(claim, new Date()).catch(() => undefined);
    }
  }

  /**
   * Reads a batch of queued captures back from the archive — the oldest first, those held here
   * passed over — and hands their pages to the pool. A failure is logged; the next look retries.
   */
  private async refill(): Promise<void> {
    const { store, log } = this.context;
    const batch = this.options.captures * 4;
    try {
      const queued = (await store.queuedRequisites(batch + this.held.size)).filter((id) => !this.held.has(id)).slice(0, batch);
      this.archiveHasMore = queued.length === batch;
      for (const snapshotId of queued) {
        if (this.stopping) return;
        const capture = await store.storedCapture(snapshotId);
        const body = capture?.sha256 ? await store.storedBody(capture.sha256) : null;
        // Its body went with an unchanged revisit (dropCaptureBody takes it off the queue too): nothing to replay it with.
        if (!capture || !body) {
          await store.dequeueRequisites(snapshotId);
          continue;
        }
        this.hold(snapshotId, readStoredPage(this.context, capture.finalUrl, capture.contentType, body));
      }
    } catch (error) {
      log.warn({ error: error instanceof Error ? error.message : String(error) }, 'could not read the captures waiting for their requisites; the lane looks again later');
    }
  }

  /** Stops taking captures, lets those in flight finish for at most `deadlineMs`, then aborts them; the waiting ones stay queued in the archive. */
  async stop(deadlineMs: number): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    if (this.waiting.length > 0) this.context.log.info({ captures: this.waiting.length }, 'requisites left queued: captures still waited for theirs at shutdown (the next start fetches them)');
    this.waiting.length = 0;
    await this.refilling;
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

/** A capture read back from the archive, read in the pool as `readPage` reads a fresh one. */
export function readStoredPage(context: PipelineContext, url: string, contentType: string | null, body: StoredBody): PageBeingRead {
  const named = context.pool.discover({ kind: 'stored', body, contentType, url });
  named.catch(() => undefined);
  return { url, named };
}

/**
 * One capture's requisites, fetched and recorded together; the capture leaves the archive's queue
 * with them, or with nothing when there is nothing to record or fetching failed (logged). Aborted
 * (a daemon stopping), it stays queued.
 */
export async function captureRequisites(context: PipelineContext, snapshotId: number, page: PageBeingRead, signal: AbortSignal): Promise<void> {
  const { fetcher, requisiteFetcher, store, settings, log, pool } = context;
  if (!requisiteFetcher) return;
  const started = performance.now();
  const done = () => store.dequeueRequisites(snapshotId);
  try {
    // A feed may choose its own kinds in the subscription list (`requisites`).
    const kinds = await store.requisiteKinds(snapshotId) ?? settings.capture.requisites.kinds;
    if (kinds.length === 0) return await done();
    // The page and its sheets are read in the pool: parsing them was main-thread work every capture paid.
    const records = await fetchRequisites(
      { page: fetcher, requisites: requisiteFetcher }, store, { url: page.url, requisites: await page.named }, { ...settings.capture.requisites, kinds }, signal,
      (css, url) => pool.discover({ kind: 'sheet', css, url }),
    );
    if (signal.aborted) return;
    if (records.length === 0) return await done();
    await store.recordRequisites(snapshotId, records);
    const kept = records.filter((record) => record.body !== null);
    log.info({
      url: page.url, snapshot: snapshotId, requisites: records.length, kept: kept.length,
      bytes: kept.reduce((sum, record) => sum + (record.body && 'data' in record.body ? record.body.size : 0), 0), ms: Math.round(performance.now() - started),
    }, 'requisites captured');
  } catch (error) {
    if (signal.aborted) return;
    log.warn({ url: page.url, snapshot: snapshotId, error: error instanceof Error ? error.message : String(error) }, 'requisites not captured');
    // Given up, not retried at every start; a lost connection leaves it queued (this fails too).
    await done().catch(() => undefined);
  }
}
