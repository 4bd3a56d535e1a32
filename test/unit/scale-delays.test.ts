import assert from 'node:assert/strict';
import { test } from 'node:test';
import { quantile } from '../../bench/quantile.js';
import { settledDelays } from '../../bench/scale/delays.js';

const END = Date.UTC(2026, 10, 27, 12, 8);
const at = (secondsBeforeEnd: number) => END - secondsBeforeEnd * 1000;

test('items published too close to the end are left out, and an uncaptured one counts as late', () => {
  const items = [
    { published: at(400), fetched: at(250) }, // 150 s
    { published: at(300), fetched: at(240) }, // 60 s
    { published: at(200), fetched: null }, // never captured: past any target
    { published: at(100), fetched: at(90) }, // too recent: a short delay only because it was lucky
    { published: at(50), fetched: null }, // too recent to judge
  ];
  assert.deepEqual(settledDelays(items, END, 180), [150, 60, Number.POSITIVE_INFINITY]);
  // Over the captured items alone the quantile hides the item still waiting for its poll.
  const capturedOnly = items.flatMap((item) => (item.fetched === null ? [] : [(item.fetched - item.published) / 1000]));
  assert.equal(quantile(capturedOnly, 0.95), 150);
  assert.equal(quantile(settledDelays(items, END, 180), 0.95), Number.POSITIVE_INFINITY);
});

test('with no settling time every item counts', () => {
  const items = [{ published: at(10), fetched: at(5) }];
  assert.deepEqual(settledDelays(items, END, 0), [5]);
  assert.deepEqual(settledDelays(items, END, 11), []);
});
