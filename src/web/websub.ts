import type { FastifyInstance } from 'fastify';
import type { ArchivePush } from '../archive/store.js';
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
    'hub.lease_seconds': { type: 'integer', minimum: 0 }, 'hub.reason': { type: 'string' },
  },
} as const;

export function websubRoutes(app: FastifyInstance, store: ArchivePush, log: Logger, defaultLeaseSeconds: number): void {
  void app.register(async (scope) => {
    // A push's body is checked byte for byte against its signature, whatever its type.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBSUB_OPTIONS.maxPushBytes }, (_request, body, done) => done(null, body));

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
        const lease = typeof query['hub.lease_seconds'] === 'number' ? query['hub.lease_seconds'] : defaultLeaseSeconds;
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
     * §8 allows, so a forger learns nothing. An unknown callback is 410 Gone: the hub ends it.
     */
    scope.post<{ Params: { callback: string }; Body: Buffer | undefined }>('/websub/:callback', { schema: { hide: true } }, async (request, reply) => {
      const subscription = await store.pushSubscription(request.params.callback);
      if (subscription === null) return reply.code(410).type('text/plain; charset=utf-8').send('no such subscription');
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const signature = request.headers['x-hub-signature'];
      if (!validSignature(typeof signature === 'string' ? signature : undefined, body, subscription.secret)) {
        log.warn({ hub: subscription.hub, topic: subscription.topic }, 'a WebSub push without a valid signature was ignored');
        return reply.code(202).send();
      }
      await store.recordPush(subscription.callback, new Date());
      log.info({ hub: subscription.hub, topic: subscription.topic, bytes: body.length }, 'pushed by the WebSub hub: the feed is due now');
      return reply.code(202).send();
    });
  });
}
