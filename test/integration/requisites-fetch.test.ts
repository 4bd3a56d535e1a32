import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, test } from 'node:test';
import { loadCodec, type StoredBody } from '../../src/archive/codec.js';
import type { RequisiteRecord, RequisiteValidators } from '../../src/archive/store.js';
import { Fetcher } from '../../src/net/fetcher.js';
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
  response.writeHead(404).end();
});
after(() => new Promise((resolve) => server.close(resolve)));

/** What the archive would hold: each URL's last kept fetch, and the bytes by digest. */
function memory() {
  const last = new Map<string, RequisiteValidators>();
  const bodies = new Map<string, StoredBody>();
  return {
    source: { requisiteValidators: async (url: string) => last.get(url) ?? null, storedBody: async (sha256: string) => bodies.get(sha256) ?? null },
    keep(records: RequisiteRecord[]) {
      for (const record of records) {
        if (record.body === null) continue;
        if ('data' in record.body) bodies.set(record.body.sha256, { encoding: record.body.encoding, data: record.body.data });
        last.set(record.url, { fetchedAt: record.fetchedAt.toISOString(), status: record.status, sha256: record.body.sha256, contentType: record.contentType, etag: record.etag, lastModified: record.lastModified });
      }
    },
  };
}

test('a requisite kept less than recheckAfter ago is listed without a request; past it, a conditional GET', async () => {
  await loadCodec();
  const origin = await listenOn(server, '127.0.0.1');
  const fetcher = new Fetcher({ userAgent: 'test', connectTimeout: 2000, timeout: 5000, maxBodySize: 1e6, maxRedirects: 3, concurrency: 4, perHostDelay: 0, allowPrivateNetworks: ['127.0.0.0/8'] });
  const archive = memory();
  const settings: RequisiteSettings = { kinds: ['images', 'styles'], maxBytes: 1e6, maxBytesPerCapture: 1e7, cssDepth: 2, timeout: 10_000, recheckAfter: 60_000 };
  const page = { url: `${origin}/story.html`, html: '<link rel="stylesheet" href="/site.css">' };
  try {
    const first = await fetchRequisites({ page: fetcher, requisites: fetcher }, archive.source, page, settings);
    archive.keep(first);
    assert.deepEqual(requests, [{ path: '/site.css', conditional: false }, { path: '/paper.gif', conditional: false }]);

    const again = await fetchRequisites({ page: fetcher, requisites: fetcher }, archive.source, page, settings);
    assert.equal(requests.length, 2, 'no request: both were kept a moment ago');
    assert.deepEqual(again.map((record) => [record.url.replace(origin, ''), record.body && record.body.sha256]), first.map((record) => [record.url.replace(origin, ''), record.body && record.body.sha256]),
      'listed with the same bytes — the background the stylesheet names found again in its kept text');
    assert.deepEqual(again.map((record) => record.fetchedAt.getTime()), first.map((record) => record.fetchedAt.getTime()), 'each with the time it was fetched');

    const later = await fetchRequisites({ page: fetcher, requisites: fetcher }, archive.source, page, { ...settings, recheckAfter: 0 });
    assert.deepEqual(requests.slice(2), [{ path: '/site.css', conditional: true }, { path: '/paper.gif', conditional: true }]);
    assert.deepEqual(later.map((record) => record.status), [304, 304]);
  } finally {
    fetcher.close();
  }
});
