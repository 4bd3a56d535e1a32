import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { after, test } from 'node:test';
import { stringify } from 'yaml';
import { createHash } from 'node:crypto';
import { finished, forest, startForest, startServe, waitFor } from '../helpers/cli.js';
import { listenOn } from '../helpers/listen.js';
import { jpeg, webp } from '../helpers/picture.js';
import { query, scalar, workspace } from '../helpers/setup.js';

/*
 * Issue #67, item 4: an article's pictures are part of its object. A loopback site's story
 * shows a photograph (a figure with its caption) at one URL while its text never changes. The
 * photograph served again in another format and quality is the same picture: no version. A new
 * photograph at the same URL is an edit: a version of its own, keeping both pictures, its diff
 * naming the picture before and after.
 */

const ws = workspace([], { revisit: { after: Array.from({ length: 40 }, () => '1s') }, capture: { retryDelay: '1s' } });
let photo: { bytes: Buffer; type: string } = { bytes: Buffer.alloc(0), type: 'image/jpeg' };
const photoRequests: string[] = [];
const server = createServer((request, response) => {
  const path = new URL(request.url ?? '/', 'http://x').pathname;
  if (path === '/feed.xml') {
    return void response.writeHead(200, { 'content-type': 'application/rss+xml' }).end(`<?xml version="1.0"?><rss version="2.0"><channel><title>Harbour</title><link>${origin}/</link>
      <item><guid>${origin}/story.html</guid><title>The harbour at dawn</title><link>${origin}/story.html</link><pubDate>Tue, 01 Dec 2026 06:00:00 GMT</pubDate></item></channel></rss>`);
  }
  if (path === '/story.html') {
    return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'last-modified': 'Tue, 01 Dec 2026 06:00:00 GMT' }).end(`<!doctype html><html><head><title>The harbour at dawn</title></head>
      <body><header><a href="/">Harbour news</a></header><article><h1>The harbour at dawn</h1>
      <p>The first ferries leave the harbour before the sun is up, and the fishermen are already back with the night's catch on the quay.</p>
      <figure><img src="/photo.jpg" alt="The quay"><figcaption>The quay at six in the morning.</figcaption></figure>
      <p>By eight the market is full, and the gulls have found the boxes of sprats that nobody wanted to carry up the hill to the town.</p>
      <p>Nobody in the harbour remembers a winter as mild as this one, the harbour master says, and nobody complains about it either.</p>
      </article></body></html>`);
  }
  if (path === '/photo.jpg') {
    photoRequests.push(request.headers['if-none-match'] ? 'conditional' : 'plain');
    return void response.writeHead(200, { 'content-type': photo.type, etag: `"${photo.bytes.length}-${photo.bytes[photo.bytes.length - 3]}"` }).end(photo.bytes);
  }
  response.writeHead(404).end();
});
let origin = '';

after(() => new Promise((resolve) => server.close(resolve)));

const versions = () => scalar<number>(ws.db, 'SELECT COUNT(*) FROM versions');
const checks = () => scalar<number>(ws.db, 'SELECT COUNT(*) FROM checks');

