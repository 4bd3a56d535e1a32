import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { loadCodec } from '../../src/archive/codec.js';
import { launchChromium } from '../helpers/browser.js';
import { raw } from '../helpers/raw-http.js';
import { startServe, type ForestProcess } from '../helpers/cli.js';
import { smallArchive } from '../helpers/small-archive.js';
import { tempDir } from '../helpers/temp.js';

// `forest serve` with `serve.public: false`, probed as an outsider would: both ports, the login,
// the headers built from stored URLs, and in Chromium, where the session cookie goes.

const TOKEN = '0123456789abcdef0123';
const HOSTILE_URL = 'http://127.0.0.1:1/x>;rel="evil",<http://evil.example/';
const dir = tempDir();
const database = join(dir, 'archive.db');
let server: ForestProcess;
let app = '';
let captures = '';
let browser: Browser | undefined;

const bearer = { authorization: `Bearer ${TOKEN}` };
const form = (fields: Record<string, string>, headers: Record<string, string> = {}) => ({
  method: 'POST', redirect: 'manual' as const, body: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
});

async function login(): Promise<string> {
  const response = await fetch(`${app}/login`, form({ token: TOKEN }));
  assert.equal(response.status, 303);
  return (response.headers.get('set-cookie') ?? '').split(';')[0]!;
}

const rawGet = (origin: string, path: string, headers: Record<string, string> = {}) => raw(origin, path, { headers });
const loginFrom = (from: string, token: string) => raw(app, '/login', { method: 'POST', from, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token }).toString() });

before(async () => {
  await loadCodec();
  await smallArchive(database, ['One', 'Two', 'Three'], { links: ['https://a.example/1', HOSTILE_URL, 'javascript:alert(1)'], latestHtmlExtra: '<p><a href="data:text/html,<script>alert(1)</script>">data link</a><video src="https://video.example/v.mp4" poster="https://video.example/p.jpg"></video></p>' }).close();
  const config = join(dir, 'settings.yaml');
  writeFileSync(config, `subscriptions: ${join(dir, 'feeds.yaml')}\nserve:\n  public: false\n  token: ${TOKEN}\n`);
  writeFileSync(join(dir, 'feeds.yaml'), '[]\n');
  ({ server, base: app, captures } = await startServe(['--config', config, '--db', database, '--host', '127.0.0.1']));
});

after(async () => {
  await browser?.close();
  server?.kill('SIGTERM');
});

test('the captures are on another host name than the app: a host-only cookie of the app is never theirs', () => {
  assert.equal(new URL(app).hostname, '127.0.0.1');
  assert.equal(new URL(captures).hostname, 'localhost');
});

