import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { ArchivePush, PushSubscriptionRecord } from '../archive/store.js';
import type { Settings } from '../config/settings.js';
import type { Logger } from '../util/logger.js';
import { leaseTimes, retryDelayMs, validSignature, WEBSUB_OPTIONS } from '../net/websub.js';

/**
 * The WebSub callback (W3C WebSub §5.3, §8): `/websub/<callback id>`, one per subscription, open
 * without the token (a hub is no signed-in reader): the unguessable id names the subscription,
 * and a push counts only when its signature is the HMAC of its body with that subscription's
 * secret.
 */

/** The path prefix the token check lets through (server.ts). */
export const WEBSUB_PATH = '/websub/';

const querySchema = {
  type: 'object',
  properties: {
    'hub.mode': { type: 'string' }, 'hub.topic': { type: 'string' }, 'hub.challenge': { type: 'string', maxLength: 1024 },
    'hub.lease_seconds': { type: 'integer', minimum: 0 }, 'hub.reason': { type: 'string', maxLength: 1024 },
  },
} as const;

/** Subscriptions whose hub may push: any other state's pushes are refused (410, the hub ends them) or ignored. */
const ENDED = new Set(['denied', 'failed', 'dropped']);

/**
 * The signatures of the pushes each subscription counted, until its lease ends: a push replayed
 * (the same body, so the same signature) is answered but not counted again. Held by this server,
 * at most `WEBSUB_OPTIONS.replaysRemembered` a subscription (the oldest forgotten first).
 */
class SeenPushes {
  private readonly seen = new Map<string, Map<string, number>>();

  /** Whether `signature` was counted for `callback` already; if not, it is now (until `until`, ms). */
  replayed(callback: string, signature: string, now: number, until: number): boolean {
    const mine = this.seen.get(callback) ?? new Map<string, number>();
    this.seen.set(callback, mine);
    for (const [known, expiry] of mine) if (expiry <= now) mine.delete(known);
    if (mine.has(signature)) return true;
    mine.set(signature, until);
    while (mine.size > WEBSUB_OPTIONS.replaysRemembered) mine.delete(mine.keys().next().value!);
    return false;
  }
}

