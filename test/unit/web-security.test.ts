import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { preparePage } from '../../src/extract/dom.js';
import { canonicalLink } from '../../src/extract/metadata.js';
import { sanitizeFeedHtml } from '../../src/feeds/sanitize.js';
import { GuessLimit } from '../../src/web/guess-limit.js';
import { capturePathOriginal } from '../../src/web/memento.js';
import { appOrigins, otherLoopbackName } from '../../src/web/origins.js';
import { captureTicket, Sessions, validCaptureTicket } from '../../src/web/session.js';
import { uriReference, webHref } from '../../src/web/uri.js';
import { hasToken } from '../../src/web/writes.js';

const TOKEN = '0123456789abcdef0123';

test('sessions live on the server: ended by logout for every copy of the cookie, by expiry, and bounded in number', () => {
  const sessions = new Sessions(TOKEN, { sessionLifetime: 1000, maxSessions: 3 });
  const id = sessions.create(0);
  assert.ok(sessions.valid(id, 500));
  assert.equal(sessions.valid(id, 1000), false, 'expired');
  const other = sessions.create(2000);
  sessions.end(other);
  assert.equal(sessions.valid(other, 2001), false, 'logged out');
  assert.equal(sessions.valid('forged', 2001), false);
  assert.equal(sessions.valid(undefined, 2001), false);
  const ids = [sessions.create(3000), sessions.create(3000), sessions.create(3000), sessions.create(3000)];
  assert.equal(sessions.valid(ids[0], 3001), false, 'the oldest ended when a fourth came');
  assert.ok(ids.slice(1).every((each) => sessions.valid(each, 3001)));
  assert.ok(sessions.validCsrf(ids[1]!, sessions.csrf(ids[1]!)));
  assert.equal(sessions.validCsrf(ids[1]!, sessions.csrf(ids[2]!)), false, 'a form token is its session\'s');
  assert.equal(new Sessions('another-token-0123456789').validCsrf(ids[1]!, sessions.csrf(ids[1]!)), false, 'and its token\'s');
});

test('a capture ticket opens one URL, until it expires, and cannot be altered', () => {
  const ticket = captureTicket(TOKEN, 'https://a.example/1', 0, 1000);
  assert.ok(validCaptureTicket(TOKEN, ticket, 'https://a.example/1', 999));
  assert.equal(validCaptureTicket(TOKEN, ticket, 'https://a.example/1', 1000), false, 'expired');
  assert.equal(validCaptureTicket(TOKEN, ticket, 'https://a.example/2', 0), false, 'another URL');
  assert.equal(validCaptureTicket('another-token-0123456789', ticket, 'https://a.example/1', 0), false, 'another token');
  const [, signature] = ticket.split('.');
  assert.equal(validCaptureTicket(TOKEN, `999999.${signature}`, 'https://a.example/1', 0), false, 'a longer life');
  for (const bad of ['', '.', '1000', 'x.y', `1000.${signature}.z`]) assert.equal(validCaptureTicket(TOKEN, bad, 'https://a.example/1', 0), false, bad);
});

test('capture paths name the original URL they address', () => {
  assert.equal(capturePathOriginal('/memento/20261102000100/https://a.example/1?x=1'), 'https://a.example/1?x=1');
  assert.equal(capturePathOriginal('/timegate/http://a.example/'), 'http://a.example/');
  assert.equal(capturePathOriginal('/timemap/json/https://a.example/'), 'https://a.example/');
  assert.equal(capturePathOriginal('/memento/2026/https://a.example/'), null);
  assert.equal(capturePathOriginal('/api/v1/feeds'), null);
});

test('wrong logins: past the limit within the window a client waits, even with the right token; others do not', () => {
  const limit = new GuessLimit({ guesses: 3, guessWindow: 60_000, maxGuessClients: 2 });
  for (let i = 0; i < 3; i++) {
    assert.equal(limit.wait('a', i * 1000), 0);
    limit.failed('a', i * 1000);
  }
  assert.equal(limit.wait('a', 3000), 57, 'until the first of the last three leaves the window');
  assert.equal(limit.wait('b', 3000), 0);
  assert.equal(limit.wait('a', 59_999), 1);
  assert.equal(limit.wait('a', 60_000), 0, 'the first failure left the window');
  limit.failed('b', 0);
  limit.failed('c', 0);
  limit.failed('d', 0);
  assert.equal(limit.wait('a', 3000), 0, 'the client failed longest ago was forgotten to hold two at most');
});

