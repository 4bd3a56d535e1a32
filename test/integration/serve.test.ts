import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { loadCodec } from '../../src/archive/codec.js';
import { parseFeed } from '../../src/feeds/parse.js';
import { finished, forest, startForest, waitFor } from '../helpers/cli.js';
import { smallArchive } from '../helpers/small-archive.js';
import { tempDir } from '../helpers/temp.js';
import { readZip } from '../helpers/zip.js';

// `forest serve` as a user runs it: the built command on a real archive file, over real HTTP.

const HOSTILE = '<script>alert(1)</script> & “quotes”';
// Made at the top level: a temporary folder made in a hook is removed when the hook's scope ends.
const database = join(tempDir(), 'archive.db');
let server: ReturnType<typeof startForest>;
let base = '';

before(async () => {
  await loadCodec();
  await smallArchive(database, ['One', HOSTILE, 'Three']).close();
  server = startForest(['serve', '--db', database, '--host', '127.0.0.1', '--port', '0']);
  await waitFor(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(server.output.stdout), 15_000, `forest serve to listen (stderr: ${server.output.stderr})`);
  base = /listening on (http:\/\/\S+)/.exec(server.output.stdout)![1]!;
});

after(() => {
  if (server.exitCode === null) server.kill('SIGKILL');
});

const get = async (path: string) => {
  const response = await fetch(`${base}${path}`);
  const type = response.headers.get('content-type') ?? '';
  return { status: response.status, type, headers: response.headers, body: type.includes('json') ? (await response.json()) as Record<string, unknown> : await response.text() };
};

test('the API serves feeds, articles a page at a time (cursor), an article with its versions and checks, a version, a diff and search', async () => {
  const feeds = await get('/api/v1/feeds');
  assert.equal(feeds.status, 200);
  const [feed] = (feeds.body as { items: Array<Record<string, unknown>> }).items;
  assert.equal(feed?.['url'], 'https://a.example/feed');
  assert.deepEqual(feed?.['tags'], ['news']);
  assert.equal(feed?.['articles'], 3);
  assert.equal((await get(`/api/v1/feeds/${String(feed?.['id'])}`)).status, 200);

  const first = await get('/api/v1/articles?limit=2');
  const page1 = first.body as { items: Array<{ id: number; title: string; guid: string; firstCaptured: string }>; next: string | null };
  assert.deepEqual(page1.items.map((article) => article.id), [3, 2], 'newest first');
  assert.equal(page1.items[1]?.title, HOSTILE);
  assert.equal(page1.items[0]?.guid, 'g3');
  assert.ok(page1.next);
  const page2 = (await get(`/api/v1/articles?limit=2&cursor=${page1.next}`)).body as typeof page1;
  assert.deepEqual(page2.items.map((article) => article.id), [1]);
  assert.equal(page2.next, null);
  const since = (await get('/api/v1/articles?since=2026-11-02T00:02:00Z&until=2026-11-02T00:02:30Z')).body as typeof page1;
  assert.deepEqual(since.items.map((article) => article.id), [2]);

  const article = (await get('/api/v1/articles/1')).body as { versions: Array<{ n: number; change: string[] }>; checks: unknown[] };
  assert.deepEqual(article.versions.map((version) => [version.n, version.change]), [[1, []], [2, ['body-edit']]]);
  assert.equal(article.checks.length, 2);
  const version = (await get('/api/v1/articles/1/versions/2')).body as { text: string; version: number; byline: string };
  assert.match(version.text, /The mayor said yes/);
  assert.equal(version.byline, 'Ann Lee');
  const diff = (await get('/api/v1/articles/1/diff')).body as { a: number; b: number; kinds: string[] };
  assert.deepEqual([diff.a, diff.b, diff.kinds], [1, 2, ['body-edit']]);
  const hits = (await get('/api/v1/search?q=mayor')).body as { items: Array<{ article: number }> };
  assert.deepEqual(hits.items.map((hit) => hit.article).sort(), [1, 2, 3]);
  const status = (await get('/api/v1/status')).body as { daemon: unknown; articles: number };
  assert.deepEqual([status.daemon, status.articles], [null, 3]);
});

