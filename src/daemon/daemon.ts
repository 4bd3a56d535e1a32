import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { isStorageFull, type Backlog, type ClaimRef, type WorkKind, type WorkRef } from '../archive/store.js';
import { planDispatch, workKey, type DispatchPlan } from './dispatch.js';
import { ExtractedAhead } from './extracted-ahead.js';
import { HostTrouble } from './host-trouble.js';
import { RequisiteLane, type LaneOptions } from './requisites.js';
import { Extractor } from './extraction.js';
import type { PipelineContext } from './context.js';
import { capturePage, pollFeed, revisitPage } from './pipeline.js';
import { settlesWithin } from '../util/deadline.js';
import { DAEMON_OPTIONS } from './options.js';
import { Effort, meteredStore, type EffortReport } from './effort.js';
import { OwnHosts, ownHostsFirst } from './share.js';

const megabytes = (usage: NodeJS.MemoryUsage) => ({
  rss: Math.round(usage.rss / 2 ** 20), heap: Math.round(usage.heapUsed / 2 ** 20), external: Math.round(usage.external / 2 ** 20),
});

/** What the daemon did in the last report period, and how far behind it is. */
export interface DaemonReport {
  at: string;
  periodMs: number;
  done: Record<WorkKind | 'extract', number>;
  backlog: Backlog;
  /** The longest a poll started in the period had been due (ms): how far behind the schedule is. */
  pollLagMs: number;
  /** Due work that waited for a free slot during the period (the most in one pass). */
  waitedForSlots: number;
  /** The period's scheduler passes, and those that left due work waiting for a slot (capacity.ts). */
  passes: number;
  passesAtCapacity: number;
  /** The period's passes that took no page or revisit because the requisite lane was behind (DAEMON_OPTIONS.requisites.holdCapturesAt). */
  passesHeld: number;
  /** The request slots (http.concurrency) the daemon runs with; null in an older daemon's report. */
  slots: number | null;
  inFlight: number;
  nextWorkAt: string | null;
  /** The main thread's memory (MB): resident for the process, heap and buffers for this thread. */
  memory: { rss: number; heap: number; external: number };
  /** Since when the database has been full (no new work is started), or null. */
  storageFullSince: string | null;
  /** The settings file the daemon runs with (`--config`), or null: the defaults alone. */
  settingsFile: string | null;
  /** Where the period's time went (effort.ts): in the reports the loop writes each minute. */
  effort?: EffortReport;
}

/** Who this daemon is on a shared archive, and who else works on it (share.ts). */
export interface WorkShare {
  owner: string;
  /** The owners of the live daemons on the archive, this one's included. */
  peers: () => Promise<string[]>;
}

/**
 * The scheduler loop: polls feeds when due, captures pending pages, revisits archived articles,
 * and feeds captured pages to the worker pool for extraction. Each pass takes due work in
 * priority order through the host-aware plan (dispatch.ts), with at most one request per host.
 * The loop sleeps until the next due time, the next host's politeness delay or the end of a unit
 * of work — never in a busy loop. All state is in the database, so a restart picks up exactly
 * where this left off.
 */
export class Daemon {
  private readonly controller = new AbortController();
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Units another daemon held when this one asked (WorkStore.claim), and until when they are passed over. */
  private readonly refused = new Map<string, number>();
  private readonly extractor: Extractor;
  private stopping = false;
  /** When this daemon started: polls that fell due while no daemon ran are not its lateness. */
  private readonly startedAt = Date.now();
  private wake: (() => void) | null = null;
  private woken = false;
  private loopDone: Promise<void> | null = null;
  private period = this.freshPeriod();
  /** Whether new pages are held for the requisite lane now, the holds no log line has told yet, and when the last one was written (ms since the epoch). */
  private held = { now: false, untold: 0, toldAt: 0 };
  /** While the database is full: since when, and when that was last logged. */
  private full: { since: number; loggedAt: number; error: string } | null = null;

