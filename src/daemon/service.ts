import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { archiveName, openArchive } from '../archive/open-archive.js';
import { listAtStart } from '../config/list-sync.js';
import { listInDatabase } from '../config/list-edits.js';
import { isStorageFull, type LeaseRequest, type Store } from '../archive/store.js';
import type { Settings } from '../config/settings.js';
import { readSubscriptions } from '../config/subscriptions.js';
import { linkBase, notifyPass, queueEvents } from './notifier.js';
import { REFUSED } from '../net/address-check.js';
import { Fetcher } from '../net/fetcher.js';
import type { Logger } from '../util/logger.js';
import { Daemon, type DaemonReport } from './daemon.js';
import { createPool, poolSize } from './pool.js';
import { websubPass } from './websub.js';
import { DAEMON_OPTIONS } from './options.js';
import { capacityNote } from './capacity.js';
import { daemonStatus, processAlive } from './status.js';
import { SCHEDULE_OPTIONS } from '../schedule/options.js';

export interface RunOptions {
  settings: Settings;
  log: Logger;
  /** Stop by itself after this many ms. */
  exitAfter?: number | undefined;
  /** Handle SIGINT/SIGTERM (stop) and SIGHUP (re-read the subscription list). */
  handleSignals?: boolean;
  /** Called once the database is open and the list synced. */
  onReady?: (store: Store) => void;
  /** Called once the daemon has stopped, before the database closes (what else reads it stops here). */
  beforeClose?: () => Promise<void>;
}

/** The retention ages of the settings (ms), null for `never`. */
export const retentionAges = (settings: Settings) => ({
  polls: settings.retention.polls === 'never' ? null : settings.retention.polls,
  checks: settings.retention.checks === 'never' ? null : settings.retention.checks,
});

/** Raised when another daemon holds the database. */
export class DaemonRunningError extends Error {
  override name = 'DaemonRunningError';
}

function logReport(log: Logger, report: DaemonReport): void {
  const { done, backlog } = report;
  const fields = { ...done, backlog, memory: report.memory, pollLagSeconds: Math.round(report.pollLagMs / 1000), waitedForSlots: report.waitedForSlots, passes: report.passes, passesAtCapacity: report.passesAtCapacity, passesHeld: report.passesHeld, inFlight: report.inFlight, next: report.nextWorkAt, effort: report.effort };
  const advice = capacityNote(report);
  if (report.pollLagMs > SCHEDULE_OPTIONS.behindScheduleMs) log.warn(fields, `behind schedule: polls start late, their intervals are stretched until the backlog clears${advice ? `; ${advice}` : ''}`);
  else if (advice) log.warn(fields, `at capacity: ${advice}`);
  else if (done.poll + done.capture + done.revisit + done.extract === 0) log.info(fields, 'idle');
  else log.info(fields, 'last minute');
}

/** Who this process is to the archive's lease. */
export const daemonIdentity = (): LeaseRequest['me'] => ({ owner: randomUUID(), pid: process.pid, host: hostname() });

/** The lease a daemon asks for (a holder on this host whose process is gone died, whatever its heartbeat says). */
export const leaseRequest = (settings: Settings, me: LeaseRequest['me']): LeaseRequest => ({
  me, now: new Date(), staleAfterMs: DAEMON_OPTIONS.lease.staleAfterMs, hostDelayMs: settings.http.perHostDelay, releaseBatchMs: DAEMON_OPTIONS.claims.releaseBatchMs,
  isAlive: (holder) => holder.host !== me.host || processAlive(holder.pid),
});

/** The requisites' own Fetcher (their politeness and byte cap apart from pages': requisites/fetch.ts); made even when the settings keep none, since a feed may choose its own. */
export function requisiteFetcherFor(settings: Settings): Fetcher {
  const requisites = settings.capture.requisites;
  return new Fetcher({ ...settings.http, concurrency: requisites.concurrency, perHostDelay: requisites.perHostDelay, maxBodySize: requisites.maxBytes });
}