test('the API answers what the CLI prints: GET /api/v1/articles/1 is `forest history 1 --json`', async () => {
  const cli = await forest(['history', '1', '--json', '--db', database]);
  assert.equal(cli.code, 0, cli.stderr);
  assert.deepEqual((await get('/api/v1/articles/1')).body, JSON.parse(cli.stdout));
});

test('API errors are problem documents that say what is wrong, never a stack trace', async () => {
  for (const [path, status, detail] of [
    ['/api/v1/articles/99', 404, /no article 99/],
    ['/api/v1/articles/1/versions/7', 404, /article 1 has no version 7/],
    ['/api/v1/articles?cursor=garbage', 400, /cursor/],
    ['/api/v1/articles?limit=0', 400, /limit/],
    ['/api/v1/articles?since=yesterday', 400, /since/],
    ['/api/v1/articles/x', 400, /id/],
    ['/api/v1/search?q=*', 400, /no word to search for/],
    ['/api/v1/nothing-here', 404, /openapi\.json/],
  ] as const) {
    const response = await get(path);
    assert.equal(response.status, status, path);
    assert.match(response.type, /^application\/problem\+json/, path);
    const problem = response.body as { status: number; title: string; detail: string };
    assert.equal(problem.status, status, path);
    assert.match(problem.detail, detail, path);
    assert.doesNotMatch(JSON.stringify(problem), /\.ts:\d+|at \w+ \(/, `${path}: no stack trace`);
  }
});

test('the OpenAPI document lists every API route with its parameters', async () => {
  const { body } = await get('/api/v1/openapi.json');
  const document = body as { openapi: string; paths: Record<string, Record<string, { parameters?: Array<{ name: string }> }>> };
  assert.match(document.openapi, /^3\./);
  for (const path of ['/api/v1/feeds', '/api/v1/feeds/{id}', '/api/v1/feeds/{id}/polls', '/api/v1/articles', '/api/v1/articles/{id}', '/api/v1/articles/{id}/versions/{n}', '/api/v1/articles/{id}/diff', '/api/v1/search', '/api/v1/status']) {
    assert.ok(document.paths[path]?.['get'], `${path} documented`);
  }
  assert.deepEqual(document.paths['/api/v1/articles']!['get']!.parameters!.map((parameter) => parameter.name).sort(), ['cursor', 'feed', 'language', 'limit', 'since', 'until']);
});

test('pages: the dashboard and an article page, with the text of feeds escaped and a Content Security Policy', async () => {
  const dashboard = await get('/');
  assert.equal(dashboard.status, 200);
  assert.match(dashboard.type, /text\/html/);
  const policy = dashboard.headers.get('content-security-policy') ?? '';
  assert.match(policy, /script-src 'self'/);
  assert.match(policy, /frame-ancestors 'none'/);
  assert.doesNotMatch(policy, /upgrade-insecure-requests/, 'plain HTTP on a LAN address must keep working');
  const text = dashboard.body as string;
  assert.match(text, /&lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; “quotes”/);
  assert.doesNotMatch(text, /<script>alert/);
  assert.match(text, /href="\/articles\/1"/);
  const article = (await get('/articles/1')).body as string;
  assert.match(article, /The mayor said yes/);
  assert.match(article, /body-edit/);
  const missing = await get('/articles/99');
  assert.equal(missing.status, 404);
  assert.match(missing.body as string, /no article 99/);
});

test('Memento: a TimeMap of every kept capture, a TimeGate that honours Accept-Datetime, and each capture as fetched, sandboxed', async () => {
  const original = 'https://a.example/1';
  const map = await fetch(`${base}/timemap/link/${original}`);
  assert.equal(map.status, 200);
  assert.match(map.headers.get('content-type') ?? '', /^application\/link-format/);
  const links = await map.text();
  assert.match(links, /<https:\/\/a\.example\/1>; rel="original"/);
  assert.match(links, /<\/timegate\/https:\/\/a\.example\/1>; rel="timegate"/);
  assert.deepEqual([...links.matchAll(/<\/memento\/(\d{14})\/https:\/\/a\.example\/1>; rel="[^"]*memento"; datetime="([^"]+)"/g)].map((m) => [m[1], m[2]]),
    [['20261102000100', 'Mon, 02 Nov 2026 00:01:00 GMT'], ['20261102000800', 'Mon, 02 Nov 2026 00:08:00 GMT']]);
  const json = (await get(`/timemap/json/${original}`)).body as { mementos: { list: Array<{ uri: string }> } };
  assert.equal(json.mementos.list.length, 2);

  const gate = await fetch(`${base}/timegate/${original}`, { redirect: 'manual', headers: { 'accept-datetime': 'Mon, 02 Nov 2026 00:03:00 GMT' } });
  assert.equal(gate.status, 302);
  assert.equal(gate.headers.get('location'), `/memento/20261102000100/${original}`);
  assert.match(gate.headers.get('vary') ?? '', /accept-datetime/i);
  assert.match(gate.headers.get('link') ?? '', /rel="original".*rel="timemap"/);
  const latest = await fetch(`${base}/timegate/${original}`, { redirect: 'manual' });
  assert.equal(latest.headers.get('location'), `/memento/20261102000800/${original}`);

  // The app never serves archived bytes: its memento URLs lead to the capture origin, which serves them.
  const captureUrl = /archived pages from (http:\/\/\S+)/.exec(server.output.stdout)![1]!;
  const onApp = await fetch(`${base}/memento/20261102000100/${original}`, { redirect: 'manual' });
  assert.equal(onApp.status, 302);
  assert.equal(onApp.headers.get('location'), `${captureUrl}/memento/20261102000100/${original}`);
  const memento = await fetch(onApp.headers.get('location')!, { redirect: 'manual' });
  assert.equal(memento.status, 200);
  assert.equal(memento.headers.get('memento-datetime'), 'Mon, 02 Nov 2026 00:01:00 GMT');
  assert.match(memento.headers.get('link') ?? '', /rel="next memento"/);
  assert.match(memento.headers.get('content-security-policy') ?? '', /^sandbox/);
  assert.match(await memento.text(), /The mayor said no/);
  const near = await fetch(`${captureUrl}/memento/20261102000700/${original}`, { redirect: 'manual' });
  assert.equal(near.status, 302);
  assert.equal(near.headers.get('location'), `/memento/20261102000800/${original}`);
  assert.equal((await fetch(`${base}/timegate/https://a.example/never`, { redirect: 'manual' })).status, 404);
});

test('the capture view frames an archived page from the capture origin, sandboxed, under a banner', async () => {
  const captureUrl = /archived pages from (http:\/\/\S+)/.exec(server.output.stdout)?.[1];
  assert.ok(captureUrl && captureUrl !== base, 'a second origin');
  const view = await get('/captures/20261102000100/https://a.example/1');
  assert.equal(view.status, 200);
  assert.match(view.body as string, /Archived page<\/strong>, captured/);
  assert.match(view.body as string, new RegExp(`<iframe sandbox="" src="${captureUrl}/memento/20261102000100/https://a\\.example/1"`));
  assert.match(view.headers.get('content-security-policy') ?? '', new RegExp(`frame-src 'self' ${captureUrl}`));
  const framed = await fetch(`${captureUrl}/memento/20261102000100/https://a.example/1`);
  assert.equal(framed.status, 200);
  assert.match(framed.headers.get('content-security-policy') ?? '', /^sandbox; default-src 'none'/);
  assert.equal(framed.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(framed.headers.get('set-cookie'), null);
  assert.equal((await fetch(`${captureUrl}/api/v1/feeds`)).status, 404, 'the capture origin serves captures only');
  assert.equal((await get('/captures/20261102000500/https://a.example/1')).status, 404);
});

test('changes.atom: one entry per edit, newest first, for a feed or a tag', async () => {
  const atom = await fetch(`${base}/changes.atom`);
  assert.match(atom.headers.get('content-type') ?? '', /application\/atom\+xml/);
  const text = await atom.text();
  assert.equal([...text.matchAll(/<entry>/g)].length, 1);
  assert.match(text, /<title>One — version 2<\/title>/);
  assert.match(text, /<category term="body-edit"\/>/);
  assert.match(text, /<link href="http:\/\/127\.0\.0\.1:\d+\/articles\/1\/diff\?from=1&amp;to=2"\/>/);
  // It is a feed: Forest's own parser reads it, with the edit's words in the entry.
  const parsed = await parseFeed(Buffer.from(text), { url: `${base}/changes.atom`, contentType: 'application/atom+xml' });
  assert.equal(parsed.format, 'atom1.0');
  assert.equal(parsed.items.length, 1);
  assert.match(parsed.items[0]!.content ?? '', /The mayor said no\s*yes/);
  assert.match(text, /<content type="html">[^<]*&lt;del&gt;no&lt;\/del&gt;&lt;ins&gt;yes&lt;\/ins&gt;/, 'the changed words, marked, escaped in the XML');
  assert.match(parsed.items[0]!.guid, /\/articles\/1\/versions\/2$/);
  assert.match(await (await fetch(`${base}/changes.atom?feed=1`)).text(), /<entry>/);
  assert.equal((await fetch(`${base}/changes.atom?feed=99`)).status, 404);
  assert.match(await (await fetch(`${base}/changes.atom?tag=news`)).text(), /<entry>/);
  assert.doesNotMatch(await (await fetch(`${base}/changes.atom?tag=sport`)).text(), /<entry>/);
  assert.doesNotMatch(await (await fetch(`${base}/changes.atom?feed=https://b.example/feed`)).text(), /<entry>/);
});

test('writes are refused without a token configured, and say how to set one', async () => {
  const response = await fetch(`${base}/api/v1/feeds`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: 'https://b.example/feed' }) });
  assert.equal(response.status, 403);
  assert.match(((await response.json()) as { detail: string }).detail, /set serve\.token/);
  assert.doesNotMatch(await (await fetch(`${base}/`)).text(), /method="post">.*name="url"/, 'no forms for readers');
  assert.equal((await fetch(`${base}/feeds`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'url=https%3A%2F%2Fb.example%2F' })).status, 403, 'no actions without a token configured');
  for (const path of ['/api/v1/export.jsonl', '/export.warc.gz', '/export.cdxj', '/export.wacz']) {
    const refused = await fetch(`${base}${path}`);
    assert.equal(refused.status, 403, path);
    assert.match(((await refused.json()) as { title: string; detail: string }).title, /Exports are off/);
  }
});

