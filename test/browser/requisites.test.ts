import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser.js';
import { finished, startForest, startServe, waitFor, type ForestProcess } from '../helpers/cli.js';
import { listenOn } from '../helpers/listen.js';
import { png } from '../helpers/png.js';
import { query, scalar, workspace, type Workspace } from '../helpers/setup.js';

/*
 * Issue #67: pages as their readers saw them. Two loopback sites and a CDN host they share
 * serve pages with images in every form a page gives them (src, srcset, picture, a lazy
 * data-src, a CSS background), a stylesheet that @imports another, with a url() background and
 * an @font-face; the daemon captures them with their requisites; then every host answers 404,
 * and the capture view, in Chromium, shows every image decoded and the stylesheet applied,
 * with no request reaching the sites. A third page holds what must not be kept: an image at a
 * refused address, an "image" that is HTML, and one far past the byte cap.
 */

interface Host { server: Server; origin: string; requests: string[] }

let gone = false;
const hosts: Record<'a' | 'b' | 'cdn' | 'refused', Host> = {} as never;
// At the file's top: a temp folder made inside a hook would be removed when the hook ends.
const ws: Workspace = workspace([], {
  // 127.0.68.1 stands for a private network the archive must not reach.
  http: { allowPrivateNetworks: ['127.0.67.0/24'] },
  capture: { retryDelay: '1s', requisites: { maxBytes: '1MB' } },
  revisit: { enabled: false },
});
let browser: Browser;

type Route = (request: IncomingMessage, response: ServerResponse) => void;
const send = (type: string, body: string | Buffer): Route => (_request, response) => void response.writeHead(200, { 'content-type': type }).end(body);

async function host(address: string, routes: () => Record<string, Route>): Promise<Host> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url ?? '/');
    const route = gone ? undefined : routes()[new URL(request.url ?? '/', 'http://x').pathname];
    if (!route) return void response.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>gone</body></html>');
    route(request, response);
  });
  return { server, origin: await listenOn(server, address), requests };
}

const feed = (origin: string, paths: string[]) => `<?xml version="1.0"?><rss version="2.0"><channel><title>Site</title><link>${origin}/</link>
  ${paths.map((path, i) => `<item><guid>${origin}${path}</guid><title>Story ${i}</title><link>${origin}${path}</link><pubDate>Tue, 01 Dec 2026 0${i}:00:00 GMT</pubDate></item>`).join('')}</channel></rss>`;

const page = (title: string, body: string, cdn: string) => `<!doctype html><html><head><title>${title}</title>
  <link rel="stylesheet" href="${cdn}/shared.css"><link rel="icon" href="${cdn}/logo.png"></head><body><h1>${title}</h1>${body}</body></html>`;

