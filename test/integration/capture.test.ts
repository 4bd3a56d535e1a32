import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { finished, forest, startForest, startServe, waitFor, type ForestProcess } from '../helpers/cli.js';
import { listenOn } from '../helpers/listen.js';
import { png } from '../helpers/png.js';
import { query, scalar, workspace } from '../helpers/setup.js';

/*
 * Issue #67, item 6: a page that is in no feed, archived by hand — `forest capture URL` when no
 * daemon runs (the command archives it itself), the same when one runs (the daemon does, the
 * command waits), the web app's "Archive a page" form and POST /api/v1/pages — each kept whole,
 * extracted, and then revisited by the daemon like a feed item's page.
 */

const TOKEN = 'capture-token-0123456789abcdef';
const ws = workspace([], {
  // 127.0.72.1 stands for a network the archive must not reach.
  http: { allowPrivateNetworks: ['127.0.71.0/24'] },
  revisit: { after: Array.from({ length: 30 }, () => '1s') },
  serve: { token: TOKEN, public: true },
});
let edited = false;
let site: Server;
let origin = '';

const story = (title: string, words: string) => `<!doctype html><html><head><title>${title}</title><link rel="stylesheet" href="/site.css"></head>
<body><nav><a href="/">Home</a></nav><article><h1>${title}</h1><p>${words}</p><p>The council meets again on Thursday, and the plans will be on show in the library until then for anyone who asks.</p>
<figure><img src="/pictures/${title.length}.png" alt=""><figcaption>The plans as drawn.</figcaption></figure></article></body></html>`;

before(async () => {
  site = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (path === '/site.css') return void response.writeHead(200, { 'content-type': 'text/css' }).end('body { color: rgb(9, 8, 7); }');
    if (path.startsWith('/pictures/')) return void response.writeHead(200, { 'content-type': 'image/png' }).end(png(12, 8, [40, 80, 120]));
    const pages: Record<string, string> = {
      '/story.html': story('The new bridge', edited ? 'The council approved the new bridge over the river by nine votes to two, after a debate of four hours.'
        : 'The council approved the new bridge over the river by seven votes to four, after a debate of three hours.'),
      '/other.html': story('The market hall', 'The market hall reopens in spring with forty stalls, a bakery and a fish counter, the council said on Monday.'),
      '/third.html': story('The ferry timetable', 'The winter ferry timetable starts on Sunday, with the first crossing at six and the last at half past ten.'),
      '/fourth.html': story('The library hours', 'The library opens an hour earlier from January, and stays open until nine on Thursdays through the winter.'),
    };
    const page = pages[path];
    if (!page) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  origin = await listenOn(site, '127.0.71.1');
});

after(() => new Promise((resolve) => site.close(resolve)));

interface Captured { url: string; result: string; article: number | null; versions: number | null; requisites: number; error: string | null }
const captured = (stdout: string): Captured => JSON.parse(stdout.trim().split('\n').at(-1)!) as Captured;
const handList = () => scalar<number | undefined>(ws.db, "SELECT id FROM feeds WHERE subscribed_url = 'forest:pages'");

test('forest capture, with no daemon running: the page is archived at once, whole, in the list of pages archived by hand', async () => {
  const result = await forest([...ws.args, 'capture', `${origin}/story.html`, '--json']);
  assert.equal(result.code, 0, result.stderr);
  const page = captured(result.stdout);
  assert.deepEqual({ ...page, article: page.article !== null }, { url: `${origin}/story.html`, result: 'archived', article: true, versions: 1, requisites: 2, error: null });
  const [feed] = query<{ subscribed: number; enabled: number; title: string }>(ws.db, 'SELECT subscribed, enabled, title FROM feeds WHERE id = ?', handList());
  assert.deepEqual(feed, { subscribed: 0, enabled: 1, title: 'Pages archived by hand' });
  assert.deepEqual(query<{ kind: string; kept: number }>(ws.db, 'SELECT kind, sha256 IS NOT NULL AS kept FROM requisites ORDER BY kind'), [{ kind: 'image', kept: 1 }, { kind: 'style', kept: 1 }]);
  assert.match(scalar<string>(ws.db, 'SELECT text FROM contents'), /seven votes to four/);
  assert.ok(scalar<string | null>(ws.db, 'SELECT next_check_at FROM articles WHERE id = ?', page.article) !== null, 'a revisit is planned');

  const human = await forest([...ws.args, 'capture', `${origin}/story.html`]);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /^revisited http:\/\/127\.0\.71\.1:\d+\/story\.html → article \d+ \(1 version; `forest show \d+`\)\n$/, 'a page archived already is revisited, and unchanged keeps its one version');
});

