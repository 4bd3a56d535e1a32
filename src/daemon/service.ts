import { existsSync } from 'node:fs';
import { openDatabase, type Db } from '../archive/database.js';
import { syncSubscriptions } from '../archive/feeds.js';
import type { Settings } from '../config/settings.js';
import { readSubscriptions } from '../config/subscriptions.js';
import { Fetcher } from '../net/fetcher.js';
import type { Logger } from '../util/logger.js';
import { Daemon } from './daemon.js';

export interface RunOptions {
  settings: Settings;
  log: Logger;
  /** Stop by itself after this many ms. */
  exitAfter?: number | undefined;
  /** Handle SIGINT/SIGTERM (stop) and SIGHUP (re-read the subscription list). */
  handleSignals?: boolean;
  /** Called once the database is open and the list synced. */
  onReady?: (db: Db) => void;
}

/**
 * `forest run`: opens the database (migrating it), syncs the subscription list, and runs the
 * daemon until a signal or `exitAfter`; then stops gracefully and closes the database.
 */
export async function runDaemon(options: RunOptions): Promise<void> {
  const { settings, log } = options;
  const db = openDatabase(settings.database.path);
  const sync = () => {
    const report = syncSubscriptions(db, readSubscriptions(settings.subscriptions));
    log.info({ list: settings.subscriptions, ...report }, 'subscriptions synced');
  };
  if (!existsSync(settings.subscriptions)) {
    log.warn({ list: settings.subscriptions }, 'no subscription list yet: add feeds with `forest feeds add URL` or copy config/feeds.example.yaml');
  }
  try {
    sync();
  } catch (error) {
    db.close();
    throw error;
  }
  const daemon = new Daemon({ db, fetcher: new Fetcher(settings.http), settings, log });
  options.onReady?.(db);

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
    try {
      sync();
      daemon.poke();
    } catch (error) {
      // A broken list on SIGHUP keeps the old one running.
      log.error({ error: (error as Error).message }, 'subscription list not reloaded');
    }
  };
  if (options.handleSignals) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    process.on('SIGHUP', onHangup);
  }
  const timer = options.exitAfter !== undefined ? setTimeout(() => void stop('exit-after'), options.exitAfter) : null;
  log.info({ database: settings.database.path, feeds: db.prepare('SELECT COUNT(*) FROM feeds WHERE enabled = 1 AND subscribed = 1').pluck().get() }, 'forest running');
  try {
    await daemon.start();
    await stopping;
  } finally {
    if (timer) clearTimeout(timer);
    if (options.handleSignals) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.off('SIGHUP', onHangup);
    }
    db.close();
  }
}
