import type { Settings } from '../config/settings.js';
import type { Store } from './store.js';

/**
 * Opens the archive the settings name — the one place outside a backend that knows which
 * backends there are: PostgreSQL when `database.url` is set, else the SQLite file at
 * `database.path`. Callers get the Store contract, never a backend's own type or handle.
 * `create`: make a missing SQLite archive (the commands that build one: run, demo, feeds);
 * without it a missing file is an error that says so. A PostgreSQL database must exist; its
 * tables are created (migrated) on open. `connections`: how many PostgreSQL connections the
 * process may hold at once (a daemon: one per unit of work it runs at a time, and a few more).
 * Each engine is loaded when it is chosen: a SQLite run never loads `pg`, and a command that
 * opens no archive loads neither.
 */
export async function openArchive(database: Pick<Settings['database'], 'path' | 'maxSize'> & { url?: string | null }, options: { create?: boolean; connections?: number } = {}): Promise<Store> {
  if (database.url) return (await import('./postgres/store.js')).openPgStore(database.url, options.connections);
  return (await import('./sqlite/store.js')).openStore(database.path, { create: options.create ?? false, maxSize: database.maxSize });
}

/** Where the archive is, for messages: the file, or the PostgreSQL URL without its password. */
export const archiveName = (database: Pick<Settings['database'], 'path'> & { url?: string | null }): string =>
  database.url ? database.url.replace(/(\/\/[^:@/]*):[^@/]*@/, '$1@') : database.path;

/** Whether another process (a `forest serve`, a daemon) has the archive open: replacing it under them would lose their work. */
export async function archiveInUse(database: Pick<Settings['database'], 'path'>): Promise<boolean> {
  return (await import('./sqlite/store.js')).archiveFileInUse(database.path);
}
