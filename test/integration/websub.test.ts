import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { finished, forest, startForest, waitFor } from '../helpers/cli.js';
import { listenOn } from '../helpers/listen.js';
import { workspace } from '../helpers/setup.js';

/*
 * Issue #53, item 2: WebSub against a hub the test runs on loopback. The daemon (`forest run
 * --serve`) discovers the hub from the feed's Link header, subscribes with a callback and a
 * secret of its own, answers the hub's verification (and only what it asked for), renews before
 * the lease ends, ignores a push whose signature is wrong, polls at once on a signed one, drops
 * back to full polling when the hub stays silent while polls find items, and unsubscribes when
 * the feed is removed.
 */

interface HubRequest { mode: string; topic: string; callback: string; secret: string | undefined; lease: string | undefined }
interface Verification { mode: string; callback: string; status: number; echoed: boolean }

let site: Server;
let hub: Server;
let siteUrl = '';
let hubUrl = '';
let posts = 3;
/** The lease the hub grants the first time (seconds): short, so the test sees a renewal; an hour after that. */
const FIRST_LEASE = 6;
const requests: HubRequest[] = [];
const verifications: Verification[] = [];

const readBody = (request: import('node:http').IncomingMessage) => new Promise<string>((resolve) => {
  let body = '';
  request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => resolve(body));
});

/** The hub's verification of intent (§5.3): a GET on the callback with a challenge. */
async function verify(mode: string, callback: string, topic: string): Promise<Verification> {
  const challenge = randomBytes(12).toString('hex');
  const url = new URL(callback);
  url.searchParams.set('hub.mode', mode);
  url.searchParams.set('hub.topic', topic);
  url.searchParams.set('hub.challenge', challenge);
  if (mode === 'subscribe') url.searchParams.set('hub.lease_seconds', String(verifications.length === 0 ? FIRST_LEASE : 3600));
  const response = await fetch(url);
  const verification = { mode, callback, status: response.status, echoed: (await response.text()) === challenge };
  return verification;
}

/** A push (§8): the feed's content, signed with `secret`. */
async function push(request: HubRequest, secret: string): Promise<number> {
  const body = `<rss version="2.0"><channel><title>pushed</title></channel></rss>`;
  const signature = createHmac('sha256', secret).update(body).digest('hex');
  const response = await fetch(request.callback, { method: 'POST', headers: { 'content-type': 'application/rss+xml', 'x-hub-signature': `sha256=${signature}` }, body });
  return response.status;
}