test('with public: false, every capture route asks for the token or a ticket the app minted for that URL', async () => {
  const original = 'https://a.example/1';
  const routes = [`/timemap/link/${original}`, `/timemap/json/${original}`, `/timegate/${original}`, `/memento/20261102000100/${original}`];
  for (const route of routes) {
    const refused = await fetch(`${captures}${route}`, { redirect: 'manual' });
    assert.equal(refused.status, 401, `${route} without a credential`);
    assert.doesNotMatch(await refused.text(), /mayor/, 'nothing of the capture');
    assert.equal((await fetch(`${captures}${route}`, { redirect: 'manual', headers: { authorization: 'Bearer 0123456789abcdef0124' } })).status, 401, `${route} with a wrong token`);
    const allowed = await fetch(`${captures}${route}`, { redirect: 'manual', headers: bearer });
    assert.ok([200, 302].includes(allowed.status), `${route} with the token: ${allowed.status}`);
  }
  // A page of the app holds the ticket for its one URL: it opens that URL's captures, and only those.
  const cookie = await login();
  const view = await (await fetch(`${app}/captures/20261102000100/${original}`, { headers: { cookie } })).text();
  const src = /<iframe sandbox="" src="([^"]+)"/.exec(view)![1]!;
  const ticket = new RegExp(`^${captures}/t/([^/]+)/memento/20261102000100/https://a\\.example/1$`).exec(src)?.[1];
  assert.ok(ticket, `the frame's address carries a ticket: ${src}`);
  const framed = await fetch(src);
  assert.equal(framed.status, 200);
  assert.match(await framed.text(), /The mayor said no/);
  // Redirects to the nearest capture keep it.
  const near = await fetch(`${captures}/t/${ticket}/memento/20261102000700/${original}`, { redirect: 'manual' });
  assert.equal(near.status, 302);
  assert.equal(near.headers.get('location'), `/t/${ticket}/memento/20261102000800/${original}`);
  assert.equal((await fetch(`${captures}/t/${ticket}/memento/20261102000200/https://a.example/3`)).status, 401, 'a ticket opens its own URL only');
  const [expiry, signature] = ticket.split('.');
  assert.equal((await fetch(`${captures}/t/${Number(expiry) + 1}.${signature}/memento/20261102000100/${original}`)).status, 401, 'a ticket whose expiry was changed');
  assert.equal((await fetch(`${captures}/t/1000.${signature}/memento/20261102000100/${original}`)).status, 401, 'an expired ticket');
  assert.equal((await fetch(`${captures}/memento/20261102000100/${original}`, { headers: { cookie } })).status, 401, 'the app\'s cookie is no credential there');
});

test('logging out ends the session on the server; wrong logins are limited per client with a 429', async () => {
  const cookie = await login();
  assert.equal((await fetch(`${app}/`, { headers: { cookie } })).status, 200);
  const loggedOut = await fetch(`${app}/logout`, { method: 'POST', redirect: 'manual', headers: { cookie } });
  assert.equal(loggedOut.status, 303, 'a logout needs no body');
  assert.match(loggedOut.headers.get('set-cookie') ?? '', /Max-Age=0/);
  assert.equal((await fetch(`${app}/`, { headers: { cookie } })).status, 401, 'the cookie from before the logout is dead');
  assert.equal((await fetch(`${app}/`, { headers: { cookie: 'forest_session=made-up' } })).status, 401);

  // Guessing (from a client of its own): after a few wrong tokens even the right one waits, and is told how long.
  const guesser = '127.0.0.55';
  const statuses: number[] = [];
  for (let i = 0; i < 50; i++) statuses.push((await loginFrom(guesser, `wrong-token-number-${i}`)).status);
  assert.deepEqual([...new Set(statuses)], [401, 429]);
  assert.ok(statuses.indexOf(429) <= 10, `limited after ${statuses.indexOf(429)} tries`);
  const right = await loginFrom(guesser, TOKEN);
  assert.equal(right.status, 429);
  assert.ok(Number(right.headers['retry-after']) > 0);
  assert.match(right.body, /try again in \d+ s/);
  assert.equal(right.headers['set-cookie'], undefined);
  assert.equal((await loginFrom('127.0.0.56', TOKEN)).status, 303, 'another client is not held back');
  // The API's token is not a login: it is still heard.
  assert.equal((await fetch(`${app}/api/v1/status`, { headers: bearer })).status, 200);
});