before(async () => {
  hosts.cdn = await host('127.0.67.3', () => ({
    '/shared.css': send('text/css', '@import url(/theme.css);\n@font-face { font-family: Archive; src: url(/font.woff2) format("woff2"); }\nbody { font-family: Archive, serif; }'),
    '/theme.css': send('text/css', 'body { background-color: rgb(1, 2, 3); } .hero { width: 20px; height: 20px; background-image: url(/hero.png); }'),
    '/font.woff2': send('font/woff2', Buffer.concat([Buffer.from('wOF2', 'latin1'), Buffer.alloc(60)])),
    '/hero.png': send('image/png', png(20, 20, [200, 10, 10])),
    '/logo.png': send('image/png', png(8, 8, [0, 0, 200])),
    '/photo-400.png': send('image/png', png(40, 30, [10, 200, 10])),
    '/photo-800.png': send('image/png', png(80, 60, [10, 200, 10])),
    '/chart.png': send('image/png', png(30, 30, [9, 9, 9])),
  }));
  hosts.refused = await host('127.0.68.1', () => ({ '/private.png': send('image/png', png(4, 4, [1, 1, 1])) }));
  hosts.a = await host('127.0.67.1', () => ({
    '/feed.xml': send('application/rss+xml', feed(hosts.a.origin, ['/one.html', '/bad.html'])),
    '/one.html': send('text/html; charset=utf-8', page('One', `<div class="hero"></div>
      <img id="srcset" src="${hosts.cdn.origin}/photo-400.png" srcset="${hosts.cdn.origin}/photo-400.png 400w, ${hosts.cdn.origin}/photo-800.png 800w" sizes="400px">
      <picture><source srcset="/local.png" type="image/png"><img id="picture" src="${hosts.cdn.origin}/chart.png"></picture>
      <img id="lazy" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="/lazy.png" class="lazyload">`, hosts.cdn.origin)),
    '/local.png': send('image/png', png(12, 12, [120, 120, 0])),
    '/lazy.png': send('image/png', png(16, 16, [0, 120, 120])),
    '/bad.html': send('text/html', page('Bad', `<img src="${hosts.refused.origin}/private.png"><img src="/login.png"><img src="/huge.png">`, hosts.cdn.origin)),
    // An "image" that is the site's login page, and one of 50 MB.
    '/login.png': send('image/png', '<!doctype html><html><body>please log in</body></html>'),
    '/huge.png': (_request, response) => {
      response.writeHead(200, { 'content-type': 'image/png', 'content-length': String(50 * 1024 * 1024) });
      const first = png(1, 1, [0, 0, 0]);
      response.write(first);
      let left = 50 * 1024 * 1024 - first.length;
      const block = Buffer.alloc(64 * 1024);
      const more = () => {
        while (left > 0) {
          left -= block.length;
          if (!response.write(block)) return void response.once('drain', more);
        }
        response.end();
      };
      response.on('error', () => undefined);
      more();
    },
  }));
  hosts.b = await host('127.0.67.2', () => ({
    '/feed.xml': send('application/rss+xml', feed(hosts.b.origin, ['/two.html'])),
    '/two.html': send('text/html', page('Two', `<img id="logo" src="${hosts.cdn.origin}/logo.png">`, hosts.cdn.origin)),
  }));
  writeFileSync(ws.feeds, stringify([{ url: `${hosts.a.origin}/feed.xml` }, { url: `${hosts.b.origin}/feed.xml` }]));
  const daemon: ForestProcess = startForest([...ws.args, 'run']);
  try {
    await waitFor(() => scalar<number>(ws.db, 'SELECT COUNT(DISTINCT snapshot_id) FROM requisites') === 3, 60_000, 'the three pages captured with their requisites');
  } finally {
    daemon.kill('SIGINT');
    const result = await finished(daemon);
    assert.equal(result.code, 0, result.stderr);
  }
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  for (const each of Object.values(hosts)) await new Promise((resolve) => each?.server.close(resolve));
});

const requisite = (url: string) => query<{ snapshot_id: number; sha256: string | null; error: string | null; content_type: string | null; kind: string }>(ws.db, 'SELECT * FROM requisites WHERE url = ?', url);

