import assert from 'node:assert/strict';
import { runOn } from '../../src/archive/sqlite/sql.js';
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createArticle, articleById } from '../../src/archive/rules/articles.js';
import { encodeBody, loadCodec } from '../../src/archive/codec.js';
import { upsertItems } from '../../src/archive/rules/items.js';
import { normalizeArticle, objectHash } from '../../src/archive/normalize.js';
import { queueDelivery, recordDelivery } from '../../src/archive/sqlite/notifications.js';
import { packContent } from '../../src/archive/packed-content.js';
import { recordCapture, setCanonicalUrl } from '../../src/archive/rules/captures.js';
import { confirmPush, denyPush, recordPushRequest } from '../../src/archive/sqlite/websub.js';
import { EXTRACTOR_VERSION } from '../../src/extract/extract.js';
import { launchChromium } from '../helpers/browser.js';
import { startServe, type ForestProcess } from '../helpers/cli.js';
import { raw } from '../helpers/raw-http.js';
import { query } from '../helpers/setup.js';
import { smallArchive } from '../helpers/small-archive.js';
import { tempDir } from '../helpers/temp.js';

// `forest serve` probed as an outside attacker would (issue #65): what a capture is filed under,
// what of the configuration ever leaves the server, the open WebSub callback, the XML it writes,
// which Host names it answers, how many tokens it lets a client guess, where archived bytes are
// served from. Each test failed on the code before the issue.

const TOKEN = 'evidence-token-0123456789abcdef';
const SPOOF_PAGE = 'http://127.0.0.1:18200/p/spoof';
const CLAIMED = 'https://www.example.com/news/important-article';
const HOSTILE_TITLE = 'Ferry\u0001 harbour \u001b[31mred\uFFFE end';
const ANGLE_URL = 'http://127.0.0.1:1/x>y';
// Secrets planted in the settings: none may appear in any answer.
const WEBHOOK = 'https://hookuser:hookpass-SECRET-1@hooks.example.org/t/PATHSECRET-2?key=QUERYSECRET-3';
const WEBHOOK_SECRET = 'SIGNINGSECRET-4-0123456789';
const SECRETS = ['hookuser', 'hookpass-SECRET-1', 'PATHSECRET-2', 'QUERYSECRET-3', 'SIGNINGSECRET-4', TOKEN, 'PUSHSECRET-5'];
const CALLBACK = 'callback-evidence-0123456789';
const PUSH_SECRET = 'PUSHSECRET-5-abcdef';

const dir = tempDir();
const database = join(dir, 'archive.db');
let server: ForestProcess;
let app = '';
let captures = '';
let browser: Browser | undefined;
const bearer = { authorization: `Bearer ${TOKEN}` };

/** A capture of SPOOF_PAGE whose page declares another site's URL as canonical, filed as extraction files it. */
function addSpoofedCapture(path: string): void {
  const store = smallArchive(path, [HOSTILE_TITLE, 'Two', 'Three'], { links: ['https://a.example/1', ANGLE_URL, 'https://a.example/3'] });
  const { db } = store;
  const at = new Date('2026-11-02T01:00:00Z');
  runOn(db, upsertItems(1, [{ guid: 'spoof', link: SPOOF_PAGE, title: 'Spoof', summary: null, published: null, updated: null, author: null, categories: [], enclosures: [], content: null, origLink: null }], at, true));
  const itemId = Number(db.prepare("SELECT id FROM items WHERE guid = 'spoof'").pluck().get());
  const html = `<html><head><title>Spoof</title><link rel="canonical" href="${CLAIMED}"></head><body><p>Not what example.com said.</p></body></html>`;
  const snapshotId = runOn(db, recordCapture(itemId, {
    url: SPOOF_PAGE, finalUrl: SPOOF_PAGE, status: 200, headers: {}, contentType: 'text/html', redirects: [], permanentUrl: null, notModified: false, retryAfterMs: null, fetchedAt: at, durationMs: 5,
  }, encodeBody(Buffer.from(html))));
  runOn(db, setCanonicalUrl(snapshotId, CLAIMED));
  const object = normalizeArticle({ title: 'Spoof', byline: null, published: null, html: '<p>Not what example.com said.</p>' });
  runOn(db, createArticle({ itemId, feedId: 1, url: SPOOF_PAGE, finalUrl: SPOOF_PAGE, canonicalUrl: CLAIMED }, {
    snapshotId, capturedAt: at.toISOString(), method: 'sigfeed', wrapperId: null, title: 'Spoof', byline: null, published: null, text: 'Not what example.com said.',
    html: '<p>Not what example.com said.</p>', object, hash: objectHash(object), extractor: EXTRACTOR_VERSION, source: null, packed: packContent('<p>Not what example.com said.</p>', object),
  }, { at: at.toISOString(), status: 200, snapshotId }, { step: 1, at: null }));
  // A webhook whose last delivery failed with an error that names its URL whole (as fetch's did).
  queueDelivery(db, WEBHOOK, { event: 'version', payload: '{}' }, at);
  recordDelivery(db, 1, { delivered: false, status: null, error: `Request cannot be constructed from a URL that includes credentials: ${WEBHOOK}`, retryAt: new Date(at.getTime() + 60_000) }, at);
  // A WebSub subscription of the feed, verified.
  recordPushRequest(db, 1, { hub: 'https://hub.example/', topic: 'https://a.example/feed', callback: CALLBACK, secret: PUSH_SECRET, state: 'subscribing', at, retryAt: at });
  confirmPush(db, CALLBACK, { mode: 'subscribe', leaseUntil: new Date('2099-01-01T00:00:00Z'), renewAt: new Date('2098-01-01T00:00:00Z') }, at);
  assert.ok(runOn(db, articleById(4)));
  store.close();
}

