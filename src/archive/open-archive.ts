import type { Settings } from '../config/settings.js';
import { archiveFileInUse, openStore } from './sqlite-store.js';
import type { Store } from './store.js';

/**
 * Opens the archive the settings name — the one place outside a backend that knows which
 * backends there are. Callers get the Store contract, never a backend's own type or handle.
 * `create`: make a missing archive (the commands that build one: run, demo, feeds); without it a
 * missing archive is an error that says so.
 */
export function openArchive(database: Settings['database'], options: { create?: boolean } = {}): Store {
  return openStore(database.path, { create: options.create ?? false, maxSize: database.maxSize });
}

/** Whether another process (a `forest serve`, a daemon) has the archive open: replacing it under them would lose their work. */
export function archiveInUse(database: Pick<Settings['database'], 'path'>): boolean {
  return archiveFileInUse(database.path);
}
