import { randomBytes } from 'node:crypto';
import type { PushCandidate, PushWork } from '../archive/store.js';
import type { Settings } from '../config/settings.js';
import { FetchError } from '../net/fetcher.js';
import { retryDelayMs, subscriptionForm, WEBSUB_OPTIONS } from '../net/websub.js';
import type { Logger } from '../util/logger.js';
import { DAEMON_OPTIONS } from './options.js';

/**
 * The daemon's WebSub pass (issue #53): once a minute, the feeds that name a hub are subscribed
 * (a unique callback and hub.secret each), subscriptions are renewed before their lease ends and
 * retried after a failure, and those whose feed was removed, disabled or moved to another hub
 * are ended. The hub answers at the callback (`forest serve`, web/websub.ts), which records the
 * verification and the pushes.
 */

export type PushAction = 'subscribe' | 'unsubscribe' | 'forget' | 'unverified' | null;

/** What a candidate needs now (a pure function of what the archive holds; pushCandidates chose it by its times). */
export function pushAction(candidate: PushCandidate): PushAction {
  const { subscription, wanted, hub, topic } = candidate;
  const current = subscription !== null && subscription.hub === hub && subscription.topic === topic;
  if (!wanted || hub === null || topic === null) {
    if (subscription === null) return null;
    if (subscription.state === 'failed' || subscription.state === 'denied') return 'forget';
    return subscription.state === 'unsubscribing' && subscription.attempts >= WEBSUB_OPTIONS.unsubscribeAttempts ? 'forget' : 'unsubscribe';
  }
  if (subscription === null || !current) return 'subscribe';
  switch (subscription.state) {
    case 'subscribing': return 'unverified';
    case 'dropped': return null;
    default: return 'subscribe';
  }
}

/** The URL the hub calls for a subscription. */
export const callbackUrl = (base: string, callback: string): string => `${base.replace(/\/+$/, '')}/websub/${callback}`;

/** One pass over the subscriptions that need a request now. */
export async function websubPass(
  store: PushWork,
  fetcher: { postForm(url: string, form: Record<string, string>, signal?: AbortSignal): Promise<{ status: number; body: string }> },
  settings: Settings['websub'],
  log: Logger,
  now: Date,
  signal?: AbortSignal,
): Promise<void> {
  const base = settings.callbackUrl;
  if (base === null) return;
  for (const candidate of await store.pushCandidates(now, DAEMON_OPTIONS.websub.perPass)) {
    if (signal?.aborted) return;
    const action = pushAction(candidate);
    const { subscription } = candidate;
    if (action === null) continue;
    if (action === 'forget') {
      await store.forgetPush(candidate.feedId);
      continue;
    }
    if (action === 'unverified') {
      const error = `the hub did not verify the subscription within ${WEBSUB_OPTIONS.verifyWithinMs / 60_000} min: can it reach ${base}? (websub.callbackUrl)`;
      await store.recordPushFailure(candidate.feedId, error, new Date(now.getTime() + retryDelayMs(subscription?.attempts ?? 0)));
      log.warn({ feed: candidate.feedUrl, hub: subscription?.hub }, error);
      continue;
    }
    const mode = action;
    // An unsubscription goes to the hub and topic subscribed; a subscription to the feed's own.
    const hub = mode === 'unsubscribe' ? subscription!.hub : candidate.hub!;
    const topic = mode === 'unsubscribe' ? subscription!.topic : candidate.topic!;
    // A renewal keeps its callback and secret; another hub or topic gets new ones.
    const keep = subscription !== null && subscription.hub === hub && subscription.topic === topic;
    const callback = keep ? subscription.callback : randomBytes(WEBSUB_OPTIONS.callbackBytes).toString('base64url');
    const secret = keep ? subscription.secret : randomBytes(WEBSUB_OPTIONS.secretBytes).toString('hex');
    // Recorded before the request: a hub may verify before it answers it.
    await store.recordPushRequest(candidate.feedId, {
      hub, topic, callback, secret, state: mode === 'subscribe' ? 'subscribing' : 'unsubscribing', at: now,
      retryAt: new Date(now.getTime() + WEBSUB_OPTIONS.verifyWithinMs),
    });
    let error: string | null = null;
    try {
      const answer = await fetcher.postForm(hub, subscriptionForm({ mode, topic, callback: callbackUrl(base, callback), secret, leaseSeconds: settings.leaseSeconds }), signal);
      if (answer.status < 200 || answer.status > 299) error = `the hub answered HTTP ${answer.status}${answer.body.trim() ? `: ${answer.body.trim().slice(0, 200)}` : ''}`;
    } catch (caught) {
      if (signal?.aborted) return;
      error = caught instanceof FetchError ? caught.message : `unexpected: ${(caught as Error).message}`;
    }
    if (error === null) {
      log.info({ feed: candidate.feedUrl, hub, topic }, mode === 'subscribe' ? 'asked the hub to push this feed' : 'asked the hub to stop pushing this feed');
    } else {
      await store.recordPushFailure(candidate.feedId, error, new Date(now.getTime() + retryDelayMs((subscription?.attempts ?? -1) + 1)));
      log.warn({ feed: candidate.feedUrl, hub, error }, `WebSub ${mode} failed`);
    }
  }
}
