import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import type { PushCandidate, PushSubscriptionRecord } from '../../src/archive/store.js';
import { pushAction } from '../../src/daemon/websub.js';
import { discoverHub, hubKeptUp, leaseTimes, parseLinkHeader, pushedNow, retryDelayMs, subscriptionForm, validSignature, WEBSUB_OPTIONS } from '../../src/net/websub.js';
import { relaxWhenPushed } from '../../src/schedule/policy.js';

test('Link headers (RFC 8288): several links, quoted and unquoted rel, several relation types, commas inside quotes', () => {
  const links = parseLinkHeader('<https://hub.example/>; rel="hub", </feed.xml>; title="a, b"; rel=self, <https://x.example/p2>; rel="next prev-archive"');
  assert.deepEqual(links, [
    { href: 'https://hub.example/', rels: ['hub'] },
    { href: '/feed.xml', rels: ['self'] },
    { href: 'https://x.example/p2', rels: ['next', 'prev-archive'] },
  ]);
  assert.deepEqual(parseLinkHeader(undefined), []);
  assert.deepEqual(parseLinkHeader('garbage'), []);
});

test('discovery (WebSub §4): the Link header before the document, relative references resolved, no scheme but http(s)', () => {
  const document = { hub: 'https://doc-hub.example/', self: 'https://site.example/doc-self.xml' };
  assert.deepEqual(discoverHub('<https://hub.example/>; rel="hub", </feed.xml>; rel="self"', document, 'https://site.example/f'), { hub: 'https://hub.example/', self: 'https://site.example/feed.xml' });
  assert.deepEqual(discoverHub(undefined, document, 'https://site.example/f'), document);
  assert.deepEqual(discoverHub('<javascript:alert(1)>; rel="hub"', { hub: null, self: null }, 'https://site.example/f'), { hub: null, self: null });
});

test('a push counts only with the HMAC of its exact body under our secret (sha1, sha256, sha384, sha512)', () => {
  const body = Buffer.from('<feed>pushed</feed>');
  for (const method of ['sha1', 'sha256', 'sha384', 'sha512']) {
    assert.ok(validSignature(`${method}=${createHmac(method, 'secret').update(body).digest('hex')}`, body, 'secret'), method);
  }
  const good = createHmac('sha256', 'secret').update(body).digest('hex');
  assert.ok(!validSignature(`sha256=${good}`, Buffer.from('<feed>changed</feed>'), 'secret'), 'another body');
  assert.ok(!validSignature(`sha256=${good}`, body, 'other'), 'another secret');
  assert.ok(!validSignature(`sha256=${good.slice(0, 40)}`, body, 'secret'), 'a truncated digest');
  assert.ok(!validSignature(`md5=${good}`, body, 'secret'), 'a method §8 does not allow');
  assert.ok(!validSignature(undefined, body, 'secret'), 'no signature');
});

test('the subscription request (§5.1) and its lease: renewed at 80% of what the hub granted', () => {
  assert.deepEqual(subscriptionForm({ mode: 'subscribe', topic: 'https://s.example/f', callback: 'https://a.example/websub/x', secret: 's', leaseSeconds: 600 }), {
    'hub.mode': 'subscribe', 'hub.topic': 'https://s.example/f', 'hub.callback': 'https://a.example/websub/x', 'hub.lease_seconds': '600', 'hub.secret': 's',
  });
  assert.deepEqual(Object.keys(subscriptionForm({ mode: 'unsubscribe', topic: 't', callback: 'c', secret: 's', leaseSeconds: 600 })), ['hub.mode', 'hub.topic', 'hub.callback']);
  const now = new Date('2026-11-28T00:00:00Z');
  const { leaseUntil, renewAt } = leaseTimes(1000, now);
  assert.equal(leaseUntil.toISOString(), '2026-11-28T00:16:40.000Z');
  assert.equal(renewAt.getTime() - now.getTime(), 800_000);
  assert.equal(retryDelayMs(0), WEBSUB_OPTIONS.retryFirstMs);
  assert.equal(retryDelayMs(1), 2 * WEBSUB_OPTIONS.retryFirstMs);
  assert.equal(retryDelayMs(50), WEBSUB_OPTIONS.retryMaxMs);
});