before(async () => {
  site = createServer((request, response) => {
    if (request.url === '/feed.xml') {
      const items = Array.from({ length: posts }, (_, i) => `<item><title>Post ${i + 1}</title><link>${siteUrl}/post/${i + 1}</link><guid>p${i + 1}</guid><pubDate>${new Date(Date.now() - (posts - i) * 60_000).toUTCString()}</pubDate></item>`).reverse();
      // The hub and topic in the Link header (§4), the document naming another self: the header wins.
      response.writeHead(200, { 'content-type': 'application/rss+xml', link: `<${hubUrl}/hub>; rel="hub", <${siteUrl}/feed.xml>; rel="self"` })
        .end(`<?xml version="1.0"?><rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>Pushed news</title><link>${siteUrl}/</link><atom:link rel="self" href="${siteUrl}/elsewhere.xml"/>${items.join('')}</channel></rss>`);
    } else {
      const n = request.url?.split('/').pop();
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>Post ${n}</title></head><body><article><h1>Post ${n}</h1><p>The harbour authority said on Monday that post ${n} would reopen the ferry line after the storm damage was repaired.</p><p>Boats run from June.</p></article></body></html>`);
    }
  });
  hub = createServer((request, response) => {
    void readBody(request).then(async (body) => {
      const form = new URLSearchParams(body);
      const hubRequest = { mode: form.get('hub.mode') ?? '', topic: form.get('hub.topic') ?? '', callback: form.get('hub.callback') ?? '', secret: form.get('hub.secret') ?? undefined, lease: form.get('hub.lease_seconds') ?? undefined };
      requests.push(hubRequest);
      response.writeHead(202).end();
      // Verified after the answer, as a hub does (asynchronously).
      verifications.push(await verify(hubRequest.mode, hubRequest.callback, hubRequest.topic));
    });
  });
  siteUrl = await listenOn(site, '127.0.0.19');
  hubUrl = await listenOn(hub, '127.0.0.20');
});
after(async () => {
  await Promise.all([site, hub].map((server) => new Promise((resolve) => server.close(resolve))));
});

const freePort = async () => {
  const probe = createServer();
  const url = await listenOn(probe, '127.0.0.1');
  await new Promise((resolve) => probe.close(resolve));
  return Number(new URL(url).port);
};

test('subscribe, verify, renew, push (signed or not), a silent hub, unsubscribe — through a hub on loopback', async () => {
  const port = await freePort();
  const feedUrl = `${siteUrl}/feed.xml`;
  const ws = workspace([{ url: feedUrl, title: 'Pushed news' }], {
    serve: { host: '127.0.0.1', port, capturePort: 0, public: false, token: 'a-test-token-0123456789abcdef' },
    websub: { callbackUrl: `http://127.0.0.1:${port}`, leaseSeconds: 3600, pollInterval: '1h' },
    revisit: { enabled: false, after: ['1h'] },
  });
  const daemon = startForest([...ws.args, 'run', '--serve', '--exit-after', '75s']);
  const api = async (path: string) => (await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: 'Bearer a-test-token-0123456789abcdef' } })).json() as Promise<unknown>;
  const titles = async () => {
    try {
      const body = await api('/api/v1/articles?limit=50') as { items: Array<{ title: string | null }> };
      return body.items.map((article) => article.title);
    } catch {
      return [];
    }
  };
  try {
    // 1. Discovery and subscription: the topic is the Link header's self, with a callback and a secret of our own.
    await waitFor(() => verifications.some((verification) => verification.mode === 'subscribe'), 30_000, 'the hub verified a subscription');
    const subscribe = requests.find((request) => request.mode === 'subscribe')!;
    assert.equal(subscribe.topic, feedUrl, 'the topic is the Link header\'s rel=self');
    assert.match(subscribe.callback, new RegExp(`^http://127\\.0\\.0\\.1:${port}/websub/[A-Za-z0-9_-]{32}$`));
    assert.ok(subscribe.secret && subscribe.secret.length >= 32 && subscribe.secret.length < 200, 'a hub.secret under 200 bytes');
    assert.equal(subscribe.lease, '3600');
    const first = verifications.find((verification) => verification.mode === 'subscribe')!;
    assert.deepEqual([first.status, first.echoed], [200, true], 'the challenge echoed for what it asked');

    // 2. Only what was asked is verified: another topic, an unknown callback, an unsubscription nobody asked for.
    assert.equal((await verify('subscribe', subscribe.callback, `${siteUrl}/other.xml`)).status, 404);
    assert.equal((await verify('subscribe', subscribe.callback.replace(/[^/]+$/, 'x'.repeat(32)), feedUrl)).status, 404);
    assert.equal((await verify('unsubscribe', subscribe.callback, feedUrl)).status, 404);

    // 3. Renewal before the lease (6 s granted) ends: the same callback, asked again.
    await waitFor(() => requests.filter((request) => request.mode === 'subscribe').length >= 2, 25_000, 'the subscription was renewed');
    assert.equal(requests.filter((request) => request.mode === 'subscribe')[1]!.callback, subscribe.callback, 'a renewal keeps its callback');
    const status = await forest([...ws.args, 'status']);
    assert.match(status.stdout, /WebSub \(127\.0\.0\.20:\d+\): pushed by its hub/);
    // Relaxed while the hub pushes: said in words by status, the scheduler's reason in --json.
    assert.match(status.stdout, /: polled every 1 h\b/, 'polls are relaxed while the hub pushes');
    assert.match((await forest([...ws.args, 'status', '--json'])).stdout, /"scheduleReason":"pushed by its WebSub hub: polled every 60 min/);

    // 4. A new item and a push signed with the wrong secret: ignored — nothing is polled.
    assert.deepEqual((await titles()).sort(), ['Post 1', 'Post 2', 'Post 3']);
    posts = 4;
    assert.equal(await push(subscribe, 'not-the-secret'), 202, 'answered 2xx, as §8 allows');
    await new Promise((resolve) => setTimeout(resolve, 8000));
    assert.ok(!(await titles()).includes('Post 4'), 'a push whose signature does not verify is ignored');

    // 5. The same push, signed: the feed is polled at once, and the page captured from the origin.
    assert.equal(await push(subscribe, subscribe.secret!), 202);
    await waitFor(async () => (await titles()).includes('Post 4'), 15_000, 'the pushed item was archived');

    // 6. A silent hub: two polls in a row find items no push announced; the feed is polled in full again.
    for (const n of [5, 6]) {
      posts = n;
      const poll = await forest([...ws.args, 'feeds', 'poll', feedUrl]);
      assert.equal(poll.code, 0, poll.stderr);
      await waitFor(async () => (await titles()).includes(`Post ${n}`), 15_000, `Post ${n} was archived`);
    }
    await waitFor(async () => /polled in full again/.test((await forest([...ws.args, 'status'])).stdout), 10_000, 'the subscription was dropped');

    // 7. feeds remove: the daemon asks the hub to stop, and answers its verification of that.
    const removed = await forest([...ws.args, 'feeds', 'remove', feedUrl]);
    assert.equal(removed.code, 0, removed.stderr);
    await waitFor(() => verifications.some((verification) => verification.mode === 'unsubscribe'), 25_000, 'the hub verified the unsubscription');
    const unsubscribe = verifications.find((verification) => verification.mode === 'unsubscribe')!;
    assert.deepEqual([unsubscribe.callback, unsubscribe.status, unsubscribe.echoed], [subscribe.callback, 200, true]);
    // The subscription is gone: a push to its callback is 410 Gone (§8: the hub ends it).
    assert.equal(await push(subscribe, subscribe.secret!), 410);
  } finally {
    daemon.kill('SIGTERM');
    const result = await finished(daemon);
    assert.equal(result.code, 0, result.stderr);
  }
});
