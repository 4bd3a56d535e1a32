import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { openDatabase, type Db } from '../archive/database.js';
import { syncSubscriptions, type SyncReport } from '../archive/feeds.js';
import { loadSettings, type Settings } from '../config/settings.js';
import { readSubscriptions } from '../config/subscriptions.js';

export interface GlobalOptions {
  config?: string;
  db?: string;
}

/** Settings for a command, from its `--config` and `--db`. */
export function settingsFor(command: Command): Settings {
  const options = command.optsWithGlobals<GlobalOptions>();
  return loadSettings({ configFile: options.config, databasePath: options.db });
}

/**
 * Runs `work` with the database open, and closes it whatever happens. Only commands that build
 * the archive (`run`, `demo`, `feeds`) create a missing database; every other command refuses
 * it, because an empty archive made on the spot would look like an archive that lost everything
 * (and a script would read exit 0 as success).
 */
export async function withDatabase<T>(settings: Settings, work: (db: Db) => T | Promise<T>, options: { create?: boolean } = {}): Promise<T> {
  const path = settings.database.path;
  if (!options.create && path !== ':memory:' && !existsSync(path)) {
    throw new Error(`no archive at ${path}: \`forest run\` creates it (\`forest demo\` makes a demo one), or point --db (or database.path) at an existing archive`);
  }
  const db = openDatabase(path);
  try {
    return await work(db);
  } finally {
    db.close();
  }
}

/** Reads the subscription list and makes the database match it. */
export function syncFromList(db: Db, settings: Settings): SyncReport {
  return syncSubscriptions(db, readSubscriptions(settings.subscriptions));
}

export const printJson = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value)}\n`);
};

/** A mistake in how a command was called (exit code 2, one line, no stack trace). */
export class UsageError extends Error {
  override name = 'UsageError';
}
