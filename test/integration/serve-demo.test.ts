import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseFeed } from '../../src/feeds/parse.js';
import { forest, startServe, type ForestProcess } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

// What a new user sees: `forest demo` archives the synthetic web, then `forest serve` shows all
// of it — every article, each of its versions and diffs, every capture, and Memento for every
// URL an article is known by.

const database = join(tempDir(), 'demo.db');
let server: ForestProcess;
let base = '';

before(async () => {
  const demo = await forest(['demo', '--db', database, '--edits', '3', '--edit-every', '1s']);
  assert.equal(demo.code, 0, demo.stderr);
  ({ server, base } = await startServe(['--db', database]));
});

after(() => {
  server?.kill('SIGTERM');
});

interface Listed { id: number; url: string; versions: number }
interface History { versions: Array<{ n: number; capturedAt: string; change: string[] }>; checks: Array<{ at: string; status: number | null; result: string }> }

const json = async <T>(path: string): Promise<T> => {
  const response = await fetch(`${base}${path}`);
  assert.equal(response.status, 200, path);
  return (await response.json()) as T;
};

async function everyArticle(): Promise<Listed[]> {
  const all: Listed[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: Listed[]; next: string | null } = await json(`/api/v1/articles?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
    all.push(...page.items);
    cursor = page.next;
  } while (cursor);
  return all;
}

test('forest serve shows the whole demo archive: every article, version, diff and capture; Memento for every article URL; the change feed', async () => {
  const articles = await everyArticle();
  const status = await json<{ articles: number; versionsByMethod: Record<string, number> }>('/api/v1/status');
  assert.equal(articles.length, status.articles, 'the cursor pages through every article once');
  assert.equal(new Set(articles.map((article) => article.id)).size, articles.length);
  assert.ok(articles.length >= 10, `${articles.length} articles`);

  let versions = 0;
  let edits = 0;
  let captures = 0;
  for (const listed of articles) {
    const history = await json<History>(`/api/v1/articles/${listed.id}`);
    const page = await fetch(`${base}/articles/${listed.id}`);
    assert.equal(page.status, 200);
    const shown = await page.text();
    versions += history.versions.length;
    for (const version of history.versions) {
      assert.ok(shown.includes(`datetime="${version.capturedAt}"`), `article ${listed.id} shows version ${version.n}`);
      if (version.n === 1) continue;
      edits++;
      const diff = await fetch(`${base}/articles/${listed.id}/diff?from=${version.n - 1}&to=${version.n}`);
      assert.equal(diff.status, 200);
      const diffPage = await diff.text();
      for (const kind of version.change) assert.ok(diffPage.includes(`<span class="label">${kind}</span>`), `diff ${listed.id} v${version.n} says ${kind}`);
    }
    // Every URL Forest fetched the article at resolves to its captures (a canonical link is the
    // page's claim: never a memento's original unless Forest fetched that URL too).
    const one = await json<{ url: string; finalUrl: string | null; canonicalUrl: string | null }>(`/api/v1/articles/${listed.id}/versions/1`);
    const urls = [...new Set([one.url, one.finalUrl].filter((url): url is string => url !== null))];
    let known = 0;
    for (const url of urls) {
      const map = await json<{ mementos: { list: Array<{ datetime: string; uri: string }> } }>(`/timemap/json/${url}`);
      assert.ok(map.mementos.list.length >= 1, `${url} has mementos`);
      known = Math.max(known, map.mementos.list.length);
      const gate = await fetch(`${base}/timegate/${url}`, { redirect: 'manual' });
      assert.equal(gate.status, 302, `the TimeGate of ${url}`);
      for (const memento of map.mementos.list) {
        // The app leads a memento to the capture origin, which serves it.
        const onApp = await fetch(new URL(memento.uri, base), { redirect: 'manual' });
        assert.equal(onApp.status, 302, memento.uri);
        const replay = await fetch(onApp.headers.get('location')!, { redirect: 'manual' });
        assert.equal(replay.status, 200, memento.uri);
        assert.ok(replay.headers.get('memento-datetime'), memento.uri);
        await replay.arrayBuffer();
        const stamp = new URL(memento.uri, base).pathname.split('/')[2]!;
        assert.equal((await fetch(`${base}/captures/${stamp}/${url}`)).status, 200, `the capture view of ${url} at ${stamp}`);
      }
    }
    // A capture whose body was kept for each version, at least.
    assert.ok(known >= history.versions.length, `article ${listed.id}: ${known} captures for ${history.versions.length} versions`);
    captures += known;
  }
  assert.equal(versions, Object.values(status.versionsByMethod).reduce((sum, n) => sum + n, 0), 'every version of the archive was shown');
  assert.ok(edits >= 3, `the demo's ${edits} edits`);
  assert.ok(captures >= articles.length + edits);

  const atom = await fetch(`${base}/changes.atom`);
  const feed = await parseFeed(Buffer.from(await atom.arrayBuffer()), { url: `${base}/changes.atom`, contentType: atom.headers.get('content-type') });
  assert.equal(feed.format, 'atom1.0');
  assert.equal(feed.items.length, edits, 'one entry per edit');
  assert.equal(feed.warnings.length, 0, feed.warnings.join('; '));
});
