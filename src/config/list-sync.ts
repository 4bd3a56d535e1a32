import type { ListSync, Subscription } from '../archive/store.js';

/**
 * How an edit of a subscription file reaches the archive (pure). On SQLite the file is the list:
 * the archive matches the whole file. On PostgreSQL, where several daemons on several machines
 * share one archive, the database is the list and each machine's file only feeds it: an edit
 * sends what it changed — the feeds it added or changed, the ones it removed — and nothing of
 * the rest, so that a feed another machine disabled is not enabled again by this one's file.
 */
export function listEdit(before: Subscription[], after: Subscription[], listInDatabase: boolean): { subscriptions: Subscription[]; how: ListSync } {
  if (!listInDatabase) return { subscriptions: after, how: { mode: 'replace' } };
  const was = new Map(before.map((subscription) => [subscription.url, subscription]));
  const changed = after.filter((subscription) => !sameSubscription(was.get(subscription.url), subscription));
  const kept = new Set(after.map((subscription) => subscription.url));
  return { subscriptions: changed, how: { mode: 'change', removed: before.filter((subscription) => !kept.has(subscription.url)).map((subscription) => subscription.url) } };
}

/** A daemon's start (or SIGHUP): the whole file (SQLite), or only the feeds the shared archive lacks (PostgreSQL). */
export function listAtStart(listInDatabase: boolean): ListSync {
  return listInDatabase ? { mode: 'add' } : { mode: 'replace' };
}

function sameSubscription(a: Subscription | undefined, b: Subscription): boolean {
  return a !== undefined && (a.title ?? null) === (b.title ?? null) && (a.siteUrl ?? null) === (b.siteUrl ?? null) && (a.schedule ?? null) === (b.schedule ?? null)
    && a.enabled === b.enabled && a.tags.join('\n') === b.tags.join('\n');
}