/** The exports over HTTP: streamed, and the CDXJ index points at each capture's record in the WARC. */
async function exportsOver(url: string, authorization: string): Promise<void> {
  assert.equal((await fetch(`${url}/export.warc.gz`, { headers: { authorization: 'Bearer 0123456789abcdef0124' } })).status, 401);
  const jsonl = await fetch(`${url}/api/v1/export.jsonl`, { headers: { authorization } });
  assert.equal(jsonl.status, 200);
  const articles = (await jsonl.text()).trim().split('\n').map((line) => JSON.parse(line) as { id: number; versions: unknown[] });
  assert.equal(articles.length, 1);
  assert.equal(articles.find((article) => article.id === 1)?.versions.length, 2);

  const warcResponse = await fetch(`${url}/export.warc.gz`, { headers: { authorization } });
  assert.equal(warcResponse.headers.get('content-type'), 'application/warc');
  const warc = Buffer.from(await warcResponse.arrayBuffer());
  assert.match(gunzipSync(warc).toString('latin1'), /^WARC\/1\.1\r\nWARC-Type: warcinfo|WARC-Type: warcinfo/);
  assert.equal((await fetch(`${url}/export.wacz`, { headers: { authorization: 'Bearer 0123456789abcdef0124' } })).status, 401);
  const wacz = await fetch(`${url}/export.wacz`, { headers: { authorization } });
  assert.equal(wacz.status, 200);
  assert.equal(wacz.headers.get('content-type'), 'application/wacz');
  assert.deepEqual([...readZip(Buffer.from(await wacz.arrayBuffer())).keys()].sort(), ['archive/data.warc.gz', 'datapackage-digest.json', 'datapackage.json', 'indexes/index.cdxj', 'pages/pages.jsonl']);
  const lines = (await (await fetch(`${url}/export.cdxj`, { headers: { authorization } })).text()).trim().split('\n');
  assert.ok(lines.length >= 2, `${lines.length} index lines`);
  assert.deepEqual([...lines].sort(), lines, 'sorted, as CDXJ readers expect');
  for (const line of lines) {
    const [key, stamp, json] = [line.slice(0, line.indexOf(' ')), line.split(' ')[1]!, line.slice(line.indexOf('{'))];
    const entry = JSON.parse(json) as { url: string; offset: string; length: string; filename: string; status: string };
    assert.equal(entry.filename, 'export.warc.gz');
    assert.match(key, /^example,a\)\//, 'the key is the URL in SURT form');
    // The record at that offset is one gzip member: the capture's response or revisit record.
    const record = gunzipSync(warc.subarray(Number(entry.offset), Number(entry.offset) + Number(entry.length))).toString('latin1');
    assert.match(record, /^WARC\/1\.1\r\n/);
    assert.match(record, /WARC-Type: (response|revisit)\r\n/);
    assert.ok(record.includes(`WARC-Target-URI: ${entry.url}\r\n`), `${entry.url} at ${entry.offset}`);
    assert.ok(record.includes(`WARC-Date: ${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(8, 10)}:${stamp.slice(10, 12)}:${stamp.slice(12, 14)}Z`));
  }
}