  private readonly context: PipelineContext;
  private readonly effort = new Effort();
  /** Captures' requisites, fetched beside the daemon's work. */
  private readonly lane: RequisiteLane | null;

  /** The live daemons on the archive (their owners), as last read, and when (share.ts). */
  private peers: { owners: string[]; readAt: number } = { owners: [], readAt: 0 };
  private readonly ownHosts = new OwnHosts();

  constructor(context: PipelineContext, private readonly onReport?: (report: DaemonReport) => void, private readonly share?: WorkShare, lane: LaneOptions = DAEMON_OPTIONS.requisites) {
    // Every request in flight and every one waiting for its host listens on the daemon's signal
    // (and lets go when it ends): many at once is the normal case, not a leak.
    setMaxListeners(context.settings.http.concurrency * 4 + 64, this.controller.signal);
    this.lane = context.requisiteFetcher ? new RequisiteLane(context, lane) : null;
    // The daemon's calls to its archive are timed (effort.ts); the store itself stays as it is for everyone else.
    this.context = { ahead: new ExtractedAhead(), requisites: this.lane, hostTrouble: new HostTrouble(context.settings.revisit.retryDelay), ...context, store: meteredStore(context.store, this.effort) };
    this.extractor = new Extractor(this.context, Math.max(1, context.pool.threads) * DAEMON_OPTIONS.extraction.perThread);
  }

  /** Starts the loop; resolves when `stop` has finished. */
  start(): Promise<void> {
    // The lane first takes up what the last run left waiting for its requisites.
    this.lane?.start();
    this.loopDone ??= this.loop();
    return this.loopDone;
  }

  /** Wakes the loop early (after a subscription change, or when work ends). */
  poke(): void {
    this.woken = true;
    this.wake?.();
  }

  /**
   * Stops taking work — no new request leaves from here on — lets in-flight work finish until
   * `deadlineMs`, then aborts what is left. Aborted work writes nothing (each unit of work
   * commits in one transaction at its end).
   */
  async stop(deadlineMs: number): Promise<{ finished: number; abandoned: number }> {
    this.stopping = true;
    this.context.fetcher.close();
    this.poke();
    await this.loopDone;
    const pending = [...this.inFlight.values()];
    const requisites = this.lane?.stop(deadlineMs);
    const abandoned = (await settlesWithin(Promise.allSettled(pending), deadlineMs)) ? 0 : this.inFlight.size;
    if (abandoned > 0) {
      this.controller.abort(new Error('shutdown'));
      await Promise.allSettled([...this.inFlight.values()]);
    }
    await requisites;
    this.context.requisiteFetcher?.close();
    return { finished: pending.length - abandoned, abandoned };
  }

  /** Since when the database has been full, or null. */
  get storageFullSince(): string | null {
    return this.full ? new Date(this.full.since).toISOString() : null;
  }

  /** A report of the current period (also written each minute by the loop). */
  async report(): Promise<DaemonReport> {
    const now = this.now();
    const next = await this.context.store.nextWorkAt(this.kinds());
    return {
      at: now.toISOString(),
      periodMs: now.getTime() - this.period.started,
      done: { ...this.period.done },
      backlog: await this.context.store.backlog(now),
      pollLagMs: this.period.pollLagMs,
      waitedForSlots: this.period.waitedForSlots,
      passes: this.period.passes,
      passesAtCapacity: this.period.passesAtCapacity,
      passesHeld: this.period.passesHeld,
      slots: this.context.settings.http.concurrency,
      inFlight: this.inFlight.size,
      nextWorkAt: next === null ? null : new Date(next).toISOString(),
      memory: megabytes(process.memoryUsage()),
      storageFullSince: this.storageFullSince,
      settingsFile: this.context.settings.file ?? null,
    };
  }

  private freshPeriod() {
    return { started: Date.now(), done: { poll: 0, capture: 0, revisit: 0, extract: 0 }, pollLagMs: 0, waitedForSlots: 0, passes: 0, passesAtCapacity: 0, passesHeld: 0 };
  }

