import assert from 'node:assert/strict';
import { runOn } from '../../src/archive/sqlite/sql.js';
import { syncSubscriptions } from '../../src/archive/rules/feeds.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { loadCodec } from '../../src/archive/codec.js';
import { openDatabase } from '../../src/archive/sqlite/database.js';
import { upsertItems } from '../../src/archive/rules/items.js';
import { SqliteStore } from '../../src/archive/sqlite/store.js';
import { loadSettings } from '../../src/config/settings.js';
import { ExtractedAhead } from '../../src/daemon/extracted-ahead.js';
import { Extractor } from '../../src/daemon/extraction.js';
import type { PipelineContext } from '../../src/daemon/context.js';
import { capturePage, revisitPage } from '../../src/daemon/pipeline.js';
import { createPool, type CpuPool } from '../../src/daemon/pool.js';
import { Fetcher } from '../../src/net/fetcher.js';
import { createLogger } from '../../src/util/logger.js';
import { waitFor } from '../helpers/cli.js';

// A revisit is extracted in the pool before anything is stored; when its page is an edit and is
// stored, its queued extraction takes that result instead of parsing the page a second time
// (issue #9: a revisit extracts the page once). Real archive, real HTTP, the real extraction
// (the pool run on this thread), counted.

const paragraphs = [
  'The harbour authority said on Monday that the old pier will close for repairs over the winter, after engineers found that several of its wooden piles had rotted through below the waterline.',
  'Fishing boats that use the pier will be moved to the north quay until the work is finished, which the authority expects to take about four months if the weather allows divers to work.',
  'Local traders asked for the closure to be delayed until the end of the festival season, but the authority said the risk of a collapse was too high to wait any longer than necessary.',
];
let body = '';
const render = (lines: string[]) => `<!doctype html><html lang="en"><head><title>Old pier to close for winter repairs</title></head><body>
<header><nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a></nav></header>
<article><h1>Old pier to close for winter repairs</h1>${lines.map((line) => `<p>${line}</p>`).join('\n')}</article>
<footer><p>Copyright The Harbour Gazette</p></footer></body></html>`;