test('forest capture says what is wrong: an address Forest refuses (and the setting that allows it), and no URL at all', async () => {
  const refused = await forest([...ws.args, 'capture', 'http://127.0.72.1:9/private.html']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^forest: failed: http:\/\/127\.0\.72\.1:9\/private\.html: blocked: .*http\.allowPrivateNetworks.*\n$/);
  assert.equal(refused.stdout, '');
  const bad = await forest([...ws.args, 'capture', 'ftp://example.org/file']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /must be an absolute http:\/\/ or https:\/\/ URL/);
});

test('the daemon revisits a page archived by hand, and archives pages asked for while it runs (the command, the form, the API)', async () => {
  edited = true;
  const daemon: ForestProcess = startForest([...ws.args, 'run']);
  let web: ForestProcess | null = null;
  try {
    const story = scalar<number>(ws.db, "SELECT id FROM articles WHERE url LIKE '%/story.html'");
    await waitFor(() => scalar<number>(ws.db, 'SELECT versions FROM articles WHERE id = ?', story) === 2, 30_000, 'the edited story revisited into version 2');
    assert.match(scalar<string>(ws.db, 'SELECT summary FROM versions WHERE article_id = ? AND n = 2', story), /body edit/);

    const waited = await forest([...ws.args, 'capture', `${origin}/other.html`, '--json', '--wait', '30s']);
    assert.equal(waited.code, 0, waited.stderr);
    assert.match(waited.stderr, /a daemon runs on this archive \(pid \d+/);
    assert.equal(captured(waited.stdout).result, 'archived');

    const served = await startServe(ws.args);
    web = served.server;
    const form = (fields: Record<string, string>, cookie?: string) => ({
      method: 'POST', redirect: 'manual' as const, body: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
    });
    const login = await fetch(`${served.base}/login`, form({ token: TOKEN }));
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const dashboard = await (await fetch(`${served.base}/`, { headers: { cookie } })).text();
    assert.match(dashboard, /<form action="\/pages" method="post">/, 'the dashboard offers "Archive a page"');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(dashboard)![1]!;
    const sent = await fetch(`${served.base}/pages`, form({ url: `${origin}/third.html`, _csrf: csrf }, cookie));
    assert.equal(sent.status, 303);
    assert.equal(sent.headers.get('location'), '/articles?feed=forest%3Apages&queued=1');
    assert.match(await (await fetch(`${served.base}${sent.headers.get('location')}`)).text(), /The page is queued/);
    assert.equal((await fetch(`${served.base}/pages`, form({ url: 'javascript:alert(1)', _csrf: csrf }, cookie))).status, 400);

    const api = await fetch(`${served.base}/api/v1/pages`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ url: `${origin}/fourth.html` }) });
    assert.equal(api.status, 202);
    assert.equal(((await api.json()) as { state: string }).state, 'queued');
    assert.equal((await fetch(`${served.base}/api/v1/pages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: `${origin}/fourth.html` }) })).status, 401);

    await waitFor(() => scalar<number>(ws.db, "SELECT COUNT(*) FROM articles WHERE url LIKE '%/third.html' OR url LIKE '%/fourth.html'") === 2, 30_000, 'the form\'s and the API\'s pages archived by the daemon');
    assert.equal(scalar<number>(ws.db, 'SELECT COUNT(DISTINCT snapshots.item_id) FROM requisites JOIN snapshots ON snapshots.id = requisites.snapshot_id'), 4, 'each page captured with its requisites');
    assert.equal(scalar<number>(ws.db, 'SELECT COUNT(*) FROM polls WHERE feed_id = ?', handList()), 0, 'the list of pages archived by hand is never polled');
    const listed = await (await fetch(`${served.base}/articles?feed=forest%3Apages`)).text();
    for (const title of ['The new bridge', 'The market hall', 'The ferry timetable', 'The library hours']) assert.ok(listed.includes(title), `${title} is listed with the pages archived by hand`);
  } finally {
    if (web) {
      web.kill('SIGINT');
      await finished(web);
    }
    daemon.kill('SIGINT');
    const result = await finished(daemon);
    assert.equal(result.code, 0, result.stderr);
  }
});
