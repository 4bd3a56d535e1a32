import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { loadCodec } from '../../src/archive/codec.js';
import { openStore } from '../../src/archive/sqlite/store.js';
import { PROJECT_ROOT } from '../../src/util/project-root.js';
import { smallArchive } from '../helpers/small-archive.js';
import { tempDir } from '../helpers/temp.js';

before(() => loadCodec());

const archive = () => smallArchive(':memory:');

test('the store answers with domain types: camelCase fields, parsed JSON, booleans', async () => {
  const store = archive();
  const [feed] = await store.feeds();
  assert.deepEqual(feed, { id: 1, subscribedUrl: 'https://a.example/feed', url: 'https://a.example/feed', title: 'A', feedTitle: null, siteUrl: null, tags: ['news'], schedule: null, enabled: true, format: null,
    subscription: { url: 'https://a.example/feed', title: 'A', siteUrl: null, tags: ['news'], schedule: null, enabled: true, requisites: null } });
  const article = await store.article(1);
  assert.equal(article?.versions, 2);
  assert.equal(article?.goneSince, null);
  const [first, second] = await store.versions(1);
  assert.equal(first?.capturedAt, '2026-11-02T00:01:00.000Z');
  assert.deepEqual(first?.change, []);
  assert.equal(first?.diff, null);
  assert.equal(first?.object.byline, 'Ann Lee');
  assert.deepEqual(first?.object.blocks.map((block) => block.text), ['First paragraph of the story.', 'The mayor said no.']);
  assert.deepEqual(second?.change, ['body-edit']);
  assert.deepEqual(second?.diff?.kinds, ['body-edit']);
  assert.deepEqual((await store.checks(1)).map((check) => [check.at, check.result, check.version, check.reason]),
    [['2026-11-02T00:01:00.000Z', 'changed', 1, 'first capture'], ['2026-11-02T00:06:00.000Z', 'changed', 2, null]]);
  assert.equal(await store.article(2), null);
  assert.equal(await store.version(1, 3), null);
  await store.close();
});

test('a row whose JSON is damaged is an error that names the row, not a wrong value', async () => {
  const store = archive();
  store.db.prepare(`UPDATE versions SET change = '["title", "moved"]' WHERE article_id = 1 AND n = 1`).run();
  await assert.rejects(store.version(1, 1), /version 1 of article 1 \(change\) does not hold what it should/);
  store.db.prepare(`UPDATE versions SET change = '[' WHERE article_id = 1 AND n = 1`).run();
  await assert.rejects(store.versions(1), /version 1 of article 1 \(change\) holds invalid JSON/);
  await store.close();
});

test('a command that reads refuses a missing archive instead of creating an empty one', () => {
  const path = join(tempDir(), 'none.db');
  assert.throws(() => openStore(path), /no archive at .*none\.db: `forest run` creates it/);
  openStore(path, { create: true }).db.close();
});

test('the CLI reaches storage only through the store: no SQL and no database handle in src/cli', () => {
  const dir = join(PROJECT_ROOT, 'src', 'cli');
  const offending = readdirSync(dir).filter((name) => name.endsWith('.ts')).flatMap((name) => {
    const text = readFileSync(join(dir, name), 'utf8');
    const found = [
      /\.prepare\(|\bSELECT\b|\bINSERT INTO\b|\bUPDATE \w+ SET\b/.test(text) ? 'SQL' : null,
      /archive\/database\.js|better-sqlite3/.test(text) ? 'a database handle' : null,
    ].filter(Boolean);
    return found.length ? [`${name}: ${found.join(', ')}`] : [];
  });
  assert.deepEqual(offending, []);
});