let server: Server;
let origin = '';
before(async () => {
  await loadCodec();
  server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The pool's tasks as run, counted by kind. */
function countingPool(): { pool: CpuPool; calls: Map<string, number> } {
  const inner = createPool(0);
  const calls = new Map<string, number>();
  const counted = <T extends unknown[], R>(name: string, run: (...args: T) => R) => (...args: T): R => {
    calls.set(name, (calls.get(name) ?? 0) + 1);
    return run(...args);
  };
  return {
    calls,
    pool: {
      threads: 1, threadIds: inner.threadIds, encode: counted('encode', inner.encode), extract: counted('extract', inner.extract), revisit: counted('revisit', inner.revisit),
      rebase: counted('rebase', inner.rebase), learn: counted('learn', inner.learn), parseFeed: counted('parseFeed', inner.parseFeed),
      discover: counted('discover', inner.discover), close: inner.close,
    },
  };
}

/** An archive with one item of one feed, the pipeline around it, and its first capture extracted. */
async function archived(options: { ahead: boolean }) {
  body = render(paragraphs);
  const db = openDatabase(':memory:');
  const feedUrl = `${origin}/feed`;
  runOn(db, syncSubscriptions([{ url: feedUrl, tags: [], enabled: true }]));
  const item = (title: string) => ({
    guid: 'pier', link: `${origin}/pier`, origLink: null, title, summary: null, content: null, author: null, categories: [], enclosures: [], published: null, updated: null,
  });
  runOn(db, upsertItems(1, [item('Old pier to close for winter repairs')], new Date(), true));
  const settings = loadSettings({ env: {} });
  const { pool, calls } = countingPool();
  const store = new SqliteStore(db, ':memory:');
  const context: PipelineContext = {
    store, pool, log: createLogger({ level: 'silent', pretty: false }),
    settings: { ...settings, http: { ...settings.http, perHostDelay: 0 } },
    fetcher: new Fetcher({ ...settings.http, perHostDelay: 0, allowPrivateNetworks: ['127.0.0.0/8'] }),
    ...(options.ahead ? { ahead: new ExtractedAhead() } : {}),
  };
  const extractor = new Extractor(context, 1);
  const extractAll = async () => {
    const jobs: Array<Promise<unknown>> = [];
    await extractor.fill((_key, work) => jobs.push(work));
    await Promise.all(jobs);
  };
  const signal = new AbortController().signal;
  const itemToCapture = await store.itemToCapture(1);
  assert.ok(itemToCapture);
  await capturePage(context, itemToCapture, signal);
  await extractAll();
  const versions = () => db.prepare('SELECT versions FROM articles').pluck().get();
  assert.equal(versions(), 1);
  const revisit = async () => {
    const article = await store.articleToRevisit(1);
    assert.ok(article);
    await revisitPage(context, article, signal);
  };
  return { db, store, calls, item, extractAll, versions, revisit };
}

async function archiveThenEdit(options: { ahead: boolean; retitleBeforeExtraction: boolean }) {
  const { db, store, calls, item, extractAll, versions, revisit } = await archived(options);
  body = render([paragraphs[0]!, paragraphs[1]!.replace('four months', 'six months'), paragraphs[2]!]);
  calls.clear();
  await revisit();
  // A poll may change the item before its page's turn comes: then the page is extracted again.
  if (options.retitleBeforeExtraction) runOn(db, upsertItems(1, [item('Old pier to close for repairs over the winter')], new Date(), true));
  await waitFor(async () => (await store.queuedExtractions(10)).length === 1, 2000, 'the revisit stored for extraction');
  await extractAll();
  assert.equal(versions(), 2, 'the edit is a new version');
  const change = db.prepare('SELECT change FROM versions WHERE n = 2').pluck().get();
  assert.match(String(change), /edit|text/);
  db.close();
  return calls;
}

test('a revisit that finds an edit extracts the page once: its queued extraction takes the revisit\'s result', async () => {
  const calls = await archiveThenEdit({ ahead: true, retitleBeforeExtraction: false });
  assert.equal(calls.get('revisit'), 1);
  assert.equal(calls.get('extract') ?? 0, 0, 'the stored page is not extracted again');
});

test('without the revisit\'s result, or when the item changed since, the stored page is extracted again', async () => {
  assert.equal((await archiveThenEdit({ ahead: false, retitleBeforeExtraction: false })).get('extract'), 1);
  assert.equal((await archiveThenEdit({ ahead: true, retitleBeforeExtraction: true })).get('extract'), 1);
});

test('an article\'s comparison key says what its object was made from: kept by a revisit behind a new ad, replaced by an edit, unknown until then for older keys', async () => {
  const { db, store, extractAll, versions, revisit } = await archived({ ahead: true });
  const source = () => db.prepare('SELECT compare_source FROM articles').pluck().get();
  const first = source();
  assert.match(String(first), /^[0-9a-f]{64}$/, 'the first version\'s source');

  // What changes around an article on every request: an ad's text in the page's template.
  const withAd = (ad: string) => render(paragraphs).replace('Copyright The Harbour Gazette', `Copyright The Harbour Gazette · Sponsored: ${ad}`);
  body = withAd('offer 1');
  await revisit();
  assert.equal(db.prepare('SELECT result FROM checks ORDER BY id DESC LIMIT 1').pluck().get(), 'unchanged');
  assert.equal(source(), first);

  // A key from before migration 0013: the first check that finds its object learns its source.
  db.prepare('UPDATE articles SET compare_source = NULL').run();
  body = withAd('offer 2');
  await revisit();
  assert.equal(db.prepare("SELECT count(*) FROM checks WHERE result = 'unchanged'").pluck().get(), 2);
  assert.equal(source(), first, 'the same source as the version\'s');

  body = render([paragraphs[0]!, paragraphs[1]!.replace('four months', 'six months'), paragraphs[2]!]);
  await revisit();
  await waitFor(async () => (await store.queuedExtractions(10)).length === 1, 2000, 'the edit stored for extraction');
  await extractAll();
  assert.equal(versions(), 2);
  assert.notEqual(source(), first, 'an edit\'s key is made from the edited page');
  db.close();
});
