import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, test } from 'node:test';
import { encodeBody, loadCodec } from '../../src/archive/codec.js';
import { syncSubscriptions } from '../../src/archive/rules/feeds.js';
import { recordCapture } from '../../src/archive/rules/captures.js';
import { upsertItems } from '../../src/archive/rules/items.js';
import { openDatabase } from '../../src/archive/sqlite/database.js';
import { runOn } from '../../src/archive/sqlite/sql.js';
import { SqliteStore } from '../../src/archive/sqlite/store.js';
import { loadSettings } from '../../src/config/settings.js';
import { createPool, type CpuPool } from '../../src/daemon/pool.js';
import { RequisiteLane } from '../../src/daemon/requisites.js';
import { Fetcher, type FetchResult } from '../../src/net/fetcher.js';
import type { DiscoverTask } from '../../src/daemon/tasks.js';
import { createLogger } from '../../src/util/logger.js';
import { waitFor } from '../helpers/cli.js';
import { listenOn } from '../helpers/listen.js';

// The requisite lane hands each capture's page to the pool as it is added: a capture waits for its
// reading in the pool's queue, not in one of the lane's few fetching places. When the reading
// waited in a fetching place, a busy pool (the first day's extractions ahead of it) slowed the
// lane below the capture rate and most captures' requisites were given up (bench:scale, 10,000
// feeds at 32 slots: 8,516 of 11,276).

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const server = createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'image/png' });
  response.end(PNG);
});
after(() => server.close());
let listening: Promise<string> | null = null;
const serverOrigin = () => (listening ??= listenOn(server, '127.0.0.1'));

test('every capture added to the lane goes to the pool at once, whatever its fetching places; each then gets its requisites', async () => {
  await loadCodec();
  const origin = await serverOrigin();
  const db = openDatabase(':memory:');
  runOn(db, syncSubscriptions([{ url: `${origin}/feed`, tags: [], enabled: true }]));
  const pages: FetchResult[] = [1, 2, 3].map((n) => ({
    url: `${origin}/${n}.html`, finalUrl: `${origin}/${n}.html`, status: 200, headers: {}, contentType: 'text/html', redirects: [], permanentUrl: null,
    notModified: false, retryAfterMs: null, fetchedAt: new Date(), durationMs: 1, body: Buffer.from(`<html><body><p>story ${n}</p><img src="/photo-${n}.png"></body></html>`),
  }));
  const snapshots = pages.map((page, i) => {
    runOn(db, upsertItems(1, [{ guid: `g${i}`, link: page.url, origLink: null, title: `story ${i}`, summary: null, content: null, author: null, categories: [], enclosures: [], published: null, updated: null }], page.fetchedAt, true));
    const itemId = db.prepare('SELECT id FROM items WHERE guid = ?').pluck().get(`g${i}`) as number;
    return runOn(db, recordCapture(itemId, page, encodeBody(page.body)));
  });

  // The pool's readings of pages are held until released: a pool busy with other work.
  const inline = createPool(0);
  const read: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const pool: CpuPool = {
    ...inline,
    discover: async (task: DiscoverTask) => {
      if (task.kind === 'page') read.push(task.url);
      await released;
      return inline.discover(task);
    },
  };
  const settings = loadSettings({ env: {} });
  const fetcher = new Fetcher({ ...settings.http, perHostDelay: 0, allowPrivateNetworks: ['127.0.0.0/8'] });
  const context = {
    store: new SqliteStore(db, ':memory:'), pool, settings, log: createLogger({ level: 'silent', pretty: false }), fetcher, requisiteFetcher: fetcher,
  };
  const lane = new RequisiteLane(context, { captures: 1, holdCapturesAt: 10, waiting: 10, refillEveryMs: 60_000 });
  pages.forEach((page, i) => lane.add(snapshots[i]!, page));

  assert.deepEqual(read, pages.map((page) => page.finalUrl), 'each page handed to the pool when added, not when a fetching place frees');
  release();
  await waitFor(() => lane.pending === 0, 10_000, 'the three captures\' requisites');
  const listed = db.prepare('SELECT snapshot_id, url FROM requisites ORDER BY snapshot_id').all() as Array<{ snapshot_id: number; url: string }>;
  assert.deepEqual(listed.map((row) => [row.snapshot_id, row.url]), snapshots.map((id, i) => [id, `${origin}/photo-${i + 1}.png`]));
  await lane.stop(1000);
  db.close();
});

test('captures past the lane\'s `waiting` wait in the archive\'s queue alone, and are taken up, each with its requisites, when the lane has room', async () => {
  await loadCodec();
  const origin = await serverOrigin();
  const db = openDatabase(':memory:');
  runOn(db, syncSubscriptions([{ url: `${origin}/feed`, tags: [], enabled: true }]));
  const pages: FetchResult[] = [1, 2, 3, 4].map((n) => ({
    url: `${origin}/${n}.html`, finalUrl: `${origin}/${n}.html`, status: 200, headers: {}, contentType: 'text/html', redirects: [], permanentUrl: null,
    notModified: false, retryAfterMs: null, fetchedAt: new Date(), durationMs: 1, body: Buffer.from(`<html><body><p>story ${n}</p><img src="/photo-${n}.png"></body></html>`),
  }));
  const snapshots = pages.map((page, i) => {
    runOn(db, upsertItems(1, [{ guid: `g${i}`, link: page.url, origLink: null, title: `story ${i}`, summary: null, content: null, author: null, categories: [], enclosures: [], published: null, updated: null }], page.fetchedAt, true));
    const itemId = db.prepare('SELECT id FROM items WHERE guid = ?').pluck().get(`g${i}`) as number;
    return runOn(db, recordCapture(itemId, page, encodeBody(page.body), true));
  });
  const pool = createPool(0);
  const read: string[] = [];
  const settings = loadSettings({ env: {} });
  const fetcher = new Fetcher({ ...settings.http, perHostDelay: 0, allowPrivateNetworks: ['127.0.0.0/8'] });
  const context = {
    store: new SqliteStore(db, ':memory:'), settings, log: createLogger({ level: 'silent', pretty: false }), fetcher, requisiteFetcher: fetcher,
    pool: { ...pool, discover: (task: DiscoverTask) => (read.push(`${task.kind} ${task.url}`), pool.discover(task)) },
  };
  // One waits in memory at a time (one more in flight): the rest wait in the archive alone.
  const lane = new RequisiteLane(context, { captures: 1, holdCapturesAt: 10, waiting: 1, refillEveryMs: 60_000 });
  pages.forEach((page, i) => lane.add(snapshots[i]!, page));
  await waitFor(() => (db.prepare('SELECT COUNT(*) FROM requisite_queue').pluck().get() as number) === 0 && lane.pending === 0, 10_000, 'every capture\'s requisites');
  const listed = db.prepare('SELECT snapshot_id, url FROM requisites ORDER BY snapshot_id').all() as Array<{ snapshot_id: number; url: string }>;
  assert.deepEqual(listed.map((row) => [row.snapshot_id, row.url]), snapshots.map((id, i) => [id, `${origin}/photo-${i + 1}.png`]));
  assert.equal(new Set(read.map((task) => task.split(' ')[1])).size, 4, 'each page read');
  assert.equal(read.length, 4, 'once: as it was added, or read back from the archive');
  assert.ok(read.filter((task) => task.startsWith('stored ')).length >= 2, `those past the lane's room read back from the archive (${read.join(', ')})`);
  await lane.stop(1000);
  db.close();
});