test('the Bearer check compares digests in constant time whatever the length sent', (t) => {
  const compare = t.mock.method(crypto, 'timingSafeEqual');
  syncBuiltinESMExports();
  try {
    const request = (authorization?: string) => ({ headers: authorization === undefined ? {} : { authorization } }) as FastifyRequest;
    assert.equal(hasToken(request(`Bearer ${TOKEN}`), TOKEN), true);
    assert.equal(hasToken(request('Bearer x'), TOKEN), false);
    assert.equal(hasToken(request(), TOKEN), false);
    assert.equal(hasToken(request(`Bearer ${TOKEN}${'x'.repeat(500)}`), TOKEN), false);
    assert.equal(hasToken(request(`bearer ${TOKEN}`), TOKEN), true, 'the scheme is case-insensitive (RFC 7235 §2.1)');
    assert.equal(hasToken(request(`Basic ${TOKEN}`), TOKEN), false);
    assert.equal(compare.mock.callCount(), 6, 'one comparison for every length, none skipped');
    for (const call of compare.mock.calls) assert.deepEqual(call.arguments.map((buffer) => (buffer as Buffer).length), [32, 32]);
  } finally {
    compare.mock.restore();
    syncBuiltinESMExports();
  }
});

test('a URL in a header is a URI-reference: the characters that would end it are percent-encoded', () => {
  assert.equal(uriReference('http://127.0.0.1:1/x>;rel="evil",<http://evil.example/'), 'http://127.0.0.1:1/x%3E;rel=%22evil%22,%3Chttp://evil.example/');
  assert.equal(uriReference('https://a.example/a b\r\nX: y'), 'https://a.example/a%20b%0D%0AX:%20y');
  assert.equal(uriReference('https://a.example/caf\u00e9?q=%41&r=%zz'), 'https://a.example/caf%C3%A9?q=%41&r=%25zz');
  assert.equal(uriReference('https://a.example/p?a=1&b=[2]#f'), 'https://a.example/p?a=1&b=[2]#f', 'a valid URI is left as it is');
  assert.equal(webHref('javascript:alert(1)'), null);
  assert.equal(webHref('data:text/html,x'), null);
  assert.equal(webHref('not a url'), null);
  assert.equal(webHref('https://a.example/'), 'https://a.example/');
});

test('a canonical link that does not parse as an absolute http(s) URL is dropped, not kept as text', () => {
  const page = (href: string) => preparePage(`<html><head><link rel="canonical" href="${href}"></head><body><p>x</p></body></html>`, { url: 'https://a.example/story' });
  assert.equal(canonicalLink(page('/story?id=1')), 'https://a.example/story?id=1');
  assert.equal(canonicalLink(page('http://[bad&gt;;rel=evil')), null);
  assert.equal(canonicalLink(page('javascript:alert(1)')), null);
  assert.equal(canonicalLink(preparePage('<html><head><link rel="canonical" href="story"></head></html>', { url: null })), null, 'relative, with nothing to resolve it against');
});

test('the captures default to the loopback\'s other name, and only the app\'s origins may frame them', () => {
  assert.equal(otherLoopbackName('127.0.0.1'), 'localhost');
  assert.equal(otherLoopbackName('localhost'), '127.0.0.1');
  assert.equal(otherLoopbackName('0.0.0.0'), null);
  // The loopback's other name is the captures': never an origin of the app (hosts.ts).
  assert.deepEqual(appOrigins(null, '127.0.0.1', 8080), ['http://127.0.0.1:8080']);
  assert.deepEqual(appOrigins(null, '127.0.0.1', 8080, ['archive.internal']), ['http://127.0.0.1:8080', 'http://archive.internal:8080']);
  assert.deepEqual(appOrigins('https://archive.example.org/', '127.0.0.1', 8080), ['https://archive.example.org']);
  assert.deepEqual(appOrigins(null, '192.0.2.1', 8080), ['http://192.0.2.1:8080']);
});

test('shown in the app, a stored body links no data: URL and loads no media from its site', () => {
  const shown = sanitizeFeedHtml('<p><a href="data:text/html,<script>x</script>">d</a><video src="https://v.example/v.mp4" poster="https://v.example/p.jpg"><source src="https://v.example/w.webm"></video><audio src="/a.mp3"></audio></p>', 'https://a.example/', { imagesAsLinks: true })!;
  assert.doesNotMatch(shown, /data:|<video|<audio|<source|poster/);
  assert.match(shown, /<a href="https:\/\/v\.example\/v\.mp4" class="image">\[video\]<\/a>/);
  assert.match(shown, /<a href="https:\/\/a\.example\/a\.mp3" class="image">\[audio\]<\/a>/);
  assert.match(sanitizeFeedHtml('<video src="https://v.example/v.mp4" controls></video>', null)!, /<video src="https:\/\/v\.example\/v\.mp4" controls/, 'stored as it was: an export keeps the page\'s media');
});
