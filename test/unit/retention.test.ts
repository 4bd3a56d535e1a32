import assert from 'node:assert/strict';
import { runOn } from '../../src/archive/sqlite/sql.js';
import { syncSubscriptions } from '../../src/archive/rules/feeds.js';
import { test } from 'node:test';
import { openDatabase } from '../../src/archive/sqlite/database.js';
import { applyRetention } from '../../src/archive/sqlite/retention.js';

const DAY = 24 * 3600_000;

test('polls and nothing-new checks older than their ages become per-day counts; versions and their checks stay', () => {
  const db = openDatabase(':memory:');
  runOn(db, syncSubscriptions([{ url: 'https://a.example/', tags: [], enabled: true }]));
  const now = new Date('2026-11-22T12:00:00Z');
  const at = (daysAgo: number, hour = 0) => new Date(now.getTime() - daysAgo * DAY + hour * 3600_000).toISOString();
  const poll = db.prepare("INSERT INTO polls (feed_id, started_at, duration_ms, url, result, new_items) VALUES (1, ?, 5, 'https://a.example/', ?, ?)");
  for (let i = 0; i < 6; i++) poll.run(at(100, i), i === 0 ? 'error' : i % 2 ? 'ok' : 'not-modified', i % 2);
  poll.run(at(1), 'ok', 3);
  db.prepare("INSERT INTO items (id, feed_id, guid, first_seen, last_seen) VALUES (1, 1, 'g', ?, ?)").run(at(300), at(300));
  db.prepare("INSERT INTO articles (id, item_id, feed_id, url, versions, first_captured) VALUES (1, 1, 1, 'https://a.example/1', 1, ?)").run(at(300));
  const check = db.prepare('INSERT INTO checks (article_id, at, status, result, version_n) VALUES (1, ?, 200, ?, 1)');
  check.run(at(300), 'changed');
  for (let i = 0; i < 4; i++) check.run(at(200, i), i === 3 ? 'failed' : 'unchanged');
  check.run(at(2), 'unchanged');

  const report = applyRetention(db, { polls: 90 * DAY, checks: 180 * DAY }, now);
  assert.deepEqual(report, { polls: 6, checks: 4 });
  assert.deepEqual(db.prepare('SELECT day, polls, ok, not_modified, errors, new_items FROM poll_days').all(),
    [{ day: at(100).slice(0, 10), polls: 6, ok: 3, not_modified: 2, errors: 1, new_items: 3 }]);
  assert.deepEqual(db.prepare('SELECT day, unchanged, failed FROM check_days').all(), [{ day: at(200).slice(0, 10), unchanged: 3, failed: 1 }]);
  assert.equal(db.prepare('SELECT COUNT(*) FROM polls').pluck().get(), 1, 'the recent poll stays');
  assert.deepEqual(db.prepare('SELECT result FROM checks ORDER BY at').pluck().all(), ['changed', 'unchanged'], 'the check that made a version and the recent one stay');
  assert.deepEqual(applyRetention(db, { polls: 90 * DAY, checks: 180 * DAY }, now), { polls: 0, checks: 0 }, 'a second pass finds nothing');
  assert.deepEqual(applyRetention(db, { polls: null, checks: null }, new Date(now.getTime() + 1000 * DAY)), { polls: 0, checks: 0 }, 'never keeps everything');
  db.close();
});
