/**
 * A feed's schedule in words (pure): the pace the scheduler estimates and the interval it chose,
 * for the web app's feed page and `forest status`. The scheduler's own terms (λ, W, overflow risk,
 * the binding rule) stay behind a toggle on the feed page and in `--json`.
 */
import type { FeedStatus } from '../archive/store.js';

/** A number of items, rounded as a person would say it. */
const about = (count: number) => (count >= 10 ? String(Math.round(count)) : count >= 1 ? String(Math.round(count * 10) / 10) : count.toPrecision(1));

/**
 * A feed's schedule as an archivist reads it — "about 3 new items an hour: polled every 20 min" —
 * from the rate the scheduler estimates and the interval it chose; the scheduler's own reason
 * (its terms: λ, W, the binding rule) stays on the feed page for whoever wants it.
 */
export function scheduleInWords(feed: Pick<FeedStatus, 'enabled' | 'ratePerHour' | 'lastPoll' | 'nextPoll'>): string {
  if (!feed.enabled) return 'paused';
  const rate = feed.ratePerHour;
  const items = (count: number, per: string) => `about ${about(count)} new item${about(count) === '1' ? '' : 's'} ${per}`;
  const pace = rate === null ? 'its pace is not known yet'
    : rate >= 1 ? items(rate, 'an hour')
      : rate * 24 >= 1 ? items(rate * 24, 'a day')
        : rate * 168 >= 0.5 ? items(rate * 168, 'a week')
          : 'hardly any new items';
  const interval = feed.lastPoll && feed.nextPoll ? Date.parse(feed.nextPoll) - Date.parse(feed.lastPoll) : null;
  return interval !== null && interval > 0 ? `${pace}: polled every ${roughly(interval)}` : pace;
}

/** A duration as a person says it: 45 s, 20 min, 3 h, 2.5 h, 1 day. */
function roughly(ms: number): string {
  const minutes = ms / 60_000;
  if (minutes < 1) return `${Math.round(ms / 1000)} s`;
  if (minutes < 60) return `${Math.round(minutes)} min`;
  const hours = Math.round((minutes / 60) * 2) / 2;
  if (hours < 24) return `${hours} h`;
  const days = Math.round(hours / 24 * 2) / 2;
  return `${days} day${days === 1 ? '' : 's'}`;
}
