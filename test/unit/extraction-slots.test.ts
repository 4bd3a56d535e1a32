import assert from 'node:assert/strict';
import { syncSubscriptions } from '../../src/archive/rules/feeds.js';
import { runOn } from '../../src/archive/sqlite/sql.js';
import { test } from 'node:test';
import { encodeBody, loadCodec } from '../../src/archive/codec.js';
import { openDatabase } from '../../src/archive/sqlite/database.js';
import { SqliteStore } from '../../src/archive/sqlite/store.js';
import { upsertItems } from '../../src/archive/rules/items.js';
import { recordCapture } from '../../src/archive/rules/captures.js';
import { loadSettings } from '../../src/config/settings.js';
import { Extractor } from '../../src/daemon/extraction.js';
import type { CpuPool } from '../../src/daemon/pool.js';
import type { ExtractOutcome, LearnOutcome } from '../../src/daemon/tasks.js';
import { emptyArticle } from '../../src/extract/extract.js';
import type { Fetcher } from '../../src/net/fetcher.js';
import { createLogger } from '../../src/util/logger.js';
import { waitFor } from '../helpers/cli.js';

// The extractor's slots against a real archive, with the CPU work stood in for: a learning that
// never ends must hold its own feed, not the slots every other feed's pages wait for.

test('a slow learning holds its feed, not the extraction slots: the other feeds\' pages go on being extracted', async () => {
  await loadCodec();
  const db = openDatabase(':memory:');
  runOn(db, syncSubscriptions([1, 2, 3].map((n) => ({ url: `https://f${n}.example/feed`, tags: [], enabled: true }))));
  const capture = (feedId: number, n: number, minute: number) => {
    const at = new Date(Date.UTC(2026, 10, 2, 0, minute));
    runOn(db, upsertItems(feedId, [{ guid: `${feedId}-${n}`, link: `https://f${feedId}.example/${n}`, origLink: null, title: `page ${n}`, summary: null, content: null, author: null, categories: [], enclosures: [], published: null, updated: null }], at, true));
    const itemId = db.prepare('SELECT id FROM items WHERE feed_id = ? AND guid = ?').pluck().get(feedId, `${feedId}-${n}`) as number;
    runOn(db, recordCapture(itemId, {
      url: `https://f${feedId}.example/${n}`, finalUrl: `https://f${feedId}.example/${n}`, status: 200, headers: {}, contentType: 'text/html',
      redirects: [], permanentUrl: null, notModified: false, retryAfterMs: null, fetchedAt: at, durationMs: 1,
    }, encodeBody(Buffer.from(`<html><body><p>page ${n} of feed ${feedId}</p></body></html>`))));
  };
  // Feeds 2 and 3 have a page each; feed 1 three newer ones (extracted first, newest first): its
  // third page makes a wrapper due (extract.learnAfter is 3), and that learning hangs.
  capture(2, 1, 0);
  capture(3, 1, 1);
  for (const n of [1, 2, 3]) capture(1, n, 10 + n);

  let release!: () => void;
  const hanging = new Promise<void>((resolve) => (release = resolve));
  let learnings = 0;
  const pool: CpuPool = {
    threads: 1,
    threadIds: [],
    extract: async (task): Promise<ExtractOutcome> => ({
      canonicalUrl: null, template: task.templates[0] ? { id: task.templates[0].id } : { signature: ['html', 'body', 'p'] }, wrapperId: null,
      article: emptyArticle('stood in for'), object: null, hash: null, packed: null, comparison: { kind: 'first' },
    }),
    learn: async (): Promise<LearnOutcome> => {
      learnings++;
      await hanging;
      return { wrapper: null, check: null, unchanged: false, samples: 3, changed: [] };
    },
    encode: () => Promise.reject(new Error('not used')),
    revisit: () => Promise.reject(new Error('not used')),
    rebase: () => Promise.reject(new Error('not used')),
    parseFeed: () => Promise.reject(new Error('not used')),
    discover: () => Promise.reject(new Error('not used')),
    close: async () => {},
  };
  const settings = loadSettings({ env: {} });
  const context = { store: new SqliteStore(db, ':memory:'), pool, settings, log: createLogger({ level: 'silent', pretty: false }), fetcher: {} as Fetcher };
  // One slot, refilled whenever a job ends (as the daemon does).
  const extractor = new Extractor(context, 1);
  const jobs = new Set<Promise<unknown>>();
  const track = (_key: string, work: Promise<unknown>) => {
    const job: Promise<unknown> = work.catch(() => undefined).finally(() => {
      jobs.delete(job);
      extractor.fill(track);
    });
    jobs.add(job);
  };
  extractor.fill(track);

  const extractedOf = (feedId: number) => db.prepare('SELECT COUNT(*) FROM extractions JOIN items ON items.id = extractions.item_id WHERE items.feed_id = ?').pluck().get(feedId) as number;
  await waitFor(() => learnings === 1, 5000, 'feed 1\'s learning to start');
  await waitFor(() => extractedOf(2) === 1 && extractedOf(3) === 1, 5000, 'feeds 2 and 3 extracted while feed 1\'s learning runs');
  assert.equal(extractedOf(1), 3);
  release();
  await waitFor(() => jobs.size === 0, 5000, 'the learning to end');
  db.close();
});