  private now(): Date {
    return this.context.now?.() ?? new Date();
  }

  private kinds() {
    const { capture, revisit, extract } = this.context.settings;
    return { capture: capture.enabled, revisit: revisit.enabled && extract.enabled };
  }

  /** Tracks a unit of work until it ends. */
  private track(key: string, work: Promise<unknown>, kind: WorkKind | 'extract'): void {
    const started = performance.now();
    const tracked = work
      .then(() => {
        this.period.done[kind]++;
      })
      .catch((error: unknown) => {
        if (isStorageFull(error)) this.noteFull(error);
        else this.context.log.error({ err: error, work: key }, 'unexpected failure');
      })
      .finally(() => {
        this.effort.worked(kind, performance.now() - started);
        this.inFlight.delete(key);
        // The pool is refilled at once, not at the next pass: passes are spaced (DAEMON_OPTIONS.loop.minPassGapMs)
        // and a pass's wait would leave worker threads idle.
        if (kind === 'extract' && !this.stopping && !this.full) void this.fillExtraction();
        this.poke();
      });
    this.inFlight.set(key, tracked);
  }

  /** Starts extractions the pool has room for; a failure to read the queue is reported, never an unhandled rejection. */
  private fillExtraction(): Promise<void> {
    if (!this.context.settings.extract.enabled) return Promise.resolve();
    return this.extractor.fill((key, work) => this.track(key, work, 'extract')).then(() => undefined, (error: unknown) => {
      if (isStorageFull(error)) this.noteFull(error);
      else this.context.log.error({ err: error }, 'could not start extractions');
    });
  }

  /**
   * Starts the unit of work `ref` names, claimed (WorkStore.claimAll: on a shared archive, another
   * daemon may hold it). It holds its key from now on: the next pass cannot start it twice.
   */
  private begin(ref: WorkRef): void {
    const { store } = this.context;
    const signal = this.controller.signal;
    const claim: ClaimRef = { kind: ref.kind, id: ref.id };
    const work = async () => {
      try {
        await this.run(ref, signal);
      } finally {
        await store.release(claim, this.now());
      }
    };
    this.track(workKey(ref), work(), ref.kind);
  }

  /** Does the unit `ref` names, with its current state (it may have changed since the pass read it). */
  private async run(ref: WorkRef, signal: AbortSignal): Promise<void> {
    const { store } = this.context;
    if (ref.kind === 'poll') {
      const feed = await store.feedToPoll(ref.id);
      // The poll sees how far behind the daemon is (to stretch its interval, and not to blame
      // the feed for a timeout that was Forest's).
      if (feed) await pollFeed({ ...this.context, pollLag: () => this.period.pollLagMs }, feed, signal);
    } else if (ref.kind === 'capture') {
      const item = await store.itemToCapture(ref.id);
      if (item) await capturePage(this.context, item, signal);
    } else {
      const article = await store.articleToRevisit(ref.id);
      if (article) await revisitPage(this.context, article, signal);
    }
  }

  /**
   * The database (or the disk) is full: no unit of work can record what it did, so none is
   * started — what is committed stays, and the work stays due. Said once a minute, not per unit.
   */
  private noteFull(error: unknown): void {
    this.full ??= { since: Date.now(), loggedAt: 0, error: (error as Error).message };
    this.sayFull(this.full);
  }

  private sayFull(full: NonNullable<Daemon['full']>): void {
    const now = Date.now();
    if (now - full.loggedAt < DAEMON_OPTIONS.loop.fullLogEveryMs) return;
    full.loggedAt = now;
    this.context.log.error({ since: new Date(full.since).toISOString(), error: full.error, database: this.context.settings.database.path },
      'the database is full: no new work is started until there is room (free some with `forest vacuum`, raise database.maxSize, or free disk space); nothing committed is lost');
  }