test('Link and Location headers built from a stored URL are percent-encoded: no link of its own', async () => {
  const gate = await rawGet(captures, `/timegate/${HOSTILE_URL}`, bearer);
  assert.equal(gate.status, 302);
  const link = String(gate.headers['link']);
  assert.doesNotMatch(link, /rel="evil"/);
  assert.doesNotMatch(link, /<http:\/\/evil\.example/);
  assert.match(link, /^<http:\/\/127\.0\.0\.1:1\/x%3E;rel=%22evil%22,%3Chttp:\/\/evil\.example\/>; rel="original"/);
  assert.match(String(gate.headers['location']), /^\/memento\/\d{14}\/http:\/\/127\.0\.0\.1:1\/x%3E;rel=%22evil%22,%3Chttp:/);
  const map = await rawGet(captures, `/timemap/link/${HOSTILE_URL}`, bearer);
  assert.equal(map.status, 200);
  // Each link-value's target is one <…> with no <, > or " inside.
  for (const value of map.body.trim().split(',\n')) assert.match(value, /^<[^<>"]*>; rel="[^"]*"/, value);
});

test('the change feed\'s links are built on the app\'s own origin, never on the Host header', async () => {
  // A name the app does not answer to is refused outright (serve.allowedHosts); one it answers to
  // (an address, here with another port) still does not make the links.
  assert.equal((await rawGet(app, '/changes.atom', { ...bearer, host: 'evil.example' })).status, 421);
  const atom = await rawGet(app, '/changes.atom', { ...bearer, host: '127.0.0.1:9' });
  assert.equal(atom.status, 200);
  assert.doesNotMatch(atom.body, /127\.0\.0\.1:9\//);
  assert.match(atom.body, new RegExp(`<link href="${app}/articles/1/diff\\?from=1&amp;to=2"/>`));
});

test('hardening: security headers on the capture port\'s errors, frame-ancestors on captures, no-store when signed in, styles from the app only', async () => {
  const missing = await fetch(`${captures}/nothing`, { headers: bearer });
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('x-content-type-options'), 'nosniff');
  assert.match(missing.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  const refused = await fetch(`${captures}/timegate/https://a.example/1`);
  assert.equal(refused.status, 401);
  assert.match(refused.headers.get('content-security-policy') ?? '', /frame-ancestors/);
  const capture = await fetch(`${captures}/memento/20261102000100/https://a.example/1`, { headers: bearer });
  assert.match(capture.headers.get('content-security-policy') ?? '', new RegExp(`^sandbox; .*frame-ancestors ${app}( |$)`));

  const cookie = await login();
  for (const path of ['/', '/articles/1', '/api/v1/feeds']) {
    assert.equal((await fetch(`${app}${path}`, { headers: { cookie } })).headers.get('cache-control'), 'no-store', path);
  }
  const policy = (await fetch(`${app}/`, { headers: { cookie } })).headers.get('content-security-policy') ?? '';
  assert.match(policy, /style-src 'self'(;|$)/);
  assert.match(policy, /font-src 'self'(;|$)/);
  assert.doesNotMatch(policy, /https:(?!\/\/)/, 'no source allowed by scheme alone');
  const css = await fetch(`${app}/forest.css`);
  assert.equal(css.status, 200, 'the stylesheet is open, like the login page it dresses');
  assert.match(css.headers.get('content-type') ?? '', /text\/css/);
});

test('hardening: stored javascript: and data: URLs are never links, media never load from their site, ids are decimal', async () => {
  const cookie = await login();
  const third = await (await fetch(`${app}/articles/3`, { headers: { cookie } })).text();
  assert.match(third, /javascript:alert\(1\)/, 'the URL is shown');
  assert.doesNotMatch(third, /href="javascript:/i, 'as text, not a link');
  const first = await (await fetch(`${app}/articles/1`, { headers: { cookie } })).text();
  assert.match(first, /data link/);
  assert.doesNotMatch(first, /href="data:/i);
  assert.doesNotMatch(first, /<video|poster=/);
  assert.match(first, /<a href="https:\/\/video\.example\/v\.mp4" class="image">\[video\]<\/a>/);
  assert.equal((await fetch(`${app}/api/v1/articles/0x1`, { headers: bearer })).status, 400);
  assert.equal((await fetch(`${app}/api/v1/articles/1e0`, { headers: bearer })).status, 400);
  assert.equal((await fetch(`${app}/articles/0x1`, { headers: bearer })).status, 400);
  assert.equal((await fetch(`${app}/api/v1/articles/1`, { headers: bearer })).status, 200);
});

test('in Chromium, signed in: the capture origin never receives the session cookie, framed or at top level', async () => {
  browser = await launchChromium();
  const context = await browser.newContext();
  const page = await context.newPage();
  const toCaptures: Array<{ url: string; cookie: string | undefined }> = [];
  context.on('request', (request) => {
    if (new URL(request.url()).origin === captures) void request.allHeaders().then((headers) => toCaptures.push({ url: request.url(), cookie: headers['cookie'] }));
  });
  await page.goto(`${app}/login`);
  await page.getByLabel('Token').fill(TOKEN);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(`${app}/`);
  assert.ok((await context.cookies(app)).some((cookie) => cookie.name === 'forest_session'), 'logged in');
  await page.goto(`${app}/captures/20261102000100/https://a.example/1`);
  assert.match((await page.frameLocator('iframe').locator('body').textContent()) ?? '', /The mayor said no/, 'the frame shows the capture');
  const src = (await page.locator('iframe').getAttribute('src'))!;
  // At top level too: the capture opened in a tab of its own.
  const top = await page.goto(src);
  assert.equal(top?.status(), 200);
  await page.waitForTimeout(200);
  assert.ok(toCaptures.length >= 2, `requests to the capture origin seen: ${toCaptures.length}`);
  for (const sent of toCaptures) assert.ok(!sent.cookie?.includes('forest_session'), `${sent.url} was sent the session cookie`);
  await context.close();
});

test('in Chromium, a private archive leads to the login and back, and every page says whether you are signed in (issue #68, 3)', async () => {
  browser ??= await launchChromium();
  const context = await browser.newContext();
  const page = await context.newPage();
  const header = page.locator('header');
  const signedIn = async (path: string) => {
    await page.goto(`${app}${path}`);
    assert.equal(await header.getByRole('button', { name: 'log out' }).count(), 1, `${path}: "log out" in the header`);
    assert.equal(await header.getByRole('link', { name: 'log in' }).count(), 0, `${path}: no "log in"`);
  };
  try {
    // Signed out, a page leads to the login — once named in the header — and back to that page after it.
    await page.goto(`${app}/articles/1`);
    assert.equal(new URL(page.url()).pathname, '/login');
    assert.equal(new URL(page.url()).searchParams.get('next'), '/articles/1');
    assert.equal(await header.getByText('log in', { exact: true }).count(), 1, 'the header names the login page once');
    assert.match(await page.locator('main').innerText(), /to read this archive when it is private, and to subscribe/);
    await page.getByLabel('Token').fill(TOKEN);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${app}/articles/1`);

    // Signed in, on every page of the app — an error page too.
    for (const path of ['/', '/feeds/1', '/articles', '/articles/1', '/articles/1/versions/1', '/articles/1/diff', '/search?q=One', '/captures/20261102000100/https://a.example/1', '/articles/99']) await signedIn(path);
    await page.goto(`${app}/`);
    await header.getByRole('button', { name: 'log out' }).click();
    await page.waitForURL(/\/login\?next=%2F$/);

    // A client that is no browser still gets the 401; its page says how to get in, in words and links.
    const refused = await fetch(`${app}/`, { headers: { accept: 'text/html', authorization: 'Bearer 0123456789abcdef0124' } });
    assert.equal(refused.status, 401);
    const body = await refused.text();
    assert.doesNotMatch(body, /`/, 'no raw backticks');
    assert.match(body, /<code>Authorization: Bearer &lt;serve.token&gt;<\/code>/);
    assert.match(body, /<a href="\/login">Log in<\/a>/);
    // After the login, only a page of this app: never another origin.
    for (const next of ['//evil.example/', '/\\evil.example/', 'https://evil.example/']) {
      // From a client of its own: the guessing test's wrong tokens are not held against it.
      const answer = await raw(app, '/login', { method: 'POST', from: '127.0.0.57', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: TOKEN, next }).toString() });
      assert.equal(answer.headers['location'], '/', `${next}: ${answer.status}`);
    }
  } finally {
    await context.close();
  }
});
