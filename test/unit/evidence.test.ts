import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { toOpml } from '../../src/config/opml.js';
import { redactUrl, shownNotification, webhookLabel, withoutCredentials } from '../../src/config/secrets.js';
import { post } from '../../src/daemon/notifier.js';
import { canonicalOfOwnSite, groupedByCanonical, siteOf } from '../../src/net/site.js';
import { xmlChars } from '../../src/util/xml-chars.js';
import { hostNames, hostNameOf } from '../../src/web/hosts.js';
import { originalCandidates, uriReference } from '../../src/web/uri.js';

// The pure rules behind issue #65 (an archive that holds up as evidence); the real server's side
// is test/browser/evidence.test.ts.

test('a canonical link groups URLs of its own site only (registrable domain under the Public Suffix List)', () => {
  assert.equal(siteOf('https://www.bbc.co.uk/news/1'), 'bbc.co.uk');
  assert.equal(siteOf('https://ann.blogspot.com/p'), 'ann.blogspot.com', 'a private suffix: each blog is a site');
  assert.equal(siteOf('http://127.0.0.1:18200/p'), '127.0.0.1');
  assert.ok(canonicalOfOwnSite('https://www.example.com/a', ['https://example.com/a?utm=x']));
  assert.ok(!canonicalOfOwnSite('https://www.example.com/news/important-article', ['http://127.0.0.1:18200/p/spoof']));
  assert.ok(!canonicalOfOwnSite('https://bob.blogspot.com/x', ['https://ann.blogspot.com/x']));
  const article = { id: 1, url: 'https://news.example.org/a?utm=1', finalUrl: 'https://news.example.org/a', canonicalUrl: 'https://news.example.org/a' };
  const others = [{ id: 2, url: 'https://amp.news.example.org/a', finalUrl: null }, { id: 3, url: 'https://spoof.example.net/x', finalUrl: 'https://spoof.example.net/x' }];
  assert.deepEqual(groupedByCanonical(article, others).map((other) => other.id), [2], 'another site claiming the URL is not grouped');
  assert.deepEqual(groupedByCanonical({ ...article, url: 'https://spoof.example.net/y', finalUrl: null }, others), [], 'an article claiming another site\'s URL groups nothing');
});

test('XML Forest writes holds only XML 1.0 characters: the others show as U+FFFD', () => {
  assert.equal(xmlChars('a\u0001b\u001b[c\uFFFEd\uD800e\tf\n😀'), 'a\uFFFDb\uFFFD[c\uFFFDd\uFFFDe\tf\n😀');
  const opml = toOpml([{ url: 'https://a.example/feed', title: 'Bad\u0001title\u0008', tags: ['t\u000b'], enabled: true, schedule: null, siteUrl: null }]);
  assert.doesNotMatch(opml, /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
  assert.match(opml, /Bad\uFFFDtitle\uFFFD/);
});

test('a webhook is named by its scheme and host; every part of its URL is cut out of error text', () => {
  const url = 'https://user:pa%20ss@hooks.example.org:8443/t/PATH-TOKEN?key=QUERY-TOKEN#frag';
  assert.equal(webhookLabel(url), 'https://hooks.example.org:8443');
  const said = redactUrl(`POST ${url} failed; user=user pass=pa ss path=/t/PATH-TOKEN q=?key=QUERY-TOKEN`, url);
  for (const secret of ['PATH-TOKEN', 'QUERY-TOKEN', 'pa ss', 'pa%20ss', 'user:']) assert.ok(!said.includes(secret), `${secret} in ${said}`);
  assert.match(said, /^POST https:\/\/hooks\.example\.org:8443 failed/);
  assert.deepEqual(shownNotification({ webhook: url, delivered: 1, waiting: 0, lastDeliveredAt: null, lastError: `at ${url}` }),
    { webhook: 'https://hooks.example.org:8443', delivered: 1, waiting: 0, lastDeliveredAt: null, lastError: 'at https://hooks.example.org:8443' });
  assert.deepEqual(withoutCredentials('https://hooks.example.org/x'), { url: 'https://hooks.example.org/x', headers: {} });
});

test('a webhook URL with a user and password is delivered with Basic authentication, and its failure never names the URL', async () => {
  let authorization: string | undefined;
  const receiver = createServer((request, response) => {
    authorization = request.headers.authorization;
    response.writeHead(request.url === '/t/SECRET-PATH?k=SECRET-QUERY' ? 204 : 500).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;
  try {
    const delivered = await post(`http://hook%40user:SECRET-PASS@127.0.0.1:${port}/t/SECRET-PATH?k=SECRET-QUERY`, { body: '{}', headers: { 'content-type': 'application/json' } }, 5000);
    assert.deepEqual(delivered, { status: 204, error: null });
    assert.equal(authorization, `Basic ${Buffer.from('hook@user:SECRET-PASS').toString('base64')}`);
    const refused = await post(`http://user:SECRET-PASS@127.0.0.1:1/t/SECRET-PATH?k=SECRET-QUERY`, { body: '{}', headers: {} }, 5000);
    assert.equal(refused.status, null);
    assert.ok(refused.error && !/SECRET/.test(refused.error), String(refused.error));
  } finally {
    receiver.close();
  }
});

test('each port answers its own names: the app its listening name, its public URL\'s host, serve.allowedHosts and addresses — never the captures\' name', () => {
  const names = hostNames({ host: '127.0.0.1', publicUrl: null, allowedHosts: null }, 'localhost');
  assert.equal(hostNameOf('Example.ORG:8080'), 'example.org');
  assert.equal(hostNameOf('[::1]:80'), '::1');
  assert.equal(hostNameOf(undefined), null);
  assert.ok(names.app('127.0.0.1:8080'));
  assert.ok(names.app('[::1]:8080'), 'an address cannot be rebound');
  assert.ok(!names.app('localhost:8080'), 'the captures\' name is never the app\'s');
  assert.ok(!names.app('rebind.example:8080'));
  assert.ok(!names.app(undefined));
  assert.ok(names.capture('localhost:8081'));
  assert.ok(!names.capture('127.0.0.1:8081'));
  assert.ok(!names.capture('rebind.example:8081'));
  const proxied = hostNames({ host: '127.0.0.1', publicUrl: 'https://archive.example.org', allowedHosts: null }, 'captures.example.org');
  assert.ok(proxied.app('archive.example.org'));
  assert.ok(!proxied.app('captures.example.org'));
  const listed = hostNames({ host: '0.0.0.0', publicUrl: null, allowedHosts: ['archive.internal', 'Archive.LAN'] }, 'captures.internal');
  assert.ok(listed.app('archive.lan:80'));
  assert.ok(listed.app('10.1.2.3:8080'));
  assert.ok(!listed.app('elsewhere.example'));
});

test('a URL the TimeGate wrote percent-encoded leads back to the stored URL', () => {
  for (const stored of ['http://127.0.0.1:1/x>;rel="evil",<http://evil.example/', 'https://a.example/ü path', 'https://a.example/100%']) {
    assert.deepEqual(originalCandidates(uriReference(stored)), [uriReference(stored), stored], stored);
  }
  assert.deepEqual(originalCandidates('https://a.example/plain'), ['https://a.example/plain']);
  assert.deepEqual(originalCandidates('https://a.example/%41'), ['https://a.example/%41'], 'an escape uriReference would not write is no candidate');
});
