import { dueRevisits, nextRevisitAt } from '../archive/articles.js';
import { dueFeeds, nextDueAt } from '../archive/feeds.js';
import { pendingPages } from '../archive/items.js';
import { extractPending } from './extraction.js';
import type { PipelineContext } from './pipeline.js';
import { capturePage, pollFeed, revisitPage } from './pipeline.js';

/** The longest the loop sleeps before looking at the database again. */
const MAX_SLEEP_MS = 1000;

/**
 * The scheduler loop: polls feeds when due, captures pending pages, extracts them and revisits
 * archived articles, with bounded work in flight. All state is in the database, so a restart
 * picks up exactly where this left off.
 */
export class Daemon {
  private readonly controller = new AbortController();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly capturing = new Set<number>();
  private readonly revisiting = new Set<number>();
  private stopping = false;
  private wake: (() => void) | null = null;
  private loopDone: Promise<void> | null = null;

  constructor(private readonly context: PipelineContext) {}

  /** Starts the loop; resolves when `stop` has finished. */
  start(): Promise<void> {
    this.loopDone ??= this.loop();
    return this.loopDone;
  }

  /** Wakes the loop early (after a subscription change). */
  poke(): void {
    this.wake?.();
  }

  /**
   * Stops taking work, lets in-flight work finish until `deadlineMs`, then aborts what is left.
   * Aborted work writes nothing (each unit of work commits in one transaction at its end).
   */
  async stop(deadlineMs: number): Promise<{ finished: number; abandoned: number }> {
    this.stopping = true;
    this.poke();
    const pending = [...this.inFlight.values()];
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), deadlineMs)));
    const outcome = await Promise.race([Promise.allSettled(pending).then(() => 'done' as const), deadline]);
    clearTimeout(timer);
    const abandoned = outcome === 'timeout' ? this.inFlight.size : 0;
    if (abandoned > 0) {
      this.controller.abort(new Error('shutdown'));
      await Promise.allSettled([...this.inFlight.values()]);
    }
    await this.loopDone;
    return { finished: pending.length - abandoned, abandoned };
  }

  private get capacity(): number {
    return this.context.settings.http.concurrency * 2;
  }

  private track(key: string, work: Promise<void>): void {
    const tracked = work
      .catch((error: unknown) => this.context.log.error({ err: error, work: key }, 'unexpected failure'))
      .finally(() => {
        this.inFlight.delete(key);
        this.poke();
      });
    this.inFlight.set(key, tracked);
  }

  private dispatch(): void {
    const { db } = this.context;
    const now = this.context.now?.() ?? new Date();
    for (const feed of dueFeeds(db, now, this.capacity)) {
      if (this.inFlight.size >= this.capacity) return;
      const key = `feed:${feed.id}`;
      if (this.inFlight.has(key)) continue;
      this.track(key, pollFeed(this.context, feed, this.controller.signal));
    }
    if (this.context.settings.extract.enabled) {
      // CPU work in the loop itself, a few pages per pass, so that polls and captures keep flowing.
      if (extractPending(this.context, 4) > 0) setImmediate(() => this.poke());
    }
    if (!this.context.settings.capture.enabled) return;
    const room = this.capacity - this.inFlight.size;
    if (room <= 0) return;
    for (const item of pendingPages(db, now, room, this.capturing)) {
      const key = `page:${item.id}`;
      this.capturing.add(item.id);
      this.track(key, capturePage(this.context, item, this.controller.signal).finally(() => this.capturing.delete(item.id)));
    }
    const { revisit, extract } = this.context.settings;
    if (!revisit.enabled || !extract.enabled) return;
    // Revisits take what polls and first captures leave, and never more than half the slots, so
    // that a backlog of old articles cannot delay a feed poll or a new page.
    const revisitRoom = Math.min(this.capacity - this.inFlight.size, Math.ceil(this.capacity / 2) - this.revisiting.size);
    if (revisitRoom <= 0) return;
    for (const article of dueRevisits(db, now, revisitRoom, this.revisiting)) {
      this.revisiting.add(article.id);
      this.track(`revisit:${article.id}`, revisitPage(this.context, article, this.controller.signal).finally(() => this.revisiting.delete(article.id)));
    }
  }

  private sleepMs(): number {
    const next = [nextDueAt(this.context.db), nextRevisitAt(this.context.db)].filter((at): at is string => at !== null).map(Date.parse);
    if (next.length === 0) return MAX_SLEEP_MS;
    return Math.max(10, Math.min(MAX_SLEEP_MS, Math.min(...next) - Date.now()));
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      try {
        this.dispatch();
      } catch (error) {
        this.context.log.error({ err: error }, 'scheduler pass failed');
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.sleepMs());
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }
}
