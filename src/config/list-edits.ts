import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Feed, ListSync, Subscription, SyncReport } from '../archive/store.js';
import { archiveName } from '../archive/open-archive.js';
import { ConfigError } from './errors.js';
import type { Settings } from './settings.js';
import { listEdit } from './list-sync.js';
import { readSubscriptions } from './subscriptions.js';

/** What an edit of the list needs of the archive. */
export interface ListArchive {
  feeds(): Promise<Feed[]>;
  syncSubscriptions(subscriptions: Subscription[], how: ListSync): Promise<SyncReport>;
}

/** Where the list lives: this machine's file (SQLite), or the shared archive's database (PostgreSQL), named for errors. */
export type ListHome = { file: string } | { shared: string };

/** Whether the archive's subscription list is its database (a PostgreSQL archive several daemons may share) rather than the file. */
export const listInDatabase = (settings: Pick<Settings, 'database'>): boolean => settings.database.url !== null;

/** Where the list of an archive with these settings lives. */
export const listHome = (settings: Pick<Settings, 'subscriptions' | 'database'>): ListHome =>
  listInDatabase(settings) ? { shared: `the shared list of ${archiveName(settings.database)}` } : { file: settings.subscriptions };

/**
 * Runs an edit of the subscription list (`edit` is handed the YAML file to edit) and brings the
 * archive along. On SQLite the file is the list: it is edited, and the archive follows the whole
 * of it. On a shared PostgreSQL archive the database is the list: the edit is made on a scratch
 * copy of the archive's own list and only what it changed is sent (config/list-sync.ts) — this
 * machine's file is neither read nor written; it joins the archive when its daemon starts.
 */
export async function editSubscriptionList<T>(archive: ListArchive, home: ListHome, edit: (file: string) => T): Promise<{ result: T; report: SyncReport }> {
  if ('file' in home) return editFile(archive, home.file, false, edit);
  const dir = mkdtempSync(join(tmpdir(), 'forest-list-'));
  const scratch = join(dir, 'feeds.yaml');
  try {
    writeFileSync(scratch, stringify((await archive.feeds()).map((feed) => entryOf(feed.subscription))));
    return await editFile(archive, scratch, true, edit);
  } catch (error) {
    // The scratch copy is no file of the user's: the error names the shared list instead.
    if (error instanceof ConfigError && error.file === scratch) throw new ConfigError(home.shared, null, error.field, error.problem);
    throw error;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An edit of one list file, and what it changed sent to the archive (list-sync.ts, listEdit). */
async function editFile<T>(archive: ListArchive, file: string, shared: boolean, edit: (file: string) => T): Promise<{ result: T; report: SyncReport }> {
  const before = readSubscriptions(file);
  const result = edit(file);
  const { subscriptions, how } = listEdit(before, readSubscriptions(file), shared);
  return { result, report: await archive.syncSubscriptions(subscriptions, how) };
}

/** A subscription as a list entry: only what differs from the defaults. */
export function entryOf(subscription: Subscription): Record<string, unknown> {
  const entry: Record<string, unknown> = { url: subscription.url };
  if (subscription.title) entry['title'] = subscription.title;
  if (subscription.siteUrl) entry['siteUrl'] = subscription.siteUrl;
  if (subscription.tags.length > 0) entry['tags'] = subscription.tags;
  if (subscription.schedule) entry['schedule'] = subscription.schedule;
  if (!subscription.enabled) entry['enabled'] = false;
  if (subscription.requisites) entry['requisites'] = subscription.requisites;
  return entry;
}
