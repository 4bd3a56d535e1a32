import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { forest } from '../helpers/cli.js';
import { photoPost, photoSubject } from '../helpers/photo-blog.js';
import { query, workspace } from '../helpers/setup.js';
import { writeFile } from '../helpers/temp.js';

/**
 * The daemon makes the wrapper decisions of issue #10 (learn.ts): on a photo blog whose learned
 * wrapper would be its comment thread, the leave-one-out check rejects it, the daemon says so
 * with the numbers, and every page keeps its post — never the thread.
 */

const POSTS = 6;
let server: Server;
let base = '';

before(async () => {
  server = createServer((request, response) => {
    const post = /^\/p\/(\d+)$/.exec(request.url ?? '');
    if (post) return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(photoPost(Number(post[1])));
    if (request.url === '/feed.xml') {
      const items = Array.from({ length: POSTS }, (_, n) => `<item><guid>${base}/p/${n}</guid><title>${photoSubject(n)}</title><link>${base}/p/${n}</link>
<pubDate>${new Date(Date.UTC(2026, 10, 1 + n)).toUTCString()}</pubDate><description>${photoSubject(n)}: today's photograph.</description></item>`);
      return void response.writeHead(200, { 'content-type': 'application/rss+xml' }).end(`<?xml version="1.0"?><rss version="2.0"><channel><title>Daily Frame</title><link>${base}/</link>${items.join('')}</channel></rss>`);
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('a wrapper that would take the comment thread is rejected by the daemon; every post keeps its own text, never the thread', async () => {
  const ws = workspace([{ url: `${base}/feed.xml` }], { http: { perHostDelay: '10ms' }, log: { level: 'info', pretty: false } });
  const run = await forest([...ws.args, 'run', '--exit-after', '6s']);
  assert.equal(run.code, 0, run.stderr);
  const rejected = run.stdout.split('\n').filter((line) => line.includes('"msg":"wrapper rejected"')).map((line) => JSON.parse(line) as { check: string; reason: string });
  assert.ok(rejected.length >= 1, `the daemon logged no rejection:\n${run.stdout.split('\n').filter((line) => /wrapper|learn/.test(line)).join('\n')}`);
  assert.match(rejected[0]!.check, /^rejected by leave-one-out \(\d+ held out: \d+ agree with the single page, \d+ hold the page's own words better, [1-9]\d* worse(; \d+ more could not change the verdict)?\)$/);
  // Which pages the first learning (at 3 pages) sees depends on the order captures and
  // extractions finish: on some three it learns the page's outer container, on which it agrees
  // with the single page, and that one may be adopted. The thread's wrapper never is.
  assert.equal(query<{ n: number }>(ws.db, "SELECT COUNT(*) AS n FROM wrappers WHERE xpath LIKE '%thread%'")[0]!.n, 0, 'the thread\'s wrapper is not stored');

  const extractions = query<{ text: string; guid: string }>(ws.db,
    `SELECT COALESCE(contents.text, extractions.text) AS text, items.guid FROM extractions
      JOIN items ON items.id = extractions.item_id LEFT JOIN contents ON contents.hash = extractions.content_hash`);
  assert.equal(extractions.length, POSTS);
  for (const { text, guid } of extractions) {
    const n = Number(guid.split('/').at(-1));
    assert.ok(text.includes(`${photoSubject(n)} again in the afternoon`), `${guid}: the post`);
    assert.ok(!text.includes('reminded me of the'), `${guid}: not the thread`);
  }

  // forest learn on the same pages shows the same decision.
  const files = [0, 1, 2, 3, 4].map((n) => writeFile(ws.dir, `post-${n}.html`, photoPost(n)));
  const learn = await forest(['learn', ...files]);
  assert.equal(learn.code, 0, learn.stderr);
  assert.match(learn.stdout, /^wrapper: \/\/ol\[contains\(@class,'thread'\)\]/);
  assert.match(learn.stdout, /rejected by leave-one-out \(2 held out: 0 agree with the single page, 0 hold the page's own words better, 2 worse; 3 more could not change the verdict\): these pages keep single-page extraction/);
});
