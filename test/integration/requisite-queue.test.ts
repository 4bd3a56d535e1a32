import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { after, test } from 'node:test';
import { finished, runUntil, startForest, waitFor } from '../helpers/cli.js';
import { listenOn } from '../helpers/listen.js';
import { scalar, workspace } from '../helpers/setup.js';

// Captures waiting for their requisites are the archive's, not the daemon's memory: a daemon
// killed while its pages' pictures were still to be fetched left those pages without them, and
// nothing said so (at 100,000 feeds up to 2,000 captures wait). The next start fetches them.

const PAGES = 4;
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

/** The pictures' host answers nothing until released: the daemon is killed while every page waits for its picture. */
const held: ServerResponse[] = [];
let releasePictures = false;
const pictures = createServer((_request, response) => {
  if (releasePictures) response.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
  else held.push(response);
});
let pictureOrigin = '';
const site = createServer((request, response) => {
  const origin = `http://${request.headers.host}`;
  if (request.url === '/feed') {
    const items = Array.from({ length: PAGES }, (_, n) => `<item><guid>story-${n}</guid><title>Story ${n}</title><link>${origin}/${n}.html</link></item>`).join('');
    response.writeHead(200, { 'content-type': 'application/rss+xml' }).end(`<?xml version="1.0"?><rss version="2.0"><channel><title>Site</title><link>${origin}/</link>${items}</channel></rss>`);
    return;
  }
  const n = (request.url ?? '').replace(/\D/g, '');
  response.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>Story ${n}</title></head><body><article><h1>Story ${n}</h1>
<p>The harbour committee met on ${n} November and approved the ferry timetable, the budget for the bridge repairs and a study of the tunnel.</p>
<img src="${pictureOrigin}/photo-${n}.png" alt=""></article></body></html>`);
});
after(() => {
  site.close();
  pictures.closeAllConnections();
  pictures.close();
});

const count = (db: string, sql: string) => scalar<number>(db, sql);

test('a daemon killed while its captures wait for their requisites leaves them queued in the archive; the next start fetches them', async () => {
  const origin = await listenOn(site, '127.0.0.1');
  pictureOrigin = await listenOn(pictures, '127.0.0.2');
  const ws = workspace([{ url: `${origin}/feed` }], { capture: { retryDelay: '1s', requisites: { timeout: '60s' } } });

  const first = startForest([...ws.args, 'run']);
  try {
    await waitFor(() => existsSync(ws.db) && count(ws.db, 'SELECT COUNT(*) FROM snapshots') === PAGES && held.length > 0, 30_000, 'every page captured, a picture asked for');
  } finally {
    first.kill('SIGKILL');
  }
  await finished(first);
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM requisites'), 0, 'no picture came before the kill');
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM requisite_queue'), PAGES, 'every capture still waits for its requisites, in the archive');

  for (const response of held.splice(0)) response.destroy();
  releasePictures = true;
  const second = await runUntil(ws.args, () => count(ws.db, 'SELECT COUNT(*) FROM requisites WHERE status = 200') === PAGES, 30_000, 'every page\'s picture after the restart');
  assert.equal(second.code, 0, second.stderr);
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM snapshots'), PAGES, 'no page captured again');
  assert.equal(count(ws.db, `SELECT COUNT(*) FROM snapshots WHERE id IN (SELECT snapshot_id FROM requisites WHERE url LIKE '%/photo-%.png' AND sha256 IS NOT NULL)`), PAGES,
    'each capture has its own picture');
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM requisite_queue'), 0, 'and the queue is empty');
});