test('a capture replays whole from the archive: every image decoded, the stylesheet applied, and no request to the sites', async () => {
  gone = true;
  for (const each of Object.values(hosts)) each.requests.length = 0;
  const { server, base } = await startServe(ws.args);
  try {
    const page = await browser.newPage();
    const asked: string[] = [];
    page.on('request', (request) => asked.push(request.url()));
    const stamp = scalar<string>(ws.db, "SELECT fetched_at FROM snapshots WHERE url LIKE '%/one.html'").replace(/[-:T]/g, '').slice(0, 14);
    await page.goto(`${base}/captures/${stamp}/${hosts.a.origin}/one.html`, { waitUntil: 'load' });
    const frame = page.frames().find((each) => each.url().includes('/memento/'));
    assert.ok(frame, 'the capture view frames the capture');
    await frame.waitForLoadState('load');
    const images = await frame.evaluate(() => [...document.images].map((image) => ({ id: image.id, width: image.naturalWidth, complete: image.complete })));
    assert.equal(images.length, 3);
    for (const image of images) assert.ok(image.complete && image.width > 0, `image ${image.id} is decoded from the archive (${JSON.stringify(image)})`);
    const style = await frame.evaluate(() => ({
      background: getComputedStyle(document.body).backgroundColor,
      hero: getComputedStyle(document.querySelector('.hero')!).backgroundImage,
      heroWidth: (document.querySelector('.hero') as HTMLElement).offsetWidth,
    }));
    assert.equal(style.background, 'rgb(1, 2, 3)', 'the stylesheet the shared sheet @imports is applied');
    assert.match(style.hero, /\/memento\/\d{14}im_\/http:\/\/127\.0\.67\.3:\d+\/hero\.png/, 'a CSS background comes from the archive');
    assert.equal(style.heroWidth, 20);
    const hero = await frame.evaluate(async (url) => {
      const image = new Image();
      image.src = url;
      await image.decode();
      return image.naturalWidth;
    }, /url\("?([^")]+)"?\)/.exec(style.hero)![1]!);
    assert.equal(hero, 20, 'the background image decodes');
    assert.deepEqual(Object.fromEntries(Object.entries(hosts).map(([name, each]) => [name, each.requests])), { cdn: [], refused: [], a: [], b: [] }, 'no request reached a site');
    assert.ok(asked.every((url) => /^http:\/\/(127\.0\.0\.1|localhost):\d+\//.test(url) || url.startsWith('data:')), `the browser asked only the archive: ${asked.filter((url) => !/^http:\/\/(127\.0\.0\.1|localhost)/.test(url)).join(' ')}`);
  } finally {
    server.kill('SIGINT');
    await finished(server);
    gone = false;
  }
});

test('a stylesheet shared by two sites is stored once, and listed with every capture that used it', () => {
  const shared = requisite(`${hosts.cdn.origin}/shared.css`);
  assert.equal(shared.length, 3, 'listed with each of the three captures');
  assert.equal(new Set(shared.map((row) => row.sha256)).size, 1);
  assert.equal(scalar<number>(ws.db, 'SELECT COUNT(*) FROM blobs WHERE sha256 = ?', shared[0]!.sha256), 1, 'its bytes once');
  assert.equal(shared[0]!.content_type, 'text/css');
  const font = requisite(`${hosts.cdn.origin}/font.woff2`);
  assert.ok(font.length > 0 && font.every((row) => row.kind === 'font' && row.sha256 !== null), 'the @font-face font is kept, as a font');
  assert.ok(requisite(`${hosts.cdn.origin}/theme.css`).every((row) => row.kind === 'style' && row.sha256 !== null), 'the @imported sheet is kept');
});

test('what must not be kept is not: a refused address, an "image" that is HTML, an image past the byte cap — and the page is kept all the same', () => {
  const [refused] = requisite(`${hosts.refused.origin}/private.png`);
  assert.ok(refused && refused.sha256 === null && /blocked/.test(refused.error ?? ''), `refused: ${JSON.stringify(refused)}`);
  assert.equal(hosts.refused.requests.length, 0, 'the refused host was never connected to');
  const [login] = requisite(`${hosts.a.origin}/login.png`);
  assert.ok(login && login.sha256 === null && login.error === 'not an image: text/html', `login: ${JSON.stringify(login)}`);
  const [huge] = requisite(`${hosts.a.origin}/huge.png`);
  assert.ok(huge && huge.sha256 === null && /larger than|too large|limit/.test(huge.error ?? ''), `huge: ${JSON.stringify(huge)}`);
  assert.equal(scalar<number>(ws.db, "SELECT COUNT(*) FROM snapshots WHERE url LIKE '%/bad.html' AND sha256 IS NOT NULL"), 1, 'the page itself is kept');
  assert.ok(scalar<number>(ws.db, 'SELECT MAX(size) FROM blobs') < 2 * 1024 * 1024, 'nothing near 50 MB was stored');
});
