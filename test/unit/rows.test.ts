import assert from 'node:assert/strict';
import { syncSubscriptions } from '../../src/archive/rules/feeds.js';
import { runOn } from '../../src/archive/sqlite/sql.js';
import { test } from 'node:test';
import { z } from 'zod';
import { articleById } from '../../src/archive/rules/articles.js';
import { openDatabase } from '../../src/archive/sqlite/database.js';
import { feedById } from '../../src/archive/sqlite/feeds.js';
import { upsertItems } from '../../src/archive/rules/items.js';
import { backlog } from '../../src/archive/sqlite/queues.js';
import { json } from '../../src/archive/rows.js';

/**
 * Rows are checked against their schema as they are read (src/archive/rows.ts): a column that
 * holds another type than the code expects fails at its query, naming it, instead of flowing on.
 */

test('a row whose column holds another type fails at its query, naming the query and the column', () => {
  const db = openDatabase(':memory:');
  runOn(db, syncSubscriptions([{ url: 'http://127.0.0.1/feed.xml', tags: [], enabled: true }]));
  const id = Number(db.prepare('SELECT id FROM feeds').pluck().get());
  assert.equal(feedById(db, id)?.url, 'http://127.0.0.1/feed.xml', 'a sound row reads as before');
  // SQLite stores what it is given: a text where an integer belongs goes in without complaint.
  db.prepare("UPDATE feeds SET error_count = 'many' WHERE id = ?").run(id);
  assert.throws(() => feedById(db, id), /feedById: .*error_count/);
  assert.equal(runOn(db, articleById(12345)), undefined, 'no row is still no row');
  assert.deepEqual(backlog(db, new Date()), { duePolls: 1, pendingCaptures: 0, dueRevisits: 0, queuedExtractions: 0, queuedRequisites: 0 });
  db.close();
});

test('a JSON column that does not hold what it should names itself', () => {
  assert.deepEqual(json(z.array(z.string()), '["a","b"]', 'feed 1 (tags)'), ['a', 'b']);
  assert.throws(() => json(z.array(z.string()), '[1]', 'feed 1 (tags)'), /feed 1 \(tags\) does not hold what it should/);
  assert.throws(() => json(z.array(z.string()), '[', 'feed 1 (tags)'), /feed 1 \(tags\) holds invalid JSON/);
});

test('upserting items reads back what it stored', () => {
  const db = openDatabase(':memory:');
  runOn(db, syncSubscriptions([{ url: 'http://127.0.0.1/feed.xml', tags: [], enabled: true }]));
  const feedId = Number(db.prepare('SELECT id FROM feeds').pluck().get());
  const item = { guid: 'g1', link: 'http://127.0.0.1/a', origLink: null, title: 'A', summary: null, content: null, author: null, categories: [], enclosures: [], published: null, updated: null };
  const first = runOn(db, upsertItems(feedId, [item], new Date(), true));
  const again = runOn(db, upsertItems(feedId, [{ ...item, title: 'A, edited' }], new Date(), true));
  assert.equal(first.newItems, 1);
  assert.deepEqual([again.newItems, again.changedItems], [0, 1]);
  db.close();
});