test('a new picture at the same URL is a new version keeping both pictures; the same picture re-encoded is none', async () => {
  origin = await listenOn(server, '127.0.0.1');
  photo = { bytes: await jpeg(11, 85), type: 'image/jpeg' };
  writeFileSync(ws.feeds, stringify([{ url: `${origin}/feed.xml` }]));
  const daemon = startForest([...ws.args, 'run']);
  try {
    await waitFor(() => scalar<number>(ws.db, "SELECT COUNT(*) FROM requisites WHERE url LIKE '%/photo.jpg' AND sha256 IS NOT NULL") > 0 && versions() === 1, 30_000, 'the story captured with its photograph');
    const first = scalar<string>(ws.db, "SELECT sha256 FROM requisites WHERE url LIKE '%/photo.jpg' AND sha256 IS NOT NULL ORDER BY id LIMIT 1");

    // The CDN serves the same photograph as WebP at a lower quality: new bytes, the same picture.
    photo = { bytes: await webp(11, 50), type: 'image/webp' };
    const looked = photoRequests.length;
    const checked = checks();
    await waitFor(() => photoRequests.length >= looked + 3 && checks() >= checked + 3, 30_000, 'three revisits that fetched the re-encoded photograph');
    assert.equal(versions(), 1, 'the same picture re-encoded is no edit');

    // A new photograph at the same URL.
    photo = { bytes: await jpeg(12, 85), type: 'image/jpeg' };
    await waitFor(() => versions() === 2, 30_000, 'a version for the new photograph');
    const [version] = query<{ summary: string; change: string; diff: string; hash: string; snapshot_id: number }>(ws.db, 'SELECT summary, change, diff, hash, snapshot_id FROM versions WHERE n = 2');
    assert.ok(version);
    assert.deepEqual(JSON.parse(version.change), ['picture-changed']);
    assert.match(version.summary, /1 picture changed at the same address: photo\.jpg \(320×240 → 320×240\)/);
    const diff = JSON.parse(version.diff) as { pictures: Array<{ url: string; before: { sha256: string }; after: { sha256: string } }> };
    assert.equal(diff.pictures.length, 1);
    assert.equal(diff.pictures[0]!.url, `${origin}/photo.jpg`);
    assert.equal(diff.pictures[0]!.before.sha256, first, 'before: the photograph version 1 kept');
    assert.notEqual(diff.pictures[0]!.after.sha256, first);
    for (const side of [diff.pictures[0]!.before, diff.pictures[0]!.after]) assert.equal(scalar<number>(ws.db, 'SELECT COUNT(*) FROM blobs WHERE sha256 = ?', side.sha256), 1, 'both pictures are kept');
    assert.equal(version.hash, scalar<string>(ws.db, 'SELECT hash FROM versions WHERE n = 1'), 'the text is the same object');
    assert.equal(scalar<string>(ws.db, "SELECT sha256 FROM requisites WHERE snapshot_id = ? AND url LIKE '%/photo.jpg'", version.snapshot_id), diff.pictures[0]!.after.sha256, 'version 2\'s capture lists the new picture');

    // Looked at again, the new photograph is what version 2 holds: no third version.
    const again = photoRequests.length;
    await waitFor(() => photoRequests.length >= again + 3, 30_000, 'three more looks at the photograph');
    assert.equal(versions(), 2);
    assert.ok(photoRequests.slice(looked).includes('conditional'), 'the photograph is asked for conditionally');
  } finally {
    daemon.kill('SIGINT');
    const result = await finished(daemon);
    assert.equal(result.code, 0, result.stderr);
  }
});

test('each version lists its pictures, and the diff shows both pictures side by side from the archive', async () => {
  const digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  const shown = await forest([...ws.args, 'show', '1', '1', '--json']);
  assert.equal(shown.code, 0, shown.stderr);
  const v1 = JSON.parse(shown.stdout) as { pictures: Array<{ url: string; sha256: string }> };
  const { server: web, base } = await startServe(ws.args);
  try {
    const v2 = await (await fetch(`${base}/api/v1/articles/1/versions/2`)).json() as { pictures: Array<{ url: string; sha256: string }> };
    assert.equal(v1.pictures.length, 1);
    assert.equal(v2.pictures.length, 1);
    assert.notEqual(v1.pictures[0]!.sha256, v2.pictures[0]!.sha256);
    const page = await (await fetch(`${base}/articles/1/diff?from=1&to=2`)).text();
    assert.match(page, /picture-changed/);
    const sources = [...page.matchAll(/<img src="([^"]+)" alt="the picture of version (\d)"/g)].map((match) => ({ src: match[1]!.replace(/&amp;/g, '&'), n: Number(match[2]) }));
    assert.deepEqual(sources.map((source) => source.n), [1, 2], 'both pictures, side by side');
    for (const source of sources) {
      assert.match(source.src, /\/memento\/\d{14}im_\//);
      const served = await fetch(source.src);
      assert.equal(served.status, 200);
      assert.equal(digest(Buffer.from(await served.arrayBuffer())), (source.n === 1 ? v1 : v2).pictures[0]!.sha256, `version ${source.n}'s picture is served as kept`);
    }
  } finally {
    web.kill('SIGINT');
    await finished(web);
  }
});