before(async () => {
  await loadCodec();
  addSpoofedCapture(database);
  const config = join(dir, 'settings.yaml');
  writeFileSync(join(dir, 'feeds.yaml'), '- url: https://a.example/feed\n  title: A\n  tags: [news]\n');
  writeFileSync(config, `subscriptions: ${join(dir, 'feeds.yaml')}
serve:
  token: ${TOKEN}
  timeouts: { headers: 2s, request: 3s, idle: 5s }
notify:
  webhooks:
    - url: "${WEBHOOK}"
      secret: ${WEBHOOK_SECRET}
websub:
  maxPushBytes: 64KB
  maxConcurrentPushes: 1
`);
  ({ server, base: app, captures } = await startServe(['--config', config, '--db', database, '--host', '127.0.0.1']));
});

after(async () => {
  await browser?.close();
  server?.kill('SIGTERM');
});

/** The captures' origin by address (they listen on 127.0.0.1 under the name localhost), for a request that names its own Host. */
const byAddress = (origin: string) => origin.replace('//localhost:', '//127.0.0.1:');
const pushes = () => query<{ pushes: number }>(database, 'SELECT pushes FROM websub_subscriptions WHERE callback = ?', CALLBACK)[0]!.pushes;
const sign = (body: string) => `sha256=${createHmac('sha256', PUSH_SECRET).update(body).digest('hex')}`;
const push = (body: string, signature = sign(body), callback = CALLBACK) =>
  raw(app, `/websub/${callback}`, { method: 'POST', body, headers: { 'content-type': 'application/atom+xml', 'x-hub-signature': signature } });

