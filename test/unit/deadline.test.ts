import assert from 'node:assert/strict';
import { test } from 'node:test';
import { settlesWithin } from '../../src/util/deadline.js';

test('settlesWithin: true when the work resolves or rejects in time, false when it is still pending at the deadline', async () => {
  assert.equal(await settlesWithin(new Promise((resolve) => setTimeout(resolve, 5)), 1000), true);
  assert.equal(await settlesWithin(Promise.reject(new Error('failed in time')), 1000), true);
  const started = Date.now();
  assert.equal(await settlesWithin(new Promise(() => {}), 50), false);
  assert.ok(Date.now() - started >= 45, 'it waited for the deadline');
});