/** The pages' actions: a login with the token, then forms that carry the session's CSRF token. */
async function pageActions(url: string, list: string): Promise<void> {
  const form = (fields: Record<string, string>, cookie?: string) => ({
    method: 'POST', redirect: 'manual' as const, body: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
  });
  assert.equal((await fetch(`${url}/login`)).status, 200, 'the login page is open when reads are not');
  assert.equal((await fetch(`${url}/login`, form({ token: 'not-the-token-at-all' }))).status, 401);
  const login = await fetch(`${url}/login`, form({ token: '0123456789abcdef0123' }));
  assert.equal(login.status, 303);
  const setCookie = login.headers.get('set-cookie') ?? '';
  assert.match(setCookie, /^forest_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+/);
  const cookie = setCookie.split(';')[0]!;
  assert.doesNotMatch(setCookie, /Secure/, 'plain HTTP');
  const behindTls = await fetch(`${url}/login`, { ...form({ token: '0123456789abcdef0123' }), headers: { ...form({}).headers, 'x-forwarded-proto': 'https' } });
  assert.match(behindTls.headers.get('set-cookie') ?? '', /; Secure$/, 'behind a TLS proxy, the cookie is Secure');

  const dashboard = await (await fetch(`${url}/`, { headers: { cookie } })).text();
  assert.match(dashboard, /<form action="\/feeds" method="post">/, 'a logged-in archivist sees the subscribe form');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(dashboard)![1]!;
  assert.equal((await fetch(`${url}/feeds`, form({ url: 'https://c.example/feed' }, cookie))).status, 403, 'a form without the CSRF token is refused');
  assert.equal((await fetch(`${url}/feeds`, form({ url: 'https://c.example/feed', _csrf: csrf }))).status, 401, 'and one without the session');
  assert.equal((await fetch(`${url}/feeds`, form({ url: 'https://c.example/feed', _csrf: csrf }, 'forest_session=1.forged'))).status, 401);

  const added = await fetch(`${url}/feeds`, form({ url: 'https://c.example/feed', title: 'C', tags: 'sport, local', _csrf: csrf }, cookie));
  assert.equal(added.status, 303);
  const feedPath = added.headers.get('location')!;
  assert.match(feedPath, /^\/feeds\/\d+$/);
  assert.match(readFileSync(list, 'utf8'), /# my feeds[\s\S]*url: https:\/\/c\.example\/feed[\s\S]*tags:[\s\S]*sport/);
  const feedPage = await (await fetch(`${url}${feedPath}`, { headers: { cookie } })).text();
  assert.match(feedPage, /<button>Pause polling<\/button>/);
  assert.equal((await fetch(`${url}${feedPath}/enabled`, form({ enabled: 'false', _csrf: csrf }, cookie))).status, 303);
  assert.match(readFileSync(list, 'utf8'), /c\.example\/feed[\s\S]*enabled: false/);
  assert.match(await (await fetch(`${url}${feedPath}`, { headers: { cookie } })).text(), /<button>Resume polling<\/button>/);
  assert.doesNotMatch(await (await fetch(`${url}${feedPath}`, { headers: { cookie } })).text(), /Poll now/, 'a paused feed is not polled now');
  assert.equal((await fetch(`${url}${feedPath}/enabled`, form({ enabled: 'true', _csrf: csrf }, cookie))).status, 303);
  assert.match(await (await fetch(`${url}${feedPath}`, { headers: { cookie } })).text(), /<button>Poll now<\/button>/);
  assert.equal((await fetch(`${url}${feedPath}/poll`, form({}, cookie))).status, 403, 'poll now needs the form token');
  const polled = await fetch(`${url}${feedPath}/poll`, form({ _csrf: csrf }, cookie));
  assert.equal(polled.status, 303);
  const due = (await (await fetch(`${url}/api/v1${feedPath}`, { headers: { cookie } })).json()) as { nextPoll: string | null };
  assert.ok(due.nextPoll !== null && Date.parse(due.nextPoll) <= Date.now(), `due now: ${due.nextPoll}`);
  assert.equal((await fetch(`${url}${feedPath}/unsubscribe`, form({ _csrf: csrf }, cookie))).status, 303);
  assert.doesNotMatch(readFileSync(list, 'utf8'), /c\.example/);
  const loggedOut = await fetch(`${url}/logout`, form({ _csrf: csrf }, cookie));
  assert.match(loggedOut.headers.get('set-cookie') ?? '', /Max-Age=0/);
}

// A directory made at the top level (see above) for the server with a token.
const guardedDir = tempDir();

test('with serve.public false, every request needs the token; with it, feeds are added, paused and removed through the list', async () => {
  const dir = guardedDir;
  const config = join(dir, 'settings.yaml');
  const list = join(dir, 'feeds.yaml');
  const guardedDb = join(dir, 'guarded.db');
  await smallArchive(guardedDb).close();
  writeFileSync(list, '# my feeds\n- url: https://a.example/feed\n  title: A\n  tags: [news]\n');
  writeFileSync(config, `subscriptions: ${list}\nserve:\n  public: false\n  token: 0123456789abcdef0123\n  captureOrigin: https://captures.example.test\n`);
  const guarded = startForest(['serve', '--config', config, '--db', guardedDb, '--port', '0']);
  try {
    await waitFor(() => /listening on/.test(guarded.output.stdout), 15_000, `the guarded server (stderr: ${guarded.output.stderr})`);
    const url = /listening on (http:\/\/\S+)/.exec(guarded.output.stdout)![1]!;
    const without = await fetch(`${url}/api/v1/feeds`);
    assert.equal(without.status, 401);
    assert.match(((await without.json()) as { detail: string }).detail, /Bearer/);
    assert.equal((await fetch(`${url}/`, { headers: { authorization: 'Bearer 0123456789abcdef0124' } })).status, 401);
    assert.equal((await fetch(`${url}/api/v1/feeds`, { headers: { authorization: 'Bearer 0123456789abcdef0123' } })).status, 200);

    const auth = { authorization: 'Bearer 0123456789abcdef0123', 'content-type': 'application/json' };
    await exportsOver(url, auth.authorization);
    await pageActions(url, list);
    const view = await (await fetch(`${url}/captures/20261102000100/https://a.example/1`, { headers: auth })).text();
    assert.match(view, /<iframe sandbox="" src="https:\/\/captures\.example\.test\/t\/[\w.-]+\/memento\/20261102000100\/https:\/\/a\.example\/1"/, 'behind a proxy, the captures\' public origin, with a ticket for the frame');
    const created = await fetch(`${url}/api/v1/feeds`, { method: 'POST', headers: auth, body: JSON.stringify({ url: 'https://b.example/feed', title: 'B', tags: ['sport'] }) });
    assert.equal(created.status, 201);
    const feed = (await created.json()) as { id: number; subscribedUrl: string; tags: string[]; enabled: boolean };
    assert.deepEqual([feed.subscribedUrl, feed.tags, feed.enabled], ['https://b.example/feed', ['sport'], true]);
    assert.match(readFileSync(list, 'utf8'), /# my feeds[\s\S]*url: https:\/\/b\.example\/feed/, 'the list keeps its comment and gains the feed');
    assert.equal((await fetch(`${url}/api/v1/feeds`, { method: 'POST', headers: auth, body: JSON.stringify({ url: 'https://b.example/feed' }) })).status, 409);
    assert.equal((await fetch(`${url}/api/v1/feeds`, { method: 'POST', headers: auth, body: JSON.stringify({ url: 'ftp://c.example/' }) })).status, 400);
    const paused = await fetch(`${url}/api/v1/feeds/${feed.id}`, { method: 'PATCH', headers: auth, body: JSON.stringify({ enabled: false }) });
    assert.equal(paused.status, 200);
    assert.equal(((await paused.json()) as { enabled: boolean }).enabled, false);
    assert.match(readFileSync(list, 'utf8'), /enabled: false/);
    assert.equal((await fetch(`${url}/api/v1/feeds/${feed.id}`, { method: 'DELETE', headers: { authorization: auth.authorization } })).status, 204);
    assert.doesNotMatch(readFileSync(list, 'utf8'), /b\.example/);
    const listed = (await (await fetch(`${url}/api/v1/feeds`, { headers: auth })).json()) as { items: Array<{ url: string }> };
    assert.deepEqual(listed.items.map((item) => item.url), ['https://a.example/feed']);
    assert.equal((await fetch(`${url}/api/v1/feeds/${feed.id}`, { method: 'DELETE', headers: { authorization: 'Bearer wrong-token-wrong-token' } })).status, 401);
  } finally {
    guarded.kill('SIGTERM');
    await finished(guarded);
  }
  writeFileSync(config, 'serve:\n  public: false\n');
  const refused = await forest(['serve', '--config', config, '--db', guardedDb, '--port', '0']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /serve\.public is false but serve\.token is not set/);
});

test('pages: a feed, search with snippets (text an edit removed is marked), and a diff side by side and inline', async () => {
  const feed = (await get('/feeds/1')).body as string;
  assert.match(feed, /None learned yet/);
  assert.match(feed, /href="\/articles\/3"/);
  assert.equal((await get('/feeds/9')).status, 404);

  const search = (await get('/search?q=mayor+said+no')).body as string;
  assert.match(search, /<mark>mayor<\/mark>/i);
  const first = /<li><a href="\/articles\/1">[\s\S]*?<\/li>/.exec(search)?.[0] ?? '';
  assert.match(first, /removed by a later edit/, 'article 1 says "no" only in its first version');
  const third = /<li><a href="\/articles\/3">[\s\S]*?<\/li>/.exec(search)?.[0] ?? '';
  assert.ok(third && !/removed by a later edit/.test(third));
  const bad = await get('/search?q=-mayor');
  assert.equal(bad.status, 400);
  assert.match(bad.body as string, /could not be read: nothing to search for/);
  assert.equal((await get('/search?q=%22unclosed')).status, 200, 'an open quote is a phrase to the end, not an error');
  // The form's dates: whole days, in UTC; the archive's versions were all captured on 2 November.
  const sameDay = (await get('/search?q=mayor&feed=&since=2026-11-02&until=2026-11-02')).body as string;
  assert.equal((sameDay.match(/<li><a href="\/articles\//g) ?? []).length, 3);
  assert.match(sameDay, /<input type="date" name="since" value="2026-11-02">/, 'the form keeps the dates asked for');
  assert.match((await get('/search?q=mayor&since=2026-11-03')).body as string, /No match/);
  assert.match((await get('/search?q=mayor&until=2026-11-01')).body as string, /No match/);
  assert.equal((await get('/search?q=mayor&since=yesterday')).status, 400);

  const side = (await get('/articles/1/diff')).body as string;
  assert.match(side, /<td><a id="change-1"[^>]*>↓<\/a> The mayor said <del>no\.?<\/del>/);
  assert.match(side, /<ins>yes\.?<\/ins>/);
  assert.match(side, /<span class="label">body-edit<\/span>/);
  assert.match(side, /view=inline/);
  const inline = (await get('/articles/1/diff?view=inline')).body as string;
  assert.match(inline, /<td colspan="2"><a id="change-1"[^>]*>↓<\/a> The mayor said <del>no\.?<\/del><ins>yes\.?<\/ins>/);
  assert.equal((await get('/articles/1/diff?from=1&to=5')).status, 404);
});

test('/articles lists every article, filtered and a page at a time; each version has a page of its own, which the change feed\'s ids name', async () => {
  const all = (await get('/articles')).body as string;
  assert.equal((all.match(/<tr><td><a href="\/articles\/\d+">/g) ?? []).length, 3);
  assert.match(all, /The end of the list/);
  const edited = (await get('/articles?changed=1')).body as string;
  assert.deepEqual([...edited.matchAll(/<tr><td><a href="\/articles\/(\d+)">/g)].map((m) => m[1]), ['1']);
  assert.equal((((await get('/articles?tag=news')).body as string).match(/<tr><td>/g) ?? []).length, 3);
  assert.match((await get('/articles?tag=sport')).body as string, /No article matches/);
  // Two at a time: the older link carries the filter and the cursor, and the pages together hold each article once.
  const first = (await get('/articles?limit=2&tag=news')).body as string;
  const older = /<a href="([^"]+)" rel="next">Older articles/.exec(first)?.[1]?.replace(/&amp;/g, '&');
  assert.ok(older && /tag=news/.test(older) && /cursor=/.test(older), `an older link: ${older}`);
  const second = (await get(older)).body as string;
  const ids = [...`${first}${second}`.matchAll(/<tr><td><a href="\/articles\/(\d+)">/g)].map((m) => m[1]);
  assert.deepEqual(ids, ['3', '2', '1']);
  assert.equal((await get('/articles?cursor=garbage')).status, 400);

  const version1 = (await get('/articles/1/versions/1')).body as string;
  assert.match(version1, /version 1 of 2/);
  assert.match(version1, /The mayor said no/);
  assert.match(version1, /<a href="\/articles\/1">the latest version<\/a>/);
  assert.equal((await get('/articles/1/versions/3')).status, 404);
  const atom = await (await fetch(`${base}/changes.atom`)).text();
  const id = /<entry>[\s\S]*?<id>([^<]+)<\/id>/.exec(atom)![1]!;
  assert.equal(new URL(id).origin, base, 'an absolute URL on the app');
  const entry = await fetch(id);
  assert.equal(entry.status, 200, `${id} resolves`);
  assert.match(await entry.text(), /version 2 of 2/);
});

test('SIGTERM stops the server: it closes and exits 0', async () => {
  server.kill('SIGTERM');
  const result = await finished(server);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /stopped/);
});

test('forest run --serve: the daemon and the web server in one process, stopped together', async () => {
  const dir = tempDir();
  const config = join(dir, 'settings.yaml');
  writeFileSync(join(dir, 'feeds.yaml'), '[]\n');
  writeFileSync(config, `subscriptions: ${join(dir, 'feeds.yaml')}\ndatabase:\n  path: ${join(dir, 'run.db')}\nserve:\n  port: 0\nlog:\n  pretty: false\n`);
  const both = startForest(['run', '--serve', '--config', config]);
  try {
    await waitFor(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(both.output.stdout), 15_000, `forest run --serve to listen (stderr: ${both.output.stderr})`);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(both.output.stdout)![1]!;
    const status = (await (await fetch(`${url}/api/v1/status`)).json()) as { daemon: { pid: number } | null };
    assert.equal(status.daemon?.pid, both.pid, 'the status is the running daemon\'s own');
  } finally {
    both.kill('SIGTERM');
  }
  const result = await finished(both);
  assert.equal(result.code, 0, result.stderr);
});
