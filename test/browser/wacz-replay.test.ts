import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { encodeRequisite, loadCodec } from '../../src/archive/codec.js';
import { recordRequisites } from '../../src/archive/rules/requisites.js';
import { runOn } from '../../src/archive/sqlite/sql.js';
import { png } from '../helpers/png.js';
import { launchChromium } from '../helpers/browser.js';
import { forest } from '../helpers/cli.js';
import { smallArchive } from '../helpers/small-archive.js';
import { tempDir } from '../helpers/temp.js';

/*
 * Issue #53, item 3: the WACZ `forest export` writes, replayed by ReplayWeb.page (the
 * `replaywebpage` package: its ui.js, and its service worker at replay/sw.js, as its embedding
 * guide lays them out) on loopback in Debian's Chromium. The archived article's text must appear
 * in the replayed page: the WARC, the CDXJ index and the package's layout are read by a replay
 * tool that is not ours.
 */

// The package exports its index.html beside ui.js and sw.js (its package.json is not exported).
const replayDir = dirname(createRequire(import.meta.url).resolve('replaywebpage/index.html'));
const dir = tempDir();
const LOGO = png(24, 12, [30, 60, 90]);
const wacz = join(dir, 'archive.wacz');
let server: Server;
let origin = '';
let browser: Browser;

/** The files the embedding page asks for, with byte ranges (ReplayWeb.page reads a WACZ by ranges). */
const FILES: Record<string, { path: () => string; type: string }> = {
  '/ui.js': { path: () => join(replayDir, 'ui.js'), type: 'application/javascript' },
  '/replay/sw.js': { path: () => join(replayDir, 'sw.js'), type: 'application/javascript' },
  '/archive.wacz': { path: () => wacz, type: 'application/wacz' },
};

before(async () => {
  await loadCodec();
  // Every page shows the site's logo, kept as each capture's requisite (issue #67).
  const store = smallArchive(join(dir, 'archive.db'), ['One', 'Two'], { everyPageExtra: '<img id="logo" src="https://cdn.example/logo.png" alt="">' });
  const snapshots = store.db.prepare('SELECT id, fetched_at FROM snapshots').all() as Array<{ id: number; fetched_at: string }>;
  for (const snapshot of snapshots) {
    runOn(store.db, recordRequisites(snapshot.id, [{
      url: 'https://cdn.example/logo.png', kind: 'image', via: 'img src', fetchedAt: new Date(Date.parse(snapshot.fetched_at) + 1000), status: 200,
      contentType: 'image/png', body: encodeRequisite(LOGO, false), etag: null, lastModified: null, error: null,
    }]));
  }
  await store.close();
  const exported = await forest(['export', '--format', 'wacz', '--out', wacz, '--db', join(dir, 'archive.db')]);
  assert.equal(exported.code, 0, exported.stderr);
  server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>replay</title><script src="/ui.js"></script></head><body>
<replay-web-page source="/archive.wacz" url="https://a.example/1" embed="replayonly" style="display:block;height:600px"></replay-web-page></body></html>`);
      return;
    }
    const file = FILES[path];
    if (!file || !existsSync(file.path())) {
      response.writeHead(404).end();
      return;
    }
    const body = readFileSync(file.path());
    const range = /^bytes=(\d*)-(\d*)$/.exec(request.headers.range ?? '');
    if (!range) {
      response.writeHead(200, { 'content-type': file.type, 'accept-ranges': 'bytes', 'content-length': body.length }).end(request.method === 'HEAD' ? undefined : body);
      return;
    }
    // bytes=a-b, bytes=a- and the suffix form bytes=-n (RFC 9110 §14.1.2).
    const size = statSync(file.path()).size;
    const start = range[1] === '' ? Math.max(0, size - Number(range[2])) : Number(range[1]);
    const end = range[1] === '' || range[2] === '' ? size - 1 : Math.min(Number(range[2]), size - 1);
    response.writeHead(206, { 'content-type': file.type, 'accept-ranges': 'bytes', 'content-range': `bytes ${start}-${end}/${size}`, 'content-length': end - start + 1 })
      .end(request.method === 'HEAD' ? undefined : body.subarray(start, end + 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  // A service worker needs a secure context: http://localhost is one.
  origin = `http://localhost:${typeof address === 'object' && address ? address.port : 0}`;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => server.close(resolve));
});

test('ReplayWeb.page replays the exported WACZ: the archived article\'s text is in the replayed page, and its image decoded from the WACZ', async () => {
  const page = await browser.newPage();
  try {
    await page.goto(`${origin}/`);
    // On a busy machine the embed's frame can ask for /replay/ before the service worker it just
    // registered controls that scope (the server answers 404 there); a reload, as a reader would
    // make, finds the worker installed. The WACZ is read the same either way.
    const deadline = Date.now() + 90_000;
    let reloadAt = Date.now() + 20_000;
    let replayed: string | null = null;
    while (replayed === null && Date.now() < deadline) {
      if (Date.now() > reloadAt) {
        await page.reload();
        reloadAt = Date.now() + 20_000;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const frame of page.frames()) {
        const text = await frame.evaluate(() => document.body?.innerText ?? '').catch(() => '');
        // Version 2 of article 1 (the latest capture); its first paragraph is the same in both.
        if (/The mayor said yes/.test(text) && frame.url().includes('/https://a.example/1')) {
          // The page's image, from the WACZ too: decoded at its own size once it has loaded.
          const logo = await frame.evaluate(async () => {
            const image = document.getElementById('logo') as HTMLImageElement | null;
            if (!image) return 0;
            await image.decode().catch(() => undefined);
            return image.naturalWidth;
          }).catch(() => 0);
          if (logo === 24) replayed = frame.url();
        }
      }
    }
    assert.ok(replayed, `the article's text and its image in a replayed frame (frames: ${page.frames().map((frame) => frame.url()).join(' ')})`);
    // The replay came from the WACZ's WARC: a capture timestamp of the archive, not a live fetch.
    assert.match(replayed, /\/2026110200\d{4}mp_\/https:\/\/a\.example\/1$/);
  } finally {
    await page.close();
  }
});