/**
 * `forest run`: opens the database (migrating it), takes the daemon's lease on it, syncs the
 * subscription list, and runs the daemon until a signal or `exitAfter`; then stops gracefully,
 * closes the worker pool and the database, and releases the lease.
 */
export async function runDaemon(options: RunOptions): Promise<void> {
  const { settings, log } = options;
  const threads = poolSize(settings.workers);
  // On PostgreSQL, a connection for each request in flight and each worker's extraction, and a
  // few more: a unit of work never queues for one.
  const store = await openArchive(settings.database, { create: true, connections: settings.http.concurrency + threads + DAEMON_OPTIONS.spareConnections });
  const me = daemonIdentity();
  const lease = await store.acquireLease(leaseRequest(settings, me));
  if (!lease.acquired) {
    await store.close();
    const { holder } = lease;
    throw new DaemonRunningError(`another forest daemon is running on ${archiveName(settings.database)}: pid ${holder.pid} on ${holder.host}, since ${holder.startedAt} `
      + `(last heartbeat ${holder.heartbeatAt}). Stop it first (or wait ${DAEMON_OPTIONS.lease.staleAfterMs / 1000}s after it died).`);
  }
  const sync = async () => {
    const report = await store.syncSubscriptions(readSubscriptions(settings.subscriptions), listAtStart(listInDatabase(settings)));
    log.info({ list: settings.subscriptions, ...report }, 'subscriptions synced');
  };
  if (!existsSync(settings.subscriptions)) {
    log.warn({ list: settings.subscriptions }, 'no subscription list yet: add feeds with `forest feeds add URL` or copy config/feeds.example.yaml');
  }
  try {
    await sync();
    // The settings may have changed since a feed was refused for its address (the user allowed
    // it in http.allowPrivateNetworks and restarted): such feeds are tried again now, not after
    // their failure back-off.
    const refused = await store.pollNow({ lastErrorStartsWith: REFUSED }, new Date());
    await queueEvents(store, settings.notify, linkBase(settings.serve));
    if (refused.length > 0) log.info({ feeds: refused }, 'feeds refused for their address at their last poll are polled again now (http.allowPrivateNetworks may have changed)');
  } catch (error) {
    await store.releaseLease(me.owner);
    await store.close();
    throw error;
  }
  const pool = createPool(threads, (error) => log.warn({ err: error }, 'the worker pool reported an error apart from any task (it starts another worker if one failed)'));
  const fetcher = new Fetcher(settings.http);
  const requisiteFetcher = requisiteFetcherFor(settings);
  // Several daemons on one PostgreSQL archive keep each host's politeness together — a CDN's too:
  // one request in flight per host across them all, and the shared gate's pace between them.
  fetcher.shareHosts(store.hostGate());
  requisiteFetcher.shareHosts(store.hostGate());
  let latest: DaemonReport | null = null;
  // On a shared archive each daemon takes its own hosts' work first (share.ts): the others, from their leases.
  const peers = async () => (await store.daemons()).flatMap((holder) => daemonStatus(holder) ?? []).filter((daemon) => !daemon.stale).map((daemon) => daemon.owner);
  const daemon = new Daemon({ store, fetcher, requisiteFetcher, settings, log, pool }, (report) => {
    latest = report;
    logReport(log, report);
  }, { owner: me.owner, peers });
  // Timers write too: a full database must not turn their write into an unhandled rejection (the
  // daemon reports the full database itself, once a minute).
  const unlessFull = (work: () => Promise<void>) => {
    work().catch((error: unknown) => {
      if (!isStorageFull(error)) log.error({ err: error }, 'maintenance failed');
    });
  };
  // Operational logs are summarised and dropped once a day (the first time a few minutes in,
  // so that a restart loop does not run it over and over).
  const retain = async () => {
    const report = await store.applyRetention(retentionAges(settings), new Date());
    if (report.polls + report.checks + report.requisites > 0) log.info(report, 'old polls and checks summarised per day; requisites of captures found unchanged dropped');
  };
  let retention = setTimeout(function again() {
    unlessFull(retain);
    retention = setTimeout(again, DAEMON_OPTIONS.retention.everyMs);
  }, DAEMON_OPTIONS.retention.firstMs);
  const heartbeat = setInterval(() => unlessFull(async () => {
    // The minute's report, with what cannot wait a minute: that the database is full.
    const status = { ...(latest ?? await daemon.report()), storageFullSince: daemon.storageFullSince };
    const wasAlone = store.hostGate()?.isAlone;
    if (!(await store.renewLease(me.owner, new Date(), status))) log.error('the daemon lease was taken over by another process');
    const alone = store.hostGate()?.isAlone;
    if (alone !== wasAlone) log.info({ alone }, alone ? 'alone on the archive: hosts kept in this daemon\'s own queues' : 'another daemon on the archive: hosts kept with it');
  }), DAEMON_OPTIONS.lease.heartbeatMs);
  // Webhook notifications: the outbox filled and delivered every few seconds, one pass at a time.
  let notifying: Promise<void> | null = null;
  const notifier = settings.notify.webhooks.length === 0 ? null : setInterval(() => {
    notifying ??= notifyPass(store, settings.notify, linkBase(settings.serve), log)
      .catch((error: unknown) => {
        if (!isStorageFull(error)) log.error({ err: error }, 'notifications failed');
      })
      .finally(() => (notifying = null));
  }, DAEMON_OPTIONS.notify.every);
  // WebSub: subscriptions requested, renewed and ended, one pass at a time.
  let subscribing: Promise<void> | null = null;
  const websubStop = new AbortController();
  const websub = settings.websub.callbackUrl === null ? null : setInterval(() => {
    subscribing ??= websubPass(store, fetcher, settings.websub, log, new Date(), websubStop.signal)
      .catch((error: unknown) => {
        if (!isStorageFull(error)) log.error({ err: error }, 'WebSub pass failed');
      })
      .finally(() => (subscribing = null));
  }, DAEMON_OPTIONS.websub.every);
  options.onReady?.(store);

  let stopping: Promise<void> | null = null;
  const stop = (why: string) => {
    stopping ??= (async () => {
      log.info({ why, deadlineMs: settings.shutdown.deadline }, 'stopping');
      const result = await daemon.stop(settings.shutdown.deadline);
      log.info(result, 'stopped');
    })();
    return stopping;
  };
  const onSignal = (signal: NodeJS.Signals) => void stop(signal);
  const onHangup = () => {
    sync().then(() => daemon.poke(), (error: unknown) => {
      // A broken list on SIGHUP keeps the old one running.
      log.error({ error: (error as Error).message }, 'subscription list not reloaded');
    });
  };
  if (options.handleSignals) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    process.on('SIGHUP', onHangup);
  }
  const timer = options.exitAfter !== undefined ? setTimeout(() => void stop('exit-after'), options.exitAfter) : null;
  log.info({ database: archiveName(settings.database), feeds: await store.enabledFeedCount(), workers: pool.threads, settings: settings.file ?? 'the defaults (config/default.yaml): no --config' }, 'forest running');
  try {
    await daemon.start();
    await stopping;
  } finally {
    if (timer) clearTimeout(timer);
    clearInterval(heartbeat);
    if (notifier) clearInterval(notifier);
    await notifying;
    if (websub) clearInterval(websub);
    websubStop.abort();
    await subscribing;
    clearTimeout(retention);
    if (options.handleSignals) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.off('SIGHUP', onHangup);
    }
    await pool.close();
    await options.beforeClose?.();
    await fetcher.settled();
    await store.releaseLease(me.owner);
    await store.close();
  }
}