export function websubRoutes(app: FastifyInstance, store: ArchivePush, log: Logger, settings: Settings['websub']): void {
  const pushing = new Map<string, number>();
  const subscriptionOf = new WeakMap<IncomingMessage, PushSubscriptionRecord>();
  const seen = new SeenPushes();
  const plain = (reply: FastifyReply, status: number, text: string) => reply.code(status).type('text/plain; charset=utf-8').send(text);

  /**
   * Before a byte of a push's body is read: an unknown or ended subscription is 410 Gone at once
   * (and the connection closed, so its body is never read), and a subscription with
   * `maxConcurrentPushes` pushes in flight waits (429).
   */
  const admitPush = async (request: FastifyRequest<{ Params: { callback: string } }>, reply: FastifyReply) => {
    const subscription = await store.pushSubscription(request.params.callback);
    if (subscription === null || ENDED.has(subscription.state)) return plain(reply.header('connection', 'close'), 410, 'no such subscription');
    const callback = subscription.callback;
    if ((pushing.get(callback) ?? 0) >= settings.maxConcurrentPushes) return plain(reply.header('connection', 'close').header('retry-after', '1'), 429, 'too many pushes at once (websub.maxConcurrentPushes)');
    pushing.set(callback, (pushing.get(callback) ?? 0) + 1);
    reply.raw.once('close', () => {
      const left = (pushing.get(callback) ?? 1) - 1;
      if (left > 0) pushing.set(callback, left);
      else pushing.delete(callback);
    });
    subscriptionOf.set(request.raw, subscription);
    return undefined;
  };

  void app.register(async (scope) => {
    // A push's body is checked byte for byte against its signature, whatever its type.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: settings.maxPushBytes }, (_request, body, done) => done(null, body));

    /**
     * Verification of intent (§5.3): the challenge is echoed only for what was asked — a pending
     * or renewed subscription, or a pending unsubscription, of this topic; anything else is a 404.
     * A denial (§5.2) is recorded.
     */
    scope.get<{ Params: { callback: string }; Querystring: Record<string, string | number | undefined> }>('/websub/:callback', { schema: { hide: true, querystring: querySchema } }, async (request, reply) => {
      const subscription = await store.pushSubscription(request.params.callback);
      const query = request.query;
      const mode = query['hub.mode'];
      const now = new Date();
      if (subscription === null || query['hub.topic'] !== subscription.topic) return reply.code(404).type('text/plain; charset=utf-8').send('no such subscription');
      if (mode === 'denied') {
        await store.denyPush(subscription.callback, String(query['hub.reason'] ?? 'no reason given'), now, new Date(now.getTime() + retryDelayMs(subscription.attempts)));
        log.warn({ hub: subscription.hub, topic: subscription.topic, reason: query['hub.reason'] }, 'the WebSub hub denied the subscription');
        return reply.code(200).type('text/plain; charset=utf-8').send('');
      }
      const challenge = query['hub.challenge'];
      const asked = (mode === 'subscribe' && (subscription.state === 'subscribing' || subscription.state === 'active'))
        || (mode === 'unsubscribe' && subscription.state === 'unsubscribing');
      if (!asked || typeof challenge !== 'string' || challenge === '') return reply.code(404).type('text/plain; charset=utf-8').send('not asked for');
      if (mode === 'subscribe') {
        // The hub grants the lease (§5.3); one past any date a Date can hold is held to the longest we keep.
        const lease = Math.min(typeof query['hub.lease_seconds'] === 'number' ? query['hub.lease_seconds'] : settings.leaseSeconds, WEBSUB_OPTIONS.maxLeaseSeconds);
        await store.confirmPush(subscription.callback, { mode: 'subscribe', ...leaseTimes(lease, now) }, now);
        log.info({ hub: subscription.hub, topic: subscription.topic, leaseSeconds: lease }, 'the WebSub hub verified the subscription');
      } else {
        await store.confirmPush(subscription.callback, { mode: 'unsubscribe' }, now);
        log.info({ hub: subscription.hub, topic: subscription.topic }, 'the WebSub hub ended the subscription');
      }
      return reply.code(200).type('text/plain; charset=utf-8').send(challenge);
    });

    /**
     * Content distribution (§8): a push whose signature verifies makes its feed due now (the items
     * are then fetched from the feed itself); one that does not is ignored, yet answered 2xx as
     * §8 allows, so a forger learns nothing. An unknown or ended callback is 410 Gone: the hub
     * ends it. A push to a subscription not yet (or no longer) verified, or a replay of one already
     * counted, is ignored the same way.
     */
    scope.post<{ Params: { callback: string }; Body: Buffer | undefined }>('/websub/:callback', { schema: { hide: true }, onRequest: admitPush }, async (request, reply) => {
      const subscription = subscriptionOf.get(request.raw)!;
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const header = request.headers['x-hub-signature'];
      const signature = typeof header === 'string' ? header : undefined;
      if (signature === undefined || !validSignature(signature, body, subscription.secret)) {
        log.warn({ hub: subscription.hub, topic: subscription.topic }, 'a WebSub push without a valid signature was ignored');
        return reply.code(202).send();
      }
      if (subscription.state !== 'active') {
        log.warn({ hub: subscription.hub, topic: subscription.topic, state: subscription.state }, 'a WebSub push to a subscription that is not active was ignored');
        return reply.code(202).send();
      }
      const now = Date.now();
      const until = subscription.leaseUntil === null ? now + settings.leaseSeconds * 1000 : Date.parse(subscription.leaseUntil);
      if (seen.replayed(subscription.callback, signature.trim().toLowerCase(), now, until)) {
        log.warn({ hub: subscription.hub, topic: subscription.topic }, 'a WebSub push already counted (the same signature) was ignored');
        return reply.code(202).send();
      }
      await store.recordPush(subscription.callback, new Date(now));
      log.info({ hub: subscription.hub, topic: subscription.topic, bytes: body.length }, 'pushed by the WebSub hub: the feed is due now');
      return reply.code(202).send();
    });
  });
}
