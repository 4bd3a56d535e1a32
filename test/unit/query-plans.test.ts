import assert from 'node:assert/strict';
import { runOn } from '../../src/archive/sqlite/sql.js';
import { test } from 'node:test';
import { recentChanges } from '../../src/archive/sqlite/access.js';
import { capturesOfUrl } from '../../src/archive/rules/access.js';
import { articlesAfter } from '../../src/archive/sqlite/article-lists.js';
import { articleById, articleOfItem, checksOf, comparisonKeyOf, versionOf } from '../../src/archive/rules/articles.js';
import { storedBlob } from '../../src/archive/rules/captures.js';
import { requisiteAt, requisiteHistories } from '../../src/archive/rules/requisites.js';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { migrate, openDatabase, type Db } from '../../src/archive/sqlite/database.js';
import { readMigrations } from '../../src/archive/migrations.js';
import { itemExtractedBefore, recentSnapshotsOfTemplate, snapshotById, templateChoicesOf } from '../../src/archive/rules/extractions.js';
import { feedById, feedCounts } from '../../src/archive/sqlite/feeds.js';
import { itemById, knownGuids } from '../../src/archive/rules/items.js';
import { backlog, dueCaptures, duePolls, dueRevisits, nextWorkAt, queuedExtractions } from '../../src/archive/sqlite/queues.js';
import { latestPayloadDigest } from '../../src/archive/rules/captures.js';
import { fillArchive } from '../helpers/big-archive.js';

/** SQLite's plan for a statement, a line per step. */
const planOf = (db: Db, sql: string, args: unknown[]): string[] =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as Array<{ detail: string }>).map((row) => row.detail);

