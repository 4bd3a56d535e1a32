import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, test } from 'node:test';
import { loadCodec, type StoredBody } from '../../src/archive/codec.js';
import type { RequisiteHistory, RequisiteRecord } from '../../src/archive/store.js';
import { Fetcher } from '../../src/net/fetcher.js';
import { requisitesOfHtml } from '../../src/requisites/discover.js';
import { fetchRequisites, type RequisiteSettings } from '../../src/requisites/fetch.js';
import { listenOn } from '../helpers/listen.js';

/*
 * A requisite kept a moment ago is not asked for again (capture.requisites.recheckAfter): a
 * site's stylesheet and a CDN's fonts cost one request per URL per while, not one per page —
 * what a browser's cache does. Past that, a conditional GET; a 304 lists the same bytes.
 */

const requests: Array<{ path: string; conditional: boolean }> = [];
const server = createServer((request, response) => {
  const path = request.url ?? '/';
  requests.push({ path, conditional: request.headers['if-none-match'] !== undefined });
  if (request.headers['if-none-match'] === '"v1"') return void response.writeHead(304, { etag: '"v1"' }).end();
  if (path === '/site.css') return void response.writeHead(200, { 'content-type': 'text/css', etag: '"v1"' }).end('body { background: url(/paper.gif) }');
  if (path === '/paper.gif') return void response.writeHead(200, { 'content-type': 'image/gif', etag: '"v1"' }).end(Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1'));
  if (path === '/down.gif') return void response.writeHead(500).end();
  response.writeHead(404).end();
});
after(() => new Promise((resolve) => server.close(resolve)));

/** A page at `url` with what its HTML names (the daemon reads it in its pool). */
const named = (url: string, html: string) => ({ url, requisites: requisitesOfHtml(html, url) });

/** What the archive would hold: each URL's last fetch and last kept fetch, and the bytes by digest. */
function memory() {
  const history = new Map<string, RequisiteHistory>();
  const bodies = new Map<string, StoredBody>();
  /** The URLs of each history read, in order. */
  const reads: string[][] = [];
  return {
    reads,
    source: {
      requisiteHistories: async (urls: readonly string[]) => {
        reads.push([...urls]);
        return new Map(urls.flatMap((url) => (history.has(url) ? [[url, history.get(url)!] as const] : [])));
      },
      storedBody: async (sha256: string) => bodies.get(sha256) ?? null },
    keep(records: RequisiteRecord[]) {
      for (const record of records) {
        const last = { fetchedAt: record.fetchedAt.toISOString(), status: record.status, contentType: record.contentType, error: record.error, kept: record.body !== null };
        if (record.body === null) {
          history.set(record.url, { last, kept: history.get(record.url)?.kept ?? null });
          continue;
        }
        if ('data' in record.body) bodies.set(record.body.sha256, { encoding: record.body.encoding, data: record.body.data });
        history.set(record.url, { last, kept: { ...last, sha256: record.body.sha256, etag: record.etag, lastModified: record.lastModified } });
      }
    },
  };
}

test('a requisite kept less than recheckAfter ago is listed without a request; past it, a conditional GET', async () => {
  await loadCodec();
  const origin = await listenOn(server, '127.0.0.1');
  const fetcher = new Fetcher({ userAgent: 'test', connectTimeout: 2000, timeout: 5000, maxBodySize: 1e6, maxRedirects: 3, concurrency: 4, perHostDelay: 0, allowPrivateNetworks: ['127.0.0.0/8'] });
  const archive = memory();
  const settings: RequisiteSettings = { kinds: ['images', 'styles'], maxBytes: 1e6, maxBytesPerCapture: 1e7, cssDepth: 2, timeout: 10_000, recheckAfter: 60_000, perHostDelay: 0 };
  const page = named(`${origin}/story.html`, '<link rel="stylesheet" href="/site.css"><img src="/gone.png"><img src="/down.gif">');
  try {
    const first = await fetchRequisites({ page: fetcher, requisites: fetcher }, archive.source, page, settings);
    archive.keep(first);
    assert.deepEqual(archive.reads.map((urls) => urls.map((url) => url.replace(origin, '')).sort()), [['/down.gif', '/gone.png', '/site.css'], ['/paper.gif']],
      'the archive is asked once for the page\'s requisites and once for what its stylesheet names, not once a requisite');
    assert.deepEqual(requests.map((request) => request.path).sort(), ['/down.gif', '/gone.png', '/paper.gif', '/site.css']);
    assert.ok(requests.every((request) => !request.conditional));
    requests.length = 0;

    const again = await fetchRequisites({ page: fetcher, requisites: fetcher }, archive.source, page, settings);
    assert.deepEqual(requests, [{ path: '/down.gif', conditional: false }],
      'no request for what was kept a moment ago, nor for the 404 (a browser\'s cache keeps both); the 500 is asked again');
    assert.equal(again.find((record) => record.url.endsWith('/gone.png'))?.error, 'HTTP 404', 'the 404 is listed again as it was');
    requests.length = 0;
    archive.keep(again);
    const kept = (records: RequisiteRecord[]) => records.filter((record) => record.body !== null).map((record) => [record.url.replace(origin, ''), record.body && record.body.sha256, record.fetchedAt.getTime()]).sort();
    assert.deepEqual(kept(again), kept(first), 'listed with the same bytes and the time they were fetched — the background the stylesheet names found again in its kept text');

    const later = await fetchRequisites({ page: fetcher, requisites: fetcher }, archive.source, page, { ...settings, recheckAfter: 0 });
    assert.deepEqual(requests.filter((request) => request.conditional).map((request) => request.path).sort(), ['/paper.gif', '/site.css'], 'kept ones: a conditional GET');
    assert.ok(requests.some((request) => request.path === '/gone.png'), 'the 404 is asked again');
    assert.deepEqual(later.filter((record) => record.status === 304).map((record) => record.url.replace(origin, '')).sort(), ['/paper.gif', '/site.css']);
  } finally {
    fetcher.close();
  }
});

test('captures fetched at once share one request per URL', async () => {
  await loadCodec();
  const slow = createServer((request, response) => {
    requests.push({ path: `shared:${request.url}`, conditional: false });
    setTimeout(() => response.writeHead(200, { 'content-type': 'text/css' }).end('body { color: red }'), 50);
  });
  const origin = await listenOn(slow, '127.0.0.2');
  const fetcher = new Fetcher({ userAgent: 'test', connectTimeout: 2000, timeout: 5000, maxBodySize: 1e6, maxRedirects: 3, concurrency: 4, perHostDelay: 0, allowPrivateNetworks: ['127.0.0.0/8'] });
  const settings: RequisiteSettings = { kinds: ['styles'], maxBytes: 1e6, maxBytesPerCapture: 1e7, cssDepth: 0, timeout: 10_000, recheckAfter: 60_000, perHostDelay: 0 };
  const archive = memory();
  requests.length = 0;
  try {
    const pages = ['one', 'two', 'three'].map((name) => fetchRequisites({ page: fetcher, requisites: fetcher }, archive.source, named(`${origin}/${name}.html`, '<link rel="stylesheet" href="/theme.css">'), settings));
    const records = await Promise.all(pages);
    assert.deepEqual(requests, [{ path: 'shared:/theme.css', conditional: false }], 'one request for the three captures');
    assert.equal(new Set(records.map(([record]) => record!.body && record!.body.sha256)).size, 1);
    assert.ok(records.every(([record]) => record!.body !== null && 'data' in record!.body), 'each capture has the bytes to store (stored once, by digest)');
  } finally {
    fetcher.close();
    slow.closeAllConnections();
    await new Promise((resolve) => slow.close(resolve));
  }
});

test('a page with many requisites fetched at once, under a stop signal, raises no listener warning', async () => {
  await loadCodec();
  const images = createServer((_request, response) => {
    setTimeout(() => response.writeHead(200, { 'content-type': 'image/gif' }).end(Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1')), 20);
  });
  const origin = await listenOn(images, '127.0.0.3');
  const fetcher = new Fetcher({ userAgent: 'test', connectTimeout: 2000, timeout: 5000, maxBodySize: 1e6, maxRedirects: 3, concurrency: 8, perHostDelay: 0, allowPrivateNetworks: ['127.0.0.0/8'] });
  const settings: RequisiteSettings = { kinds: ['images'], maxBytes: 1e6, maxBytesPerCapture: 1e7, cssDepth: 0, timeout: 10_000, recheckAfter: 60_000, perHostDelay: 0 };
  const warnings: Error[] = [];
  const listen = (warning: Error) => warnings.push(warning);
  process.on('warning', listen);
  const stop = new AbortController();
  try {
    const html = Array.from({ length: 30 }, (_, i) => `<img src="/photo-${i}.gif">`).join('');
    const records = await fetchRequisites({ page: fetcher, requisites: fetcher }, memory().source, named(`${origin}/gallery.html`, html), settings, stop.signal);
    assert.equal(records.filter((record) => record.body !== null).length, 30);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning').map((warning) => warning.message), []);
  } finally {
    process.off('warning', listen);
    fetcher.close();
    images.closeAllConnections();
    await new Promise((resolve) => images.close(resolve));
  }
});
