import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { forest, runUntil, startServe } from '../helpers/cli.js';
import { listenOn } from '../helpers/listen.js';
import { workspace } from '../helpers/setup.js';

/*
 * Issue #53, item 1: webhook notifications, signed, from a durable outbox. A loopback feed
 * publishes; a loopback receiver is down (503) at first, then up. Every new article reaches it
 * once, signed, and a restart of the daemon neither loses nor repeats one.
 */

const SECRET = 'a-webhook-secret-0123456789';
let site: Server;
let receiver: Server;
let siteUrl = '';
let hookUrl = '';
let posts = 3;
const received: Array<{ status: number; body: string; signature: string | undefined; event: string | undefined }> = [];
let refuseFirst = 2;

before(async () => {
  site = createServer((request, response) => {
    if (request.url === '/gone.xml') {
      response.writeHead(410).end();
    } else if (request.url === '/broken.xml') {
      response.writeHead(500).end();
    } else if (request.url === '/feed.xml') {
      const items = Array.from({ length: posts }, (_, i) => `<item><title>Post ${i + 1}</title><link>${siteUrl}/post/${i + 1}</link><guid>p${i + 1}</guid><pubDate>${new Date(Date.now() - (posts - i) * 60_000).toUTCString()}</pubDate></item>`).reverse();
      response.writeHead(200, { 'content-type': 'application/rss+xml' }).end(`<?xml version="1.0"?><rss version="2.0"><channel><title>Local news</title><link>${siteUrl}/</link>${items.join('')}</channel></rss>`);
    } else {
      const n = request.url?.split('/').pop();
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>Post ${n}</title></head><body><article><h1>Post ${n}</h1><p>The council met on Tuesday about post ${n} and agreed to repair the old bridge before winter, after a long debate about the cost.</p><p>Work starts in March.</p></article></body></html>`);
    }
  });
  receiver = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => {
      const status = refuseFirst-- > 0 ? 503 : 200;
      received.push({ status, body, signature: request.headers['x-forest-signature'] as string | undefined, event: request.headers['x-forest-event'] as string | undefined });
      response.writeHead(status).end();
    });
  });
  siteUrl = await listenOn(site, '127.0.0.16');
  hookUrl = `${await listenOn(receiver, '127.0.0.17')}/hook`;
});
after(async () => {
  await Promise.all([site, receiver].map((server) => new Promise((resolve) => server.close(resolve))));
});

test('every new article is notified once, signed, through a receiver that was down and a restart of the daemon', async () => {
  const ws = workspace([{ url: `${siteUrl}/feed.xml`, title: 'Local news', tags: ['local'] }], {
    notify: { webhooks: [{ url: hookUrl, secret: SECRET, events: ['article', 'version'], tags: ['local'] }], retryDelay: '1s', maxRetryDelay: '2s', timeout: '2s' },
    revisit: { enabled: false, after: ['1h'] },
  });
  // Each run lasts until what it should deliver is delivered (60 s at most), then stops with SIGTERM.
  const deliveredTitles = () => received.filter((post) => post.status === 200 && post.event === 'article').map((post) => (JSON.parse(post.body) as { article: { title: string } }).article.title);
  const first = await runUntil(ws.args, () => ['Post 1', 'Post 2', 'Post 3'].every((title) => deliveredTitles().includes(title)), 60_000, 'the three articles delivered through the receiver\'s refusals');
  assert.equal(first.code, 0, first.stderr);
  posts = 4;
  const second = await runUntil(ws.args, () => deliveredTitles().includes('Post 4'), 60_000, 'the article published between the runs delivered');
  assert.equal(second.code, 0, second.stderr);

  const delivered = received.filter((post) => post.status === 200).map((post) => {
    const expected = `sha256=${createHmac('sha256', SECRET).update(post.body).digest('hex')}`;
    assert.equal(post.signature, expected, 'signed with the webhook\'s secret');
    return JSON.parse(post.body) as { id: string; sentAt: string; event: string; article: { title: string; url: string }; links: { article: string; memento: string } };
  });
  assert.ok(received.filter((post) => post.status === 503).length === 2, 'the receiver refused the first two');
  const titles = delivered.map((notification) => notification.article.title).sort();
  assert.deepEqual(titles, ['Post 1', 'Post 2', 'Post 3', 'Post 4'], 'each article once, the one published between the runs too');
  assert.equal(new Set(delivered.map((notification) => notification.id)).size, delivered.length, 'no delivery id twice');
  for (const notification of delivered) {
    assert.equal(notification.event, 'article');
    assert.ok(Math.abs(Date.parse(notification.sentAt) - Date.now()) < 120_000, 'the time it was sent is in the signed body');
    assert.match(notification.links.article, /^http:\/\/127\.0\.0\.1:8080\/articles\/\d+$/);
  }
  // The delivery log, in status: the receiver by its scheme and host alone (its path may hold a secret).
  const status = await forest([...ws.args, 'status']);
  assert.match(status.stdout, new RegExp(`notifications to ${new URL(hookUrl).origin.replace(/\./g, '\\.')}: 4 delivered .*0 waiting`));
  assert.ok(!status.stdout.includes(hookUrl), 'never the whole URL');
  // And on the dashboard: the receiver by its scheme and host alone (its path may hold a secret).
  const { server: serve, base } = await startServe(ws.args);
  try {
    const dashboard = await (await fetch(base)).text();
    const log = /<h2>Notifications<\/h2>[^]*?<\/table>/.exec(dashboard)?.[0] ?? '';
    assert.match(log, new RegExp(`<td>${new URL(hookUrl).origin.replace(/\./g, '\\.')}</td><td>4</td><td class="">0</td>`));
    assert.ok(!log.includes('/hook'), 'the webhook\'s path is not shown');
  } finally {
    serve.kill('SIGTERM');
  }
});

test('notify test sends one signed test notification and says how the receiver answered', async () => {
  const ws = workspace([], { notify: { webhooks: [{ url: hookUrl, secret: SECRET }], retryDelay: '1s', maxRetryDelay: '2s', timeout: '2s' } });
  refuseFirst = 0;
  const before = received.length;
  const sent = await forest([...ws.args, 'notify', 'test', hookUrl]);
  assert.equal(sent.code, 0, sent.stderr);
  assert.match(sent.stdout, /answered 200: delivered/);
  const post = received[before]!;
  assert.equal(post.event, 'test');
  assert.equal(post.signature, `sha256=${createHmac('sha256', SECRET).update(post.body).digest('hex')}`);
  // A second test is a new delivery (issue #68, 9): a receiver that drops ids it has seen takes it.
  assert.equal((await forest([...ws.args, 'notify', 'test', hookUrl])).code, 0);
  const ids = received.slice(before).map((one) => (JSON.parse(one.body) as { id: string }).id);
  assert.equal(new Set(ids).size, 2, ids.join(', '));
  const closed = createServer();
  const closedUrl = await listenOn(closed, '127.0.0.18');
  await new Promise((resolve) => closed.close(resolve));
  const refused = await forest([...ws.args, 'notify', 'test', `${closedUrl}/hook`, '--secret', SECRET]);
  assert.equal(refused.code, 1);
  assert.match(refused.stdout, /not delivered \(ECONNREFUSED\)/);
});

test('a feed gone (410) or failing (three failures in a row) is notified once each, signed', async () => {
  const ws = workspace([{ url: `${siteUrl}/gone.xml`, title: 'Gone news' }, { url: `${siteUrl}/broken.xml`, title: 'Broken news' }], {
    notify: { webhooks: [{ url: hookUrl, secret: SECRET, events: ['feed'] }], retryDelay: '1s', maxRetryDelay: '2s', timeout: '2s' },
  });
  refuseFirst = 0;
  const before = received.length;
  const run = await forest([...ws.args, 'run', '--exit-after', '16s']);
  assert.equal(run.code, 0, run.stderr);
  const events = received.slice(before).filter((post) => post.event === 'feed').map((post) => {
    assert.equal(post.signature, `sha256=${createHmac('sha256', SECRET).update(post.body).digest('hex')}`);
    return JSON.parse(post.body) as { feed: { url: string; title: string; link: string }; state: string; status: number | null };
  });
  const said = events.map((event) => `${event.feed.title}: ${event.state} (${event.status})`).sort();
  assert.deepEqual(said, ['Broken news: failing (500)', 'Gone news: gone (410)'], 'each said once, though both kept failing');
  for (const event of events) assert.match(event.feed.link, /\/feeds\/\d+$/);
});