test('1. a capture is filed under what Forest fetched: a page\'s canonical link is its claim, never a memento\'s original', async () => {
  // Forest fetched SPOOF_PAGE, never CLAIMED: no TimeGate, TimeMap or memento of CLAIMED.
  for (const route of [`/timegate/${CLAIMED}`, `/timemap/link/${CLAIMED}`, `/timemap/json/${CLAIMED}`, `/memento/20261102010000/${CLAIMED}`]) {
    const answer = await fetch(`${captures}${route}`, { redirect: 'manual' });
    assert.equal(answer.status, 404, route);
    assert.doesNotMatch(await answer.text(), /Not what example\.com said/);
  }
  const gate = await fetch(`${app}/timegate/${SPOOF_PAGE}`, { redirect: 'manual' });
  assert.equal(gate.status, 302);
  assert.match(gate.headers.get('link') ?? '', new RegExp(`<${SPOOF_PAGE}>; rel="original"`));
  assert.doesNotMatch(gate.headers.get('link') ?? '', /example\.com/);
  // The capture page says what was fetched, and shows the canonical link as the page's own claim.
  const view = await (await fetch(`${app}/captures/20261102010000/${SPOOF_PAGE}`)).text();
  assert.match(view, new RegExp(`from <a[^>]*>${SPOOF_PAGE.replace(/[./]/g, '\\$&')}</a>, as Forest fetched it`));
  assert.match(view, /The page names <a[^>]*>https:\/\/www\.example\.com\/news\/important-article<\/a> as its address \(its own claim/);
  assert.equal((await fetch(`${app}/captures/20261102010000/${CLAIMED}`)).status, 404);
});

test('2. configuration secrets never leave the server: every public answer is searched for the planted ones', async () => {
  const routes = [
    '/', '/articles', '/articles/1', '/articles/4', '/articles/1/versions/2', '/articles/1/diff', '/feeds/1', '/search?q=mayor', '/changes.atom',
    '/api/v1/status', '/api/v1/feeds', '/api/v1/feeds/1', '/api/v1/articles', '/api/v1/articles/1', '/api/v1/articles/1/versions', '/api/v1/articles/1/versions/2',
    '/api/v1/articles/1/diff', '/api/v1/search?q=mayor', '/api/v1/openapi.json', `/captures/20261102010000/${SPOOF_PAGE}`, '/login', '/nothing-here',
  ];
  const answers: Array<[string, string]> = [];
  for (const route of routes) answers.push([route, await (await fetch(`${app}${route}`)).text()]);
  // The exports are behind the token: whoever holds it still gets no configuration secret.
  for (const route of ['/api/v1/export.jsonl', '/export.warc.gz', '/export.cdxj', '/export.wacz']) {
    const response = await fetch(`${app}${route}`, { headers: bearer });
    assert.equal(response.status, 200, route);
    answers.push([route, Buffer.from(await response.arrayBuffer()).toString('latin1')]);
  }
  for (const [route, body] of answers) {
    for (const secret of SECRETS) assert.ok(!body.includes(secret), `${route} shows ${secret}`);
  }
  // The webhook is still there, named by its host, its failure said without its URL.
  const status = await (await fetch(`${app}/api/v1/status`)).json() as { notifications: Array<{ webhook: string; lastError: string | null; waiting: number }> };
  assert.deepEqual(status.notifications.map((hook) => [hook.webhook, hook.waiting]), [['https://hooks.example.org', 1]]);
  assert.match(status.notifications[0]!.lastError ?? '', /includes credentials: https:\/\/hooks\.example\.org$/);
  assert.match(answers.find(([route]) => route === '/')![1], /hooks\.example\.org/);
});

/** A POST to `path` on the app that sends its headers and `sent` bytes of a body announced as `length`, then waits. */
function stalledPost(path: string, length: number, sent: number): { request: ClientRequest; response: Promise<IncomingMessage | 'closed'> } {
  const url = new URL(app);
  const request = httpRequest({ host: url.hostname, port: url.port, path, method: 'POST', headers: { 'content-type': 'application/octet-stream', 'content-length': String(length), 'x-hub-signature': `sha256=${'0'.repeat(64)}` } });
  const response = new Promise<IncomingMessage | 'closed'>((resolve) => {
    request.on('response', resolve);
    request.on('error', () => resolve('closed'));
    request.on('close', () => resolve('closed'));
  });
  request.write(Buffer.alloc(sent, 0x61));
  return { request, response };
}

test('3. the WebSub callback: unknown ids answered before a byte is read, bodies and time bounded, pushes limited, replayed or mis-signed pushes not counted', async () => {
  // An unknown id: 410 while the 9.5 MB body it announced is still unsent.
  const unknown = stalledPost('/websub/no-such-callback', 9_500_000, 1000);
  const gone = await unknown.response;
  assert.notEqual(gone, 'closed');
  assert.equal((gone as IncomingMessage).statusCode, 410);
  unknown.request.destroy();
  // A body over websub.maxPushBytes (64 KB here) is refused as such.
  assert.equal((await push('x'.repeat(70_000))).status, 413);
  // A push that stalls holds its connection no longer than serve.timeouts.request (3 s here); while
  // it does, it is the subscription's one push at a time (websub.maxConcurrentPushes: 1).
  const stalled = stalledPost(`/websub/${CALLBACK}`, 50_000, 100);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const second = await push('<feed/>');
  assert.equal(second.status, 429);
  const started = Date.now();
  const cut = await stalled.response;
  assert.ok(Date.now() - started < 10_000, 'the stalled push was cut off');
  assert.ok(cut === 'closed' || (cut.statusCode ?? 0) >= 400, 'the stalled push was not taken');

  const before = pushes();
  // A signature of the wrong length, or a wrong one: answered 2xx (§8), not counted.
  assert.equal((await push('<feed>a</feed>', 'sha256=abcd')).status, 202);
  assert.equal((await push('<feed>a</feed>', `sha256=${'ab'.repeat(40)}`)).status, 202);
  assert.equal(pushes(), before);
  // A signed push counts once; the same push replayed does not count again; a new one does.
  assert.equal((await push('<feed>b</feed>')).status, 202);
  assert.equal((await push('<feed>b</feed>')).status, 202);
  assert.equal(pushes(), before + 1);
  assert.equal((await push('<feed>c</feed>')).status, 202);
  assert.equal(pushes(), before + 2);

  // A hub's huge lease is held to a bound, not a 500.
  const verify = await raw(app, `/websub/${CALLBACK}?hub.mode=subscribe&hub.topic=${encodeURIComponent('https://a.example/feed')}&hub.challenge=c123&hub.lease_seconds=99999999999999999999`);
  assert.equal(verify.status, 200);
  assert.equal(verify.body, 'c123');
  const lease = query<{ lease_until: string }>(database, 'SELECT lease_until FROM websub_subscriptions WHERE callback = ?', CALLBACK)[0]!.lease_until;
  assert.ok(Date.parse(lease) < Date.now() + 400 * 86_400_000, `lease bounded: ${lease}`);

  // A denied subscription takes no push: 410, not counted.
  const store = (await import('../../src/archive/sqlite/store.js')).openStore(database);
  denyPush(store.db, CALLBACK, 'test', new Date(Date.now() + 3_600_000));
  store.close();
  const counted = pushes();
  assert.equal((await push('<feed>d</feed>')).status, 410);
  assert.equal(pushes(), counted);
});

test('4. XML Forest writes holds only XML 1.0 characters; the archive keeps the title as published', async () => {
  const atom = await (await fetch(`${app}/changes.atom`)).text();
  assert.match(atom, /Ferry\uFFFD harbour \uFFFD\[31mred\uFFFD end — version 2/);
  assert.doesNotMatch(atom, /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u);
  browser ??= await launchChromium();
  const page = await browser.newPage();
  // Chromium's XML parser is a strict one: a parse error is a <parsererror> document.
  const parsed = await page.evaluate((text) => {
    const document = new DOMParser().parseFromString(text, 'application/xml');
    return { error: document.getElementsByTagName('parsererror').length, entries: document.getElementsByTagName('entry').length };
  }, atom);
  await page.close();
  assert.deepEqual(parsed, { error: 0, entries: 1 });
  const article = await (await fetch(`${app}/api/v1/articles/1`)).json() as { title: string };
  assert.equal(article.title, HOSTILE_TITLE);
});

test('5. DNS rebinding: a name the archive does not answer to gets 421 on both ports, in Chromium too', async () => {
  for (const origin of [app, byAddress(captures)]) {
    const answer = await raw(origin, '/api/v1/status', { headers: { host: `rebind.example:${new URL(origin).port}` } });
    assert.equal(answer.status, 421, origin);
    assert.doesNotMatch(answer.body, /notifications/);
  }
  // A browser resolving an attacker's name to this machine, as a rebinding does.
  const { chromium } = await import('playwright-core');
  const rebound = await chromium.launch({
    executablePath: process.env['FOREST_CHROMIUM'] ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--host-resolver-rules=MAP rebind.example 127.0.0.1'],
  });
  try {
    const page = await rebound.newPage();
    const attacked = await page.goto(`http://rebind.example:${new URL(app).port}/api/v1/status`);
    assert.equal(attacked?.status(), 421);
    assert.doesNotMatch(await page.content(), /notifications/);
    const own = await page.goto(`${app}/api/v1/status`);
    assert.equal(own?.status(), 200, 'the app\'s own name is answered');
  } finally {
    await rebound.close();
  }
});

test('6. one limit of wrong tokens for every way a token is presented: Bearer on the API, on the capture port, and the login form', async () => {
  const from = '127.0.0.66';
  const wrong = { authorization: 'Bearer not-the-token-at-all-0000' };
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) statuses.push((await raw(app, '/api/v1/status', { from, headers: wrong })).status);
  for (let i = 0; i < 3; i++) statuses.push((await raw(byAddress(captures), `/timegate/https://a.example/1`, { from, headers: { ...wrong, host: new URL(captures).host } })).status);
  assert.ok(statuses.includes(429), `wrong tokens on both ports are counted together: ${statuses.join(' ')}`);
  const right = await raw(app, '/api/v1/feeds', { method: 'POST', from, headers: { ...bearer, 'content-type': 'application/json' }, body: JSON.stringify({ url: 'https://b.example/feed' }) });
  assert.equal(right.status, 429, 'even the right token waits');
  assert.ok(Number(right.headers['retry-after']) > 0);
  const login = await raw(app, '/login', { method: 'POST', from, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${TOKEN}` });
  assert.equal(login.status, 429, 'and so does the login form');
});

test('7. the app never serves archived bytes: its memento URLs lead to the capture origin', async () => {
  const onApp = await fetch(`${app}/memento/20261102010000/${SPOOF_PAGE}`, { redirect: 'manual' });
  assert.equal(onApp.status, 302);
  assert.equal(onApp.headers.get('location'), `${captures}/memento/20261102010000/${SPOOF_PAGE}`);
  assert.doesNotMatch(await onApp.text(), /Not what example\.com said/);
  const there = await fetch(onApp.headers.get('location')!);
  assert.equal(there.status, 200);
  assert.match(await there.text(), /Not what example\.com said/);
});

test('8. the app does not answer under the captures\' host name, so no login is ever made there', async () => {
  const appPort = new URL(app).port;
  assert.equal(new URL(captures).hostname, 'localhost');
  const asCaptures = await raw(app, '/login', { method: 'POST', headers: { host: `localhost:${appPort}`, 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${TOKEN}` });
  assert.equal(asCaptures.status, 421);
  assert.equal(asCaptures.headers['set-cookie'], undefined);
  browser ??= await launchChromium();
  const page = await browser.newPage();
  const opened = await page.goto(`http://localhost:${appPort}/login`);
  assert.equal(opened?.status(), 421);
  assert.match(await page.content(), new RegExp(`answers as ${app.replace(/[./]/g, '\\$&')}`));
  await page.close();
});

test('10. smaller: any case of "Bearer", frame-ancestors with the real port, no newline in a feed URL, encoded links, a TimeGate Location that leads back, X-Frame-Options DENY', async () => {
  const added = await fetch(`${app}/api/v1/feeds`, { method: 'POST', headers: { authorization: `bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ url: 'https://c.example/feed' }) });
  assert.equal(added.status, 201, 'the scheme is case-insensitive (RFC 7235)');
  const newline = await fetch(`${app}/api/v1/feeds`, { method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: JSON.stringify({ url: 'https://d.example/fe\ned' }) });
  assert.equal(newline.status, 400);
  assert.match(await newline.text(), /white space or a control character/);

  const framed = await fetch(`${captures}/memento/20261102010000/${SPOOF_PAGE}`);
  assert.match(framed.headers.get('content-security-policy') ?? '', new RegExp(`frame-ancestors ${app}`));
  const missing = await fetch(`${captures}/nothing`);
  assert.match(missing.headers.get('content-security-policy') ?? '', new RegExp(`frame-ancestors ${app}`));
  assert.doesNotMatch(missing.headers.get('content-security-policy') ?? '', /:0\b/);

  const feedPage = await (await fetch(`${app}/feeds/1`)).text();
  assert.match(feedPage, /href="\/changes\.atom\?feed=https%3A%2F%2Fa\.example%2Ffeed"/);

  // The TimeGate writes a stored `>` percent-encoded; following its Location finds the capture.
  const gate = await fetch(`${captures}/timegate/${ANGLE_URL}`, { redirect: 'manual' });
  assert.equal(gate.status, 302);
  const location = gate.headers.get('location')!;
  assert.match(location, /x%3Ey$/);
  const followed = await raw(byAddress(captures), location, { headers: { host: new URL(captures).host } });
  assert.equal(followed.status, 200);

  const home = await fetch(`${app}/`);
  assert.equal(home.headers.get('x-frame-options'), 'DENY');
  assert.match(home.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
});