test('a silent hub: new items no push announced, twice in a row, drop the subscription; an announced one resets the count', () => {
  const at = Date.parse('2026-11-28T12:00:00Z');
  const push = { state: 'active', leaseUntil: '2026-12-01T00:00:00Z', lastPushAt: '2026-11-28T10:00:00Z', missedInRow: 0 };
  assert.ok(pushedNow(push, at));
  assert.ok(!pushedNow({ ...push, leaseUntil: '2026-11-28T11:00:00Z' }, at), 'a lease that ended');
  assert.ok(!pushedNow({ ...push, state: 'subscribing' }, at), 'not verified yet');
  const previousPoll = Date.parse('2026-11-28T11:00:00Z');
  assert.deepEqual(hubKeptUp(push, previousPoll, 0), { missedInRow: 0, drop: false }, 'nothing new: nothing to judge');
  assert.deepEqual(hubKeptUp(push, previousPoll, 3), { missedInRow: 1, drop: false }, 'the last push was before the poll before');
  assert.deepEqual(hubKeptUp({ ...push, missedInRow: 1 }, previousPoll, 1), { missedInRow: 2, drop: true });
  assert.deepEqual(hubKeptUp({ ...push, missedInRow: 1, lastPushAt: '2026-11-28T11:30:00Z' }, previousPoll, 2), { missedInRow: 0, drop: false }, 'a push announced them');
});

test('polls of a pushed feed are relaxed to websub.pollInterval, unless its own schedule is slower or a cron rules it', () => {
  const at = Date.parse('2026-11-28T12:00:00Z');
  const decision = { at: new Date(at + 10 * 60_000), reason: 'learned', ratePerHour: 6, window: 10, riskAt: new Date(at + 20 * 60_000) };
  const relaxed = relaxWhenPushed(decision, at, 2 * 3600_000, null);
  assert.equal(relaxed.at.getTime(), at + 2 * 3600_000);
  assert.equal(relaxed.riskAt, null, 'the hub delivers what would scroll out');
  assert.match(relaxed.reason, /pushed by its WebSub hub/);
  assert.equal(relaxWhenPushed({ ...decision, at: new Date(at + 5 * 3600_000) }, at, 2 * 3600_000, null).at.getTime(), at + 5 * 3600_000);
  assert.equal(relaxWhenPushed(decision, at, 2 * 3600_000, '*/10 * * * *'), decision);
});

const record = (extra: Partial<PushSubscriptionRecord> = {}): PushSubscriptionRecord => ({
  feedId: 1, hub: 'https://hub.example/', topic: 'https://s.example/f', state: 'active', leaseUntil: null, lastPushAt: null, pushes: 0, lastError: null,
  callback: 'cb', secret: 's', attempts: 0, retryAt: null, renewAt: null, missedInRow: 0, ...extra,
});
const candidate = (extra: Partial<PushCandidate> = {}): PushCandidate => ({
  feedId: 1, feedUrl: 'https://s.example/f', hub: 'https://hub.example/', topic: 'https://s.example/f', wanted: true, subscription: null, ...extra,
});

test('what a feed\'s subscription needs: subscribe, renew, retry, re-subscribe at a new hub, unsubscribe, give up', () => {
  assert.equal(pushAction(candidate()), 'subscribe', 'a new hub');
  assert.equal(pushAction(candidate({ subscription: record() })), 'subscribe', 'a renewal (due: pushCandidates chose it by renew_at)');
  assert.equal(pushAction(candidate({ subscription: record({ state: 'failed' }) })), 'subscribe', 'a retry');
  assert.equal(pushAction(candidate({ subscription: record({ state: 'subscribing' }) })), 'unverified', 'the hub never verified');
  assert.equal(pushAction(candidate({ subscription: record({ hub: 'https://old-hub.example/' }) })), 'subscribe', 'the feed moved to another hub');
  assert.equal(pushAction(candidate({ subscription: record({ state: 'dropped' }) })), null, 'a silent hub stays dropped');
  assert.equal(pushAction(candidate({ wanted: false, subscription: record() })), 'unsubscribe', 'the feed was removed');
  assert.equal(pushAction(candidate({ wanted: false, subscription: record({ state: 'dropped' }) })), 'unsubscribe');
  assert.equal(pushAction(candidate({ wanted: false, subscription: record({ state: 'unsubscribing', attempts: WEBSUB_OPTIONS.unsubscribeAttempts }) })), 'forget');
  assert.equal(pushAction(candidate({ wanted: false, subscription: record({ state: 'failed' }) })), 'forget', 'nothing to end at the hub');
  assert.equal(pushAction(candidate({ wanted: false })), null);
});
