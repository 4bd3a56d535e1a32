import type { ListSync, Subscription } from './store.js';

/**
 * How a subscription list meets the feeds table, written once for both engines' syncs
 * (feeds.ts, postgres/feeds.ts): what a listed subscription writes, when that changes its row,
 * and when a feed the list no longer holds is unsubscribed (never deleted).
 */

/** What of a feeds row the list decides (feeds.ts's FeedRow has it all). */
interface FeedRow {
  subscribed_url: string;
  title: string | null;
  site_url: string | null;
  tags: string;
  cron: string | null;
  enabled: number;
  requisites: string | null;
  subscribed: number;
}

/** A subscription as its feeds row holds it. */
export function feedValues(subscription: Subscription, stamp: string) {
  return {
    url: subscription.url, title: subscription.title ?? null, siteUrl: subscription.siteUrl ?? null, tags: JSON.stringify(subscription.tags),
    cron: subscription.schedule ?? null, enabled: subscription.enabled ? 1 : 0,
    requisites: subscription.requisites === null || subscription.requisites === undefined ? null : JSON.stringify(subscription.requisites), stamp,
  };
}

/** Whether a listed subscription changes its existing feed's row (a list that only adds changes none). */
export const changesFeed = (row: FeedRow, values: ReturnType<typeof feedValues>, how: ListSync): boolean =>
  how.mode !== 'add' && (row.title !== values.title || row.tags !== values.tags || row.cron !== values.cron || row.enabled !== values.enabled || row.requisites !== values.requisites
    || row.subscribed !== 1 || (values.siteUrl !== null && row.site_url !== values.siteUrl));

/** Whether a subscribed feed leaves the list: not in it, and — for an edit — among what the edit removed. */
export const leavesList = (row: FeedRow, listed: ReadonlySet<string>, how: ListSync): boolean =>
  how.mode !== 'add' && row.subscribed === 1 && !listed.has(row.subscribed_url) && (how.mode !== 'change' || how.removed.includes(row.subscribed_url));
