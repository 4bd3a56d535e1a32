import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadCodec } from '../../src/archive/codec.js';
import { forest, startServe, type ForestProcess } from '../helpers/cli.js';
import { smallArchive } from '../helpers/small-archive.js';
import { tempDir } from '../helpers/temp.js';

/*
 * Issue #53, item 4: /articles (and /api/v1/articles) filtered by language — the language of
 * each article's latest version, matched as a BCP 47 range (RFC 4647 basic filtering: `en`
 * selects en-GB).
 */

const dir = tempDir();
const database = join(dir, 'archive.db');
let server: ForestProcess;
let base = '';

before(async () => {
  await loadCodec();
  await smallArchive(database, ['One', 'Two', 'Three']).close();
  // The extraction of each article's latest capture, with the language its page declared (setup only: what the pool would have stored).
  const db = new Database(database);
  const languages = new Map([[1, 'en-GB'], [2, 'de'], [3, 'eng']]);
  const latest = db.prepare('SELECT versions.snapshot_id AS snapshot, articles.item_id AS item, articles.id AS article FROM articles JOIN versions ON versions.article_id = articles.id AND versions.n = articles.versions').all() as Array<{ snapshot: number; item: number; article: number }>;
  for (const row of latest) {
    db.prepare("INSERT INTO extractions (snapshot_id, item_id, method, text, html, language, extracted_at) VALUES (?, ?, 'sigfeed', '', '', ?, '2026-11-02T00:00:00Z')").run(row.snapshot, row.item, languages.get(row.article));
  }
  db.close();
  ({ server, base } = await startServe(['--db', database]));
});

after(() => {
  server?.kill('SIGTERM');
});

const titles = async (query: string) => ((await (await fetch(`${base}/api/v1/articles?${query}`)).json()) as { items: Array<{ title: string }> }).items.map((article) => article.title).sort();

test('a language range selects the articles in that language and its regional variants, not another language that starts alike', async () => {
  assert.deepEqual(await titles('language=en'), ['One'], 'en selects en-GB, not eng');
  assert.deepEqual(await titles('language=EN-gb'), ['One'], 'case does not matter');
  assert.deepEqual(await titles('language=de'), ['Two']);
  assert.deepEqual(await titles(''), ['One', 'Three', 'Two']);
  assert.equal((await fetch(`${base}/api/v1/articles?language=e%25`)).status, 400, 'not a language range');
  const page = await (await fetch(`${base}/articles?language=de`)).text();
  assert.match(page, /<input name="language" value="de"/);
  assert.match(page, />Two</);
  assert.doesNotMatch(page, />One</);
});

test('forest articles --language: the same filter on the command line, and a clear error for what is not a range', async () => {
  const listed = await forest(['articles', '--db', database, '--language', 'en', '--json']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(listed.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { title: string }).title), ['One']);
  const bad = await forest(['articles', '--db', database, '--language', 'e*']);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /not a language range: e\* \(use e\.g\. en, de, pt-BR\)/);
});