  /** While full: whether room is back (then work resumes), else when to test again. */
  private async stillFull(): Promise<number | null> {
    if (!this.full) return null;
    if (await this.context.store.hasRoomToWrite()) {
      this.context.log.info({ fullFor: `${Math.round((Date.now() - this.full.since) / 1000)}s` }, 'the database has room again: resuming work');
      this.full = null;
      return null;
    }
    this.sayFull(this.full);
    return Date.now() + DAEMON_OPTIONS.loop.fullProbeEveryMs;
  }

  /**
   * Whether captures wait for the requisite lane (DAEMON_OPTIONS.requisites.holdCapturesAt). A lane
   * that stays behind holds and releases every few seconds, as it takes captures off its list:
   * a hold is told at most once a report period, with how many there were and the setting that
   * would make the lane faster; the minute report counts the passes held.
   */
  private heldForRequisites(): boolean {
    const { lane, held } = this;
    const behind = lane?.behind ?? false;
    if (behind) this.period.passesHeld++;
    if (behind && !held.now) {
      held.untold++;
      if (Date.now() - held.toldAt >= DAEMON_OPTIONS.loop.reportEveryMs) {
        this.context.log.warn({ waiting: lane?.pending, holds: held.untold, requisiteConcurrency: this.context.settings.capture.requisites.concurrency },
          'captures held: so many captures wait for their requisites that new pages wait too (polls go on); raise capture.requisites.concurrency to fetch more requisites at once');
        held.toldAt = Date.now();
        held.untold = 0;
      }
    }
    held.now = behind;
    return behind;
  }

  /** One scheduler pass; returns when to look again (ms since the epoch), or null to wait for work to end. */
  private async pass(): Promise<number | null> {
    const { store, fetcher, settings } = this.context;
    const retryAt = await this.stillFull();
    if (retryAt !== null) return retryAt;
    const started = performance.now();
    const now = this.now();
    const kinds = this.kinds();
    void this.fillExtraction();
    // Revisits wait while extraction is behind: a page fetched now would wait in the queue behind
    // first captures, and only add to it (the overload degrades into later checks, not into a
    // growing pile of unextracted pages).
    const revisitsNow = kinds.revisit && !(await store.extractionBacklogOver(DAEMON_OPTIONS.loop.extractionBacklogForRevisits));
    // New pages and revisits wait while the requisite lane is behind: a page captured now would
    // wait for its pictures and style sheets behind thousands.
    const pagesNow = !this.heldForRequisites();
    for (const [key, until] of this.refused) if (until <= Date.now()) this.refused.delete(key);
    const slots = settings.http.concurrency;
    const requests = [...this.inFlight.keys()].filter((key) => !key.startsWith('extract:'));
    const revisits = requests.filter((key) => key.startsWith('revisit:')).length;
    const room = slots - requests.length;
    // Enough candidates to fill the free slots after passing over every host that is not ready;
    // when one host's many pages fill the candidates (a feed's 30 new items), look further.
    let look = Math.min(DAEMON_OPTIONS.loop.candidates, room + fetcher.unreadyHosts + 8);
    let plan: DispatchPlan = { start: [], wakeAt: null, waitingForSlots: 0 };
    // With other daemons on the archive, each takes its own hosts' work first (share.ts): it reads
    // as many candidates again per daemon, so that its own share of them can fill its slots.
    const owners = await this.liveDaemons();
    if (owners.length > 1) look = Math.min(DAEMON_OPTIONS.loop.candidates, look * owners.length);
    const mine = (refs: WorkRef[]) => (this.share ? ownHostsFirst(refs, owners, this.share.owner, this.ownHosts) : refs);
    while (room > 0) {
      const due = {
        poll: mine(await store.duePolls(now, look)),
        capture: kinds.capture && pagesNow ? mine(await store.dueCaptures(now, look)) : [],
        revisit: revisitsNow && pagesNow ? mine(await store.dueRevisits(now, look)) : [],
      };
      plan = planDispatch({
        due,
        // Units another daemon holds are passed over as if in flight here.
        inFlight: new Set([...this.inFlight.keys(), ...this.refused.keys()]),
        room,
        // Revisits take at most half the slots: a wave of them never holds the ones a poll wants.
        revisitRoom: Math.ceil(slots / 2) - revisits,
        readyAt: (host) => fetcher.readyAt(host),
      });
      const exhausted = Object.values(due).every((refs) => refs.length < look);
      if (plan.start.length >= room || plan.waitingForSlots > 0 || exhausted || look >= DAEMON_OPTIONS.loop.candidates) break;
      look = Math.min(DAEMON_OPTIONS.loop.candidates, look * 4);
    }
    // What the pass starts is claimed together: on PostgreSQL one round trip for all of it.
    const granted = await store.claimAll(plan.start.map((ref): ClaimRef => ({ kind: ref.kind, id: ref.id })), this.now());
    this.effort.pass(performance.now() - started, plan.start.length, granted.filter((ok) => !ok).length);
    plan.start.forEach((ref, index) => {
      if (!granted[index]) {
        this.refused.set(workKey(ref), Date.now() + DAEMON_OPTIONS.claims.refusedBackoffMs);
        return;
      }
      // Lateness counts from the daemon's start: right after a restart, the polls due while it was
      // down are a backlog it has not yet had a chance to be behind on.
      if (ref.kind === 'poll') this.period.pollLagMs = Math.max(this.period.pollLagMs, now.getTime() - Math.max(ref.dueAt, this.startedAt));
      this.begin(ref);
    });
    this.period.waitedForSlots = Math.max(this.period.waitedForSlots, plan.waitingForSlots);
    this.period.passes++;
    if (plan.waitingForSlots > 0) this.period.passesAtCapacity++;
    // Work that ended during the pass has asked for another pass already (poke): when to wake is
    // not needed, and on a server archive the question is a round trip a pass.
    if (this.woken) return plan.wakeAt;
    const next = await store.nextWorkAt(kinds);
    const refusedUntil = this.refused.size ? Math.min(...this.refused.values()) : null;
    const times = [plan.wakeAt, next !== null && next > now.getTime() ? next : null, refusedUntil].filter((at): at is number => at !== null);
    return times.length ? Math.min(...times) : null;
  }

