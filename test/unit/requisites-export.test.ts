import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { WARCParser } from 'warcio';
import { encodeRequisite, loadCodec } from '../../src/archive/codec.js';
import { exportWarc, writeCdxj } from '../../src/archive/exports/export.js';
import { dropCaptureBody } from '../../src/archive/rules/captures.js';
import { recordRequisites } from '../../src/archive/rules/requisites.js';
import { runOn } from '../../src/archive/sqlite/sql.js';
import type { RequisiteRecord } from '../../src/archive/store.js';
import { smallArchive } from '../helpers/small-archive.js';
import { tempDir } from '../helpers/temp.js';

before(() => loadCodec());

const requisite = (url: string, bytes: Buffer, at: string, status = 200, kept = true): RequisiteRecord => ({
  url, kind: 'image', via: 'img src', fetchedAt: new Date(at), status, contentType: 'image/png',
  body: kept ? encodeRequisite(bytes, false) : null, etag: null, lastModified: null, error: kept ? null : 'HTTP 404',
});

test('a WARC export holds each requisite: its first payload as a response, the same bytes again as a standard identical-payload-digest revisit, each indexed in CDXJ', async () => {
  const dir = tempDir();
  const store = smallArchive(join(dir, 'archive.db'), ['One', 'Two']);
  const logo = Buffer.from('logo bytes, the same for both pages');
  const snapshots = store.db.prepare('SELECT id FROM snapshots WHERE sha256 IS NOT NULL ORDER BY id').pluck().all() as number[];
  runOn(store.db, recordRequisites(snapshots[0]!, [requisite('https://cdn.example/logo.png', logo, '2026-11-02T00:00:05Z'), requisite('https://cdn.example/gone.png', Buffer.alloc(0), '2026-11-02T00:00:05Z', 404, false)]));
  runOn(store.db, recordRequisites(snapshots.at(-1)!, [requisite('https://cdn.example/logo.png', logo, '2026-11-02T00:02:05Z')]));
  const out = join(dir, 'out.warc');
  await exportWarc(store, {}, out, { gzip: false, software: 'test' });
  const records: Array<{ type: string; url: string | null | undefined; id: string | null | undefined; refersTo: string | null | undefined; profile: string | null | undefined; digest: string | null | undefined; payload: string }> = [];
  for await (const record of WARCParser.iterRecords(createReadStream(out))) {
    records.push({ type: record.warcType, url: record.warcTargetURI, id: record.warcHeader('WARC-Record-ID'), refersTo: record.warcHeader('WARC-Refers-To'),
      profile: record.warcHeader('WARC-Profile'), digest: record.warcPayloadDigest, payload: record.warcType === 'response' ? await record.contentText() : '' });
  }
  const logos = records.filter((record) => record.url === 'https://cdn.example/logo.png');
  assert.deepEqual(logos.map((record) => record.type), ['response', 'revisit']);
  assert.equal(logos[0]!.payload, logo.toString());
  assert.equal(logos[1]!.refersTo, logos[0]!.id);
  assert.equal(logos[1]!.profile, 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest', 'the standard profile, not a private one');
  assert.equal(logos[1]!.digest, logos[0]!.digest);
  assert.ok(!records.some((record) => record.url === 'https://cdn.example/gone.png'), 'a requisite whose bytes were not kept has no record');
  const lines: string[] = [];
  await writeCdxj(store, {}, { write: (data) => void lines.push(String(data)), bytes: 0 }, 'out.warc', { gzip: false, software: 'test' });
  assert.equal(lines.join('').split('\n').filter((line) => line.startsWith('example,cdn)/logo.png ')).length, 2, 'each logo record has its CDXJ line');
  await store.close();
});

test('forest check finds a requisite whose bytes changed since they were stored, or went missing', async () => {
  const dir = tempDir();
  const store = smallArchive(join(dir, 'archive.db'), ['One']);
  const [snapshot] = store.db.prepare('SELECT id FROM snapshots ORDER BY id').pluck().all() as number[];
  const logo = Buffer.from('the logo as fetched');
  runOn(store.db, recordRequisites(snapshot!, [requisite('https://cdn.example/logo.png', logo, '2026-11-02T00:00:05Z')]));
  const bodies = async () => (await store.verify()).find((check) => check.name === 'requisite bodies')!.problems;
  assert.deepEqual(await bodies(), []);
  store.db.prepare("UPDATE blobs SET data = ? WHERE encoding = 'identity'").run(Buffer.from('the logo, altered'));
  assert.match((await bodies()).join(' '), /hashes to .*: its bytes changed since they were stored/);
  await store.close();
});

test('retention: a capture found unchanged drops its requisites with its body, their bytes too unless another capture lists them; vacuum sweeps what is left', async () => {
  const dir = tempDir();
  const store = smallArchive(join(dir, 'archive.db'), ['One', 'Two']);
  const [first, second] = store.db.prepare('SELECT id FROM snapshots WHERE sha256 IS NOT NULL ORDER BY id').pluck().all() as number[];
  const logo = Buffer.from('the site logo, on every page');
  const photo = Buffer.from('a photograph of the second page alone');
  runOn(store.db, recordRequisites(first!, [requisite('https://cdn.example/logo.png', logo, '2026-11-02T00:00:05Z')]));
  runOn(store.db, recordRequisites(second!, [requisite('https://cdn.example/logo.png', logo, '2026-11-02T00:01:05Z'), requisite('https://cdn.example/photo.png', photo, '2026-11-02T00:01:05Z')]));
  const blobs = () => store.db.prepare('SELECT COUNT(*) FROM blobs WHERE sha256 IN (SELECT sha256 FROM requisites) OR data IN (?, ?)').pluck().get(logo, photo) as number;
  assert.equal(blobs(), 2);

  runOn(store.db, dropCaptureBody(second!));
  assert.equal(store.db.prepare('SELECT COUNT(*) FROM requisites WHERE snapshot_id = ?').pluck().get(second), 0, 'its requisites went with its body');
  assert.equal(store.db.prepare('SELECT COUNT(*) FROM blobs WHERE data = ?').pluck().get(photo), 0, 'a picture no other capture lists is freed');
  assert.equal(store.db.prepare('SELECT COUNT(*) FROM blobs WHERE data = ?').pluck().get(logo), 1, 'the logo the first capture lists stays');
  runOn(store.db, recordRequisites(second!, [requisite('https://cdn.example/photo.png', photo, '2026-11-02T00:01:06Z')]));
  assert.equal(store.db.prepare('SELECT COUNT(*) FROM requisites WHERE snapshot_id = ?').pluck().get(second), 0, 'requisites that arrive after their capture lost its body are not kept');

  // A capture whose body went without its requisites (an archive older than this rule): retention sweeps them.
  store.db.prepare('UPDATE snapshots SET sha256 = NULL WHERE id = ?').run(first);
  const report = await store.applyRetention({ polls: null, checks: null }, new Date());
  assert.equal(report.requisites, 1);
  assert.equal(store.db.prepare('SELECT COUNT(*) FROM blobs WHERE data = ?').pluck().get(logo), 0);
  assert.deepEqual((await store.verify()).find((check) => check.name === 'requisite bodies')!.problems, []);
  await store.close();
});