/** The WHERE clause of a partial index ('1' for a full one): the rows it holds. */
const indexedRows = (db: Db, index: string): string =>
  / WHERE (.*)$/s.exec(db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?").pluck().get(index) as string)?.[1] ?? '1';

/** Records every statement prepared through `db`, with the arguments it ran with. */
function recording(db: Db): { db: Db; statements: Array<{ sql: string; args: unknown[] }> } {
  const statements: Array<{ sql: string; args: unknown[] }> = [];
  const proxy = new Proxy(db, {
    get(target, property, receiver) {
      if (property !== 'prepare') return Reflect.get(target, property, receiver) as unknown;
      return (sql: string) => {
        const statement = target.prepare(sql);
        const watched: typeof statement = new Proxy(statement, {
          get(inner, name, innerReceiver) {
            const value = Reflect.get(inner, name, innerReceiver) as unknown;
            if (typeof value !== 'function') return value;
            if (name === 'all' || name === 'get' || name === 'run' || name === 'iterate') {
              return (...args: unknown[]) => {
                statements.push({ sql, args });
                return (value as (...a: unknown[]) => unknown).apply(inner, args);
              };
            }
            // pluck(), raw() … return the statement itself: keep recording through the proxy.
            return (...args: unknown[]) => {
              (value as (...a: unknown[]) => unknown).apply(inner, args);
              return watched;
            };
          },
        });
        return watched;
      };
    },
  });
  return { db: proxy, statements };
}

test('every query a scheduler pass runs is an index lookup on an archive of 1,000,000 snapshots', () => {
  const db = openDatabase(':memory:');
  const { snapshots } = fillArchive(db, { feeds: 2000, itemsPerFeed: 100, snapshotsPerItem: 5 });
  assert.ok(snapshots >= 1_000_000);
  const now = new Date('2026-11-22T12:00:00Z');
  const { db: watched, statements } = recording(db);

  // The pass itself.
  const polls = duePolls(watched, now, 64);
  const captures = dueCaptures(watched, now, 64);
  const revisits = dueRevisits(watched, now, 64);
  nextWorkAt(watched, { capture: true, revisit: true });
  const queued = queuedExtractions(watched, 64);
  assert.ok(polls.length > 0 && captures.length > 0 && revisits.length > 0 && queued.length > 0, 'every queue has due work');
  // Starting the work it found, and what each unit looks up.
  const feed = feedById(watched, polls[0]!.id)!;
  runOn(watched, knownGuids(feed.id, ['guid-1', 'guid-2']));
  runOn(watched, itemById(captures[0]!.id));
  const article = runOn(watched, articleById(revisits[0]!.id))!;
  runOn(watched, latestPayloadDigest(article.item_id));
  const snapshot = runOn(watched, snapshotById(queued[0]!.snapshotId))!;
  runOn(watched, storedBlob(snapshot.sha256!));
  const existing = runOn(watched, articleOfItem(snapshot.item_id));
  if (existing) runOn(watched, comparisonKeyOf(existing));
  runOn(watched, comparisonKeyOf(article));
  runOn(watched, templateChoicesOf(snapshot.feed_id));
  runOn(watched, itemExtractedBefore(snapshot.item_id, snapshot.snapshot_id));
  runOn(watched, recentSnapshotsOfTemplate(1, 10));

  assert.ok(statements.length >= 15);
  assertIndexLookups(db, statements);
  db.close();
});

/** No statement scans a table (other than the extraction queue, walked in key order) or sorts its whole result. */
function assertIndexLookups(db: Db, statements: Array<{ sql: string; args: unknown[] }>, options: { sortsOwnResult?: boolean } = {}): void {
  for (const { sql, args } of statements) {
    const plan = planOf(db, sql, args);
    // A walk of a queue table in key order is bounded by its LIMIT (every row is work); a walk of
    // any other table is a scan of history. json_each walks one row's JSON (a feed's tags).
    const scans = plan.filter((line) => (/^SCAN \w+$/.test(line) || /^SCAN \w+ (?!USING)/.test(line)) && line !== 'SCAN extraction_queue' && !line.startsWith('SCAN json_each VIRTUAL TABLE'));
    assert.deepEqual(scans, [], `${sql}\n${plan.join('\n')}`);
    if (!options.sortsOwnResult) assert.ok(!plan.some((line) => /USE TEMP B-TREE/.test(line)), `sorts its whole result: ${sql}\n${plan.join('\n')}`);
  }
}

test('what the web app reads is index lookups too: a page of articles after a cursor, the change feed, the captures of a URL', () => {
  const db = openDatabase(':memory:');
  fillArchive(db, { feeds: 500, itemsPerFeed: 100, snapshotsPerItem: 5 });
  const { db: watched, statements } = recording(db);
  const page = articlesAfter(watched, {}, null, 50);
  assert.equal(page.length, 50);
  articlesAfter(watched, { since: '2026-01-01T00:00:00.000Z' }, { firstCaptured: page.at(-1)!.firstCaptured, id: page.at(-1)!.id }, 50);
  recentChanges(watched, {}, 50);
  runOn(watched, versionOf(page[0]!.id, 1));
  runOn(watched, checksOf(page[0]!.id));
  assertIndexLookups(db, statements);
  // The captures of one URL have no LIMIT: all of them are the answer, found by index and sorted
  // among themselves (a handful of rows, whatever the archive's size).
  statements.length = 0;
  // (A capture is filed under the URL it was fetched at: the fixture's are http://x/<snapshot id>.)
  assert.ok(runOn(watched, capturesOfUrl('http://x/5')).length > 0);
  assertIndexLookups(db, statements, { sortsOwnResult: true });
  db.close();
});

test('status reads each table once: the checks not at all, the failed pages by their own index, the articles in table order', () => {
  const db = openDatabase(':memory:');
  fillArchive(db, { feeds: 50, itemsPerFeed: 20, snapshotsPerItem: 2 });
  const { db: watched, statements } = recording(db);
  feedCounts(watched);
  const plans = statements.map((statement) => ({ sql: statement.sql, plan: planOf(db, statement.sql, statement.args).join('; ') }));
  assert.ok(plans.every((entry) => !/\bchecks\b/.test(entry.sql.replace(/AS checks|SUM\(checks\)/g, ''))), 'the checks table is not read');
  const errors = plans.find((entry) => entry.sql.includes('page_error'))!;
  assert.match(errors.plan, /USING INDEX items_page_error/, 'only the items whose page failed are read');
  const articles = plans.find((entry) => entry.sql.includes('FROM articles'))!;
  // Through an index on feed_id each article would be a lookup of its own.
  assert.match(articles.plan, /^SCAN articles; USE TEMP B-TREE FOR GROUP BY$/);
  db.close();
});

test('the poll and revisit queues are searched by due time: a pass reads the due rows, not every feed', () => {
  // A walk of the due index in order stops at LIMIT only when enough rows are due; when few are
  // (the usual case), a condition the index cannot search on makes it read every entry — every
  // feed, on every pass. The plan must be a search with a bound on the due column.
  const db = openDatabase(':memory:');
  fillArchive(db, { feeds: 2000, itemsPerFeed: 2, snapshotsPerItem: 1 });
  const { db: watched, statements } = recording(db);
  const now = new Date('2026-11-22T12:00:00Z');
  assert.ok(duePolls(watched, now, 64).length > 0);
  assert.ok(dueRevisits(watched, now, 64).length > 0);
  assert.ok(statements.length >= 2);
  for (const { sql, args } of statements) {
    const plan = planOf(db, sql, args);
    const due = plan.filter((line) => /USING INDEX (feeds_due|feeds_at_risk|articles_due)/.test(line));
    assert.ok(due.length > 0, `uses its due index: ${sql}\n${plan.join('\n')}`);
    for (const line of due) assert.match(line, /^SEARCH \w+ USING INDEX \w+ \((next_poll_at|next_check_at|poll_risk_at)[=<>]/, `${sql}\n${plan.join('\n')}`);
  }
  db.close();
});

/** Of the rows the partial index a plan searches holds, those whose feed is disabled. */
function disabledRowsInSearchedIndexes(db: Db, statements: Array<{ sql: string; args: unknown[] }>, table: 'items' | 'articles'): number {
  let rows = 0;
  for (const { sql, args } of statements) {
    const plan = planOf(db, sql, args);
    for (const line of plan) {
      const index = new RegExp(`^(?:SCAN|SEARCH) ${table} USING (?:COVERING )?INDEX (\\w+)`).exec(line)?.[1];
      if (!index) continue;
      rows += db.prepare(`SELECT COUNT(*) FROM ${table} JOIN feeds ON feeds.id = ${table}.feed_id WHERE (${indexedRows(db, index)}) AND feeds.enabled = 0`).pluck().get() as number;
    }
  }
  return rows;
}

test("a disabled feed's work leaves the queues a pass searches, and comes back when the feed is enabled again", () => {
  // Its pending pages and due revisits never become work while it is disabled: left in the
  // queues' indexes, every pass would read them again, for as long as the archive lives.
  const db = openDatabase(':memory:');
  fillArchive(db, { feeds: 200, itemsPerFeed: 100, snapshotsPerItem: 1 });
  const now = new Date('2026-11-22T12:00:00Z');
  const owners = (table: 'items' | 'articles', refs: Array<{ id: number }>) =>
    new Set(refs.map((ref) => db.prepare(`SELECT feed_id FROM ${table} WHERE id = ?`).pluck().get(ref.id) as number));
  const before = { captures: owners('items', dueCaptures(db, now, 1000)), revisits: owners('articles', dueRevisits(db, now, 1000)) };
  const disabled = [...before.captures, ...before.revisits].filter((feed) => feed % 2 === 0);
  assert.ok(disabled.length >= 2);
  db.prepare(`UPDATE feeds SET enabled = 0 WHERE id IN (${disabled.join(',')})`).run();
  // An item that arrives for a disabled feed (a poll in flight when it was disabled) stays out too.
  db.prepare("INSERT INTO items (feed_id, guid, link, first_seen, last_seen, page_state, page_attempts) VALUES (?, 'late', 'http://x/late', ?, ?, 'pending', 0)").run(disabled[0], now.toISOString(), now.toISOString());

  const { db: watched, statements } = recording(db);
  const captures = owners('items', dueCaptures(watched, now, 1000));
  const revisits = owners('articles', dueRevisits(watched, now, 1000));
  assert.ok(disabled.every((feed) => !captures.has(feed) && !revisits.has(feed)));
  assert.equal(disabledRowsInSearchedIndexes(db, statements, 'items'), 0);
  assert.equal(disabledRowsInSearchedIndexes(db, statements, 'articles'), 0);

  db.prepare(`UPDATE feeds SET enabled = 1 WHERE id IN (${disabled.join(',')})`).run();
  const again = { captures: owners('items', dueCaptures(db, now, 1000)), revisits: owners('articles', dueRevisits(db, now, 1000)) };
  assert.deepEqual(again, { captures: new Set([...before.captures, disabled[0]!]), revisits: before.revisits });
  db.close();
});

test('pages waiting out a retry delay are searched by when they are due, not read by every pass', () => {
  // A dead host's pages fail and wait (capture.retryDelay): walked in the order of new work,
  // every pass would read each of them until its time comes.
  const db = openDatabase(':memory:');
  fillArchive(db, { feeds: 200, itemsPerFeed: 100, snapshotsPerItem: 1 });
  const now = new Date('2026-11-22T12:00:00Z');
  const later = new Date(now.getTime() + 600_000).toISOString();
  const earlier = new Date(now.getTime() - 1000).toISOString();
  db.prepare("UPDATE items SET page_state = 'pending', page_attempts = 1, page_due_at = ? WHERE id % 100 = 7").run(later);
  db.prepare("UPDATE items SET page_state = 'pending', page_attempts = 1, page_due_at = ? WHERE id % 100 = 8").run(earlier);
  const { db: watched, statements } = recording(db);
  const captures = dueCaptures(watched, now, 1000);
  const ids = new Set(captures.map((ref) => ref.id));
  assert.ok([...ids].some((id) => id % 100 === 8), 'a retry that is due is work');
  assert.ok(![...ids].some((id) => id % 100 === 7), 'a retry that is not due is not');
  // New pages first, newest first; then the retries, marked (issue #52: a retry never goes before a first attempt).
  const firstRetry = captures.findIndex((ref) => ref.retry);
  assert.ok(firstRetry > 0 && captures.slice(firstRetry).every((ref) => ref.retry && ref.id % 100 === 8), 'the retries come last');
  const appeared = captures.slice(0, firstRetry).map((ref) => db.prepare('SELECT min(coalesce(published, first_seen), first_seen) FROM items WHERE id = ?').pluck().get(ref.id) as string);
  assert.deepEqual(appeared, [...appeared].sort().reverse());
  for (const { sql, args } of statements) {
    const plan = planOf(db, sql, args);
    for (const line of plan) {
      const walked = /^SCAN items USING (?:COVERING )?INDEX (\w+)/.exec(line)?.[1];
      if (!walked) continue;
      const waiting = db.prepare(`SELECT COUNT(*) FROM items WHERE (${indexedRows(db, walked)}) AND page_due_at > ?`).pluck().get(now.toISOString()) as number;
      assert.equal(waiting, 0, `the walk of ${walked} reads pages that are not due: ${sql}`);
    }
  }
  db.close();
});

test("the status backlog counts what the queues hold: never-polled and overdue feeds, new and due retried pages, no disabled feed's work", () => {
  const db = openDatabase(':memory:');
  fillArchive(db, { feeds: 200, itemsPerFeed: 100, snapshotsPerItem: 1 });
  const now = new Date('2026-11-22T12:00:00Z');
  db.prepare('UPDATE feeds SET next_poll_at = NULL WHERE id % 10 = 3').run();
  db.prepare("UPDATE items SET page_state = 'pending', page_attempts = 1, page_due_at = ? WHERE id % 100 = 8").run(new Date(now.getTime() - 1000).toISOString());
  db.prepare('UPDATE feeds SET enabled = 0 WHERE id % 10 = 5').run();
  const all = 1_000_000;
  assert.deepEqual(backlog(db, now), {
    duePolls: duePolls(db, now, all).length,
    pendingCaptures: dueCaptures(db, now, all).length,
    dueRevisits: dueRevisits(db, now, all).length,
    queuedExtractions: db.prepare('SELECT COUNT(*) FROM extraction_queue').pluck().get(),
    queuedRequisites: db.prepare('SELECT COUNT(*) FROM requisite_queue').pluck().get(),
  });
  assert.ok(duePolls(db, now, all).filter((ref) => ref.id % 10 === 3).length === 20, 'never-polled feeds count');
  db.close();
});

test('migration 0014 takes an existing archive\'s disabled feeds out of the queues and gives legacy pending pages a due time', () => {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  const migrations = readMigrations();
  migrate(db, migrations.filter((migration) => migration.version < 14));
  const stamp = '2026-11-22T12:00:00.000Z';
  const feed = db.prepare('INSERT INTO feeds (subscribed_url, url, enabled, subscribed, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?)');
  feed.run('http://a/feed', 'http://a/feed', 1, stamp, stamp);
  feed.run('http://b/feed', 'http://b/feed', 0, stamp, stamp);
  const item = db.prepare("INSERT INTO items (feed_id, guid, link, first_seen, last_seen, page_state, page_attempts, page_due_at) VALUES (?, ?, 'http://x/', ?, ?, 'pending', 0, NULL)");
  item.run(1, 'a1', stamp, stamp);
  item.run(2, 'b1', stamp, stamp);
  assert.deepEqual(migrate(db, migrations), [...migrations.map((migration) => migration.version).filter((version) => version >= 14)]);
  assert.deepEqual(db.prepare('SELECT guid, feed_enabled AS enabled, page_due_at AS due FROM items ORDER BY guid').all(), [
    { guid: 'a1', enabled: 1, due: stamp },
    { guid: 'b1', enabled: 0, due: stamp },
  ]);
  assert.deepEqual(dueCaptures(db, new Date('2026-11-22T12:01:00Z'), 10).map((ref) => ref.id), [1]);
  db.close();
});

test("a requisite's last kept fetch is an index search that does not walk the fetches that kept nothing", () => {
  // An image whose host refused it gains a row at every capture that names it, none with bytes:
  // a walk of requisites_url that filters on sha256 reads all of them for each lookup.
  const db = openDatabase(':memory:');
  fillArchive(db, { feeds: 10, itemsPerFeed: 50, snapshotsPerItem: 1 });
  const snapshots = z.array(z.number()).parse(db.prepare('SELECT id FROM snapshots').pluck().all());
  const insert = db.prepare("INSERT INTO requisites (snapshot_id, url, kind, via, fetched_at, error) VALUES (?, 'http://refused.test/badge.gif', 'image', 'img', ?, 'refused')");
  for (const snapshot of snapshots) insert.run(snapshot, '2026-11-01T00:00:00.000Z');
  db.exec('ANALYZE');
  const { db: watched, statements } = recording(db);
  runOn(watched, requisiteHistories(['http://refused.test/badge.gif']));
  runOn(watched, requisiteAt('http://refused.test/badge.gif', new Date('2026-11-02T00:00:00Z')));
  const kept = statements.flatMap(({ sql, args }) => planOf(db, sql, args)).filter((line) => /USING (COVERING )?INDEX requisites_/.test(line));
  assert.ok(kept.length >= 3, kept.join('\n'));
  // The last fetch of any kind by requisites_url; every lookup of a kept one by requisites_kept.
  assert.equal(kept.filter((line) => /INDEX requisites_kept /.test(line)).length, 3, kept.join('\n'));
  db.close();
});
