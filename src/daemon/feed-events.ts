import { DAEMON_OPTIONS } from './options.js';
/**
 * When a poll makes its feed news for the webhooks (notify event `feed`): it is *gone* — the
 * first 404/410 after a poll that did not fail — or *failing*, at its `failingAfter`-th failure
 * in a row (one failure is weather: a timeout, a restart of the site; three in a row, at the
 * learned intervals, is a feed an archivist should look at). Each is said once per run of
 * failures (a gone feed is not also said to be failing): the count goes back to zero with the
 * next poll that succeeds.
 */

export type FeedEvent = 'failing' | 'gone';

export function feedEventOf(poll: { errorsBefore: number; errorsAfter: number; status: number | null }): FeedEvent | null {
  const gone = poll.status === 404 || poll.status === 410;
  if (gone && poll.errorsBefore === 0) return 'gone';
  // A feed that answers 404/410 again was said to be gone: it is not news that it fails.
  if (!gone && poll.errorsAfter === DAEMON_OPTIONS.feedEvents.failingAfter && poll.errorsBefore === DAEMON_OPTIONS.feedEvents.failingAfter - 1) return 'failing';
  return null;
}
