import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { z } from 'zod';
import { loadCodec } from '../../src/archive/codec.js';
import { packContent, unpackContent } from '../../src/archive/packed-content.js';
import { smallArchive } from '../helpers/small-archive.js';

before(() => loadCodec());

test('packed content gives back the HTML and the object exactly, and is smaller than they are', () => {
  const html = '<p>Ça coûte 5 € — “quoted”, 日本語, and an emoji 🌲.</p>'.repeat(40);
  const object = { title: 'Titre', byline: 'Zoë', published: null, blocks: [{ kind: 'paragraph' as const, text: 'Ça coûte 5 € 🌲' }], media: [] };
  const blocks = JSON.stringify(object);
  const packed = packContent(html, object);
  assert.deepEqual(unpackContent(packed), { html, blocks });
  assert.ok(packed.byteLength < Buffer.byteLength(html) + Buffer.byteLength(blocks), `${packed.byteLength} bytes`);
  const empty = { title: '', byline: '', published: null, blocks: [], media: [] };
  assert.deepEqual(unpackContent(packContent('', empty)), { html: '', blocks: JSON.stringify(empty) });
});

test('packed content that does not hold what it should is an error, not a wrong version', () => {
  assert.throws(() => unpackContent(Buffer.from('not gzip')));
  const truncated = packContent('<p>long enough to be cut</p>', { title: 'T', byline: '', published: null, blocks: [], media: [] });
  assert.throws(() => unpackContent(truncated.subarray(0, truncated.byteLength - 6)));
});

test('versions are stored packed and read back whole; a version stored before packing is read as it was', async () => {
  const store = smallArchive(':memory:', ['One']);
  const { db } = store;
  const rows = z.array(z.object({ html: z.string(), blocks: z.string(), packed: z.instanceof(Uint8Array).nullable() })).parse(db.prepare('SELECT html, blocks, packed FROM contents').all());
  assert.equal(rows.length, 2);
  for (const row of rows) {
    assert.equal(row.html, '');
    assert.equal(row.blocks, '');
    assert.ok(row.packed !== null);
  }
  const [first, second] = await store.versions(1);
  assert.match(first!.html, /The mayor said no\./);
  assert.match(second!.html, /The mayor said yes\./);
  assert.equal(second!.object.blocks.at(-1)?.text, 'The mayor said yes.');

  // As migration 0015 left the rows written before it: the HTML and the object as text, nothing packed.
  const old = await store.version(1, 1);
  db.prepare('UPDATE contents SET html = ?, blocks = ?, packed = NULL WHERE hash = ?').run(old!.html, JSON.stringify(old!.object), old!.hash);
  assert.deepEqual(await store.version(1, 1), old);
  await store.close();
});
