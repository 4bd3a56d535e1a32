import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { after, test } from 'node:test';
import { stringify } from 'yaml';
import { finished, startForest, waitFor } from '../helpers/cli.js';
import { listenOn } from '../helpers/listen.js';
import { png } from '../helpers/png.js';
import { query, scalar, workspace } from '../helpers/setup.js';

/*
 * Issue #67, item 8: a feed chooses its own requisites in the subscription list. Three feeds of
 * one site, each page with a stylesheet and an image: one keeps the settings' kinds (images and
 * styles), one asks for styles alone, one for none.
 */

const ws = workspace([], { revisit: { enabled: false } });
const server = createServer((request, response) => {
  const path = new URL(request.url ?? '/', 'http://x').pathname;
  const feed = /^\/(\w+)\.xml$/.exec(path)?.[1];
  if (feed) {
    return void response.writeHead(200, { 'content-type': 'application/rss+xml' }).end(`<?xml version="1.0"?><rss version="2.0"><channel><title>${feed}</title><link>${origin}/</link>
      <item><guid>${origin}/${feed}.html</guid><title>The ${feed} story</title><link>${origin}/${feed}.html</link></item></channel></rss>`);
  }
  if (path.endsWith('.css')) return void response.writeHead(200, { 'content-type': 'text/css' }).end('body { margin: 0; }');
  if (path.endsWith('.png')) return void response.writeHead(200, { 'content-type': 'image/png' }).end(png(4, 4, [1, 2, 3]));
  if (path.endsWith('.html')) {
    return void response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><head><title>A story</title><link rel="stylesheet" href="/site.css"></head>
      <body><article><h1>A story</h1><p>A paragraph of the story, long enough to be one, and then a little more of it.</p><img src="/photo.png"></article></body></html>`);
  }
  response.writeHead(404).end();
});
let origin = '';

after(() => new Promise((resolve) => server.close(resolve)));

test('a feed\'s `requisites` in the subscription list replaces capture.requisites.kinds for its pages', async () => {
  origin = await listenOn(server, '127.0.0.1');
  writeFileSync(ws.feeds, stringify([{ url: `${origin}/plain.xml` }, { url: `${origin}/styled.xml`, requisites: ['styles'] }, { url: `${origin}/bare.xml`, requisites: [] }]));
  const daemon = startForest([...ws.args, 'run']);
  try {
    await waitFor(() => scalar<number>(ws.db, 'SELECT COUNT(*) FROM extractions') === 3 && scalar<number>(ws.db, 'SELECT COUNT(DISTINCT snapshot_id) FROM requisites') === 2, 30_000, 'three pages captured, two with requisites');
  } finally {
    daemon.kill('SIGINT');
    const result = await finished(daemon);
    assert.equal(result.code, 0, result.stderr);
  }
  const kinds = (feed: string) => query<{ kind: string }>(ws.db, `SELECT requisites.kind FROM requisites JOIN snapshots ON snapshots.id = requisites.snapshot_id
    WHERE snapshots.url LIKE ? ORDER BY requisites.kind`, `%/${feed}.html`).map((row) => row.kind);
  assert.deepEqual(kinds('plain'), ['image', 'style'], 'the settings\' kinds');
  assert.deepEqual(kinds('styled'), ['style'], 'styles alone');
  assert.deepEqual(kinds('bare'), [], 'none');
  assert.equal(scalar<string>(ws.db, 'SELECT requisites FROM feeds WHERE url LIKE ?', '%/styled.xml'), '["styles"]');
  assert.equal(scalar<string | null>(ws.db, 'SELECT requisites FROM feeds WHERE url LIKE ?', '%/plain.xml'), null);
});
