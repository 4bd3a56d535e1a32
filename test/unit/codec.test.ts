import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { decodeStoredBody, encodeBody, loadCodec, type EncodedBody, type StoredBody } from '../../src/archive/codec.js';

before(() => loadCodec());

// Pages of one site: the same template around different articles.
const template = (article: string) => Buffer.from(`<!doctype html><html><head><title>Site</title>${'<link rel="stylesheet" href="/s.css">'.repeat(20)}
<script>${'var config = {tracking: true, ads: [1, 2, 3], region: "north"};'.repeat(40)}</script></head><body>
<nav>${Array.from({ length: 60 }, (_, i) => `<a href="/section/${i}">Section ${i}</a>`).join('')}</nav><article>${article}</article>
<footer>${'<p>Copyright and many links that every page repeats.</p>'.repeat(30)}</footer></body></html>`);
const prose = (seed: number) => Array.from({ length: 30 }, (_, i) => `<p>Paragraph ${i} of story ${seed}: ${((seed * 7919 + i * 104729) % 1000003).toString(36).repeat(6)} council bridge budget.</p>`).join('');
const stored = (body: EncodedBody): StoredBody => ({ encoding: body.encoding, data: body.data });

test('a page of the same template is stored against the feed\'s reference, much smaller, and decodes to its bytes', () => {
  const first = encodeBody(template(prose(1)));
  assert.equal(first.encoding, 'zstd');
  assert.equal(first.reference, null);
  const page = template(prose(2));
  const second = encodeBody(page, { sha256: first.sha256, stored: stored(first) });
  assert.equal(second.encoding, 'zstd-dict');
  assert.equal(second.reference, first.sha256);
  const alone = encodeBody(page);
  assert.ok(second.data.byteLength < alone.data.byteLength * 0.7, `${second.data.byteLength} against ${alone.data.byteLength} alone`);
  assert.ok(second.data.byteLength < gzipSync(page).byteLength * 0.7, 'and smaller than gzip');
  assert.deepEqual(decodeStoredBody({ ...stored(second), reference: stored(first) }), page);
});

test('a page the reference hardly helps (another template) is stored alone: it will be the new reference', () => {
  const reference = encodeBody(template(prose(1)));
  // A redesign: other markup around other words; only a little boilerplate in common.
  const other = Buffer.from(`<!doctype html><html><head><title>Site</title></head><body><main>${
    Array.from({ length: 40 }, (_, i) => `<section id="s${i}"><h2>${(i * 48271 % 2147483647).toString(16)}</h2><div class="c${i % 7}">${(i * 16807 % 2147483647).toString(36).repeat(12)}</div></section>`).join('')
  }</main></body></html>`);
  const encoded = encodeBody(other, { sha256: reference.sha256, stored: stored(reference) });
  assert.equal(encoded.encoding, 'zstd');
  assert.equal(encoded.reference, null);
  assert.deepEqual(decodeStoredBody(stored(encoded)), other);
});

test('bodies stored before zstd still decode; a zstd-dict body without its reference is an error', () => {
  const bytes = Buffer.from('an old capture, stored with gzip');
  assert.deepEqual(decodeStoredBody({ encoding: 'gzip', data: gzipSync(bytes) }), bytes);
  const first = encodeBody(template(prose(1)));
  const second = encodeBody(template(prose(2)), { sha256: first.sha256, stored: stored(first) });
  assert.throws(() => decodeStoredBody(stored(second)), /without its reference/);
});
