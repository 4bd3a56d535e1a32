import type { Command } from 'commander';
import type { SyncReport } from '../archive/store.js';
import { openArchive } from '../archive/open-archive.js';
import type { Store } from '../archive/store.js';
import { loadSettings, type Settings } from '../config/settings.js';
import { listAtStart } from '../config/list-sync.js';
import { editSubscriptionList, listHome, listInDatabase } from '../config/list-edits.js';
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
 * Runs `work` with the archive open, and closes it whatever happens. Only commands that build
 * the archive (`run`, `demo`, `feeds`) create a missing one (see openArchive).
 */
export async function withStore<T>(settings: Settings, work: (store: Store) => Promise<T>, options: { create?: boolean } = {}): Promise<T> {
  const store = await openArchive(settings.database, options);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** Reads the subscription list and brings the archive along: the whole file on SQLite, the feeds it lacks on PostgreSQL (config/list-sync.ts). */
export function syncFromList(store: Store, settings: Settings): Promise<SyncReport> {
  return store.syncSubscriptions(readSubscriptions(settings.subscriptions), listAtStart(listInDatabase(settings)));
}

/**
 * Runs an edit of the subscription list (`edit` is handed the YAML file to edit), then brings the
 * archive along (config/list-edits.ts): on SQLite the file is edited and the archive follows it;
 * on PostgreSQL only the edit reaches the shared list, and this machine's file is left alone.
 */
export function editList<T>(settings: Settings, edit: (file: string) => T): Promise<T> {
  return withStore(settings, async (store) => (await editSubscriptionList(store, listHome(settings), edit)).result, { create: true });
}

export const printJson = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value)}\n`);
};

/** A mistake in how a command was called (exit code 2, one line, no stack trace). */
export class UsageError extends Error {
  override name = 'UsageError';
}
