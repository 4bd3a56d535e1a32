import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { before, test } from 'node:test';
import { loadCodec } from '../../src/archive/codec.js';
import { forest } from '../helpers/cli.js';
import { smallArchive } from '../helpers/small-archive.js';
import { tempDir } from '../helpers/temp.js';
import { readZip } from '../helpers/zip.js';

// Issue #53, item 3: a WACZ that replay tools take — the WARC, its index, a page per article with its text, and digests.

const dir = tempDir();
const database = join(dir, 'archive.db');

before(async () => {
  await loadCodec();
  await smallArchive(database, ['One', 'Two', 'Three']).close();
});

test('export --format wacz: the captures\' WARC, a CDXJ index, pages.jsonl with each article\'s text, and datapackage.json with their digests', async () => {
  const out = join(dir, 'archive.wacz');
  const exported = await forest(['export', '--format', 'wacz', '--out', out, '--db', database, '--json']);
  assert.equal(exported.code, 0, exported.stderr);
  const files = readZip(readFileSync(out));
  const names = [...files.keys()].sort();
  assert.ok(names.includes('datapackage.json') && names.includes('datapackage-digest.json') && names.includes('pages/pages.jsonl'), names.join(' '));
  assert.deepEqual(names, ['archive/data.warc.gz', 'datapackage-digest.json', 'datapackage.json', 'indexes/index.cdxj', 'pages/pages.jsonl']);

  // Each index line points at its capture's record in the WARC.
  const warc = files.get('archive/data.warc.gz')!;
  const lines = files.get('indexes/index.cdxj')!.toString('utf8').trim().split('\n');
  assert.ok(lines.length >= 4, `${lines.length} index lines`);
  for (const line of lines) {
    const entry = JSON.parse(line.slice(line.indexOf('{'))) as { url: string; offset: string; length: string; filename: string };
    assert.equal(entry.filename, 'data.warc.gz');
    const record = gunzipSync(warc.subarray(Number(entry.offset), Number(entry.offset) + Number(entry.length))).toString('latin1');
    assert.ok(record.includes(`WARC-Target-URI: ${entry.url}\r\n`), `${entry.url} at ${entry.offset}`);
  }
  const pages = files.get('pages/pages.jsonl')!.toString('utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, string>);
  assert.equal(pages[0]!['format'], 'json-pages-1.0');
  const byUrl = new Map(pages.slice(1).map((page) => [page['url'], page]));
  assert.deepEqual([...byUrl.keys()].sort(), ['https://a.example/1', 'https://a.example/2', 'https://a.example/3']);
  assert.equal(byUrl.get('https://a.example/1')!['title'], 'One');
  assert.match(byUrl.get('https://a.example/1')!['text']!, /The mayor said yes/, 'the text of the article\'s latest version');
  assert.ok(!Number.isNaN(Date.parse(byUrl.get('https://a.example/2')!['ts']!)));

  const datapackage = JSON.parse(files.get('datapackage.json')!.toString('utf8')) as { profile: string; wacz_version: string; resources: Array<{ path: string; hash: string; bytes: number }> };
  assert.equal(datapackage.wacz_version, '1.1.1');
  assert.equal(datapackage.resources.length, 3);
  const digest = JSON.parse(files.get('datapackage-digest.json')!.toString('utf8')) as { path: string; hash: string };
  assert.equal(digest.hash, `sha256:${createHash('sha256').update(files.get('datapackage.json')!).digest('hex')}`);
  for (const resource of datapackage.resources) {
    const content = files.get(resource.path);
    assert.ok(content, `${resource.path} is in the package`);
    assert.equal(resource.bytes, content.length, resource.path);
    assert.equal(resource.hash, `sha256:${createHash('sha256').update(content).digest('hex')}`, resource.path);
  }
  const refused = await forest(['export', '--format', 'wacz', '--out', '-', '--db', database]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /give --out a file/);
});
