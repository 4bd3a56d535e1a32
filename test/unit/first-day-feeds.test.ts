import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstDayItems } from '../../bench/scale/pages.js';

const STARTED = Date.UTC(2026, 11, 4);

test('a first-day feed: a quiet feed shows its backlog item alone; a hot feed its rhythm, newest first', () => {
  assert.deepEqual(firstDayItems(7, STARTED + 3_600_000, { started: STARTED, period: null, window: 10 }).map((item) => item.n), [0]);
  const hot = firstDayItems(3, STARTED, { started: STARTED, period: 20_000, window: 10 });
  assert.deepEqual(hot.map((item) => item.n), [1000, 999, 998, 997, 996, 995, 994, 993, 992, 0]);
  assert.deepEqual(hot.slice(0, -1).map((item) => item.published), [0, 1, 2, 3, 4, 5, 6, 7, 8].map((k) => STARTED - k * 20_000));
});

test('a hot feed keeps its backlog item however many items came after it (a first poll late by minutes still finds it)', () => {
  // 100 s after the start at one item every 20 s: five new items; ten minutes after, thirty.
  for (const [after, newest] of [[100_000, 1005], [600_000, 1030]] as const) {
    const items = firstDayItems(3, STARTED + after, { started: STARTED, period: 20_000, window: 10 });
    assert.equal(items.length, 10);
    assert.equal(items[0]!.n, newest);
    assert.deepEqual(items.at(-1), { guid: 'b-3', n: 0, published: STARTED - 86_400_000 - 3_000 });
    assert.equal(new Set(items.map((item) => item.guid)).size, 10);
  }
});