  /** The live daemons on the archive, read again every DAEMON_OPTIONS.claims.peersEveryMs. */
  private async liveDaemons(): Promise<string[]> {
    if (!this.share || Date.now() - this.peers.readAt < DAEMON_OPTIONS.claims.peersEveryMs) return this.peers.owners;
    this.peers = { owners: (await this.share.peers()).sort(), readAt: Date.now() };
    return this.peers.owners;
  }

  private async maybeReport(): Promise<void> {
    if (Date.now() - this.period.started < DAEMON_OPTIONS.loop.reportEveryMs) return;
    const report = { ...(await this.report()), effort: this.effort.take(this.context.pool.threadIds) };
    this.period = this.freshPeriod();
    this.onReport?.(report);
  }

  private async loop(): Promise<void> {
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    while (!this.stopping) {
      let wakeAt: number | null = null;
      this.woken = false;
      const passAt = Date.now();
      try {
        wakeAt = await this.pass();
        await this.maybeReport();
      } catch (error) {
        if (isStorageFull(error)) this.noteFull(error);
        else this.context.log.error({ err: error }, 'scheduler pass failed');
      }
      if (this.stopping) break;
      // Work that ended during the pass already asked for another. Passes that work endings ask
      // for are spaced a little, so that a burst of endings is met by one pass, not by one each.
      if (this.woken) {
        await pause(Math.max(0, passAt + DAEMON_OPTIONS.loop.minPassGapMs - Date.now()));
        continue;
      }
      const untilReport = this.period.started + DAEMON_OPTIONS.loop.reportEveryMs - Date.now();
      const sleep = Math.max(0, Math.min(DAEMON_OPTIONS.loop.maxSleepMs, untilReport, wakeAt === null ? Infinity : wakeAt - this.now().getTime()));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, sleep);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
      if (this.woken) await pause(Math.max(0, passAt + DAEMON_OPTIONS.loop.minPassGapMs - Date.now()));
    }
  }
}
