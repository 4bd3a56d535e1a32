import assert from 'node:assert/strict';
import { test } from 'node:test';
import { feedEventOf } from '../../src/daemon/feed-events.js';
import { DAEMON_OPTIONS } from '../../src/daemon/options.js';

test('a feed is gone at its first 404/410 after a poll that did not fail, and failing at its third failure in a row — each once per run of failures', () => {
  assert.equal(feedEventOf({ errorsBefore: 0, errorsAfter: 1, status: 410 }), 'gone');
  assert.equal(feedEventOf({ errorsBefore: 0, errorsAfter: 1, status: 404 }), 'gone');
  assert.equal(feedEventOf({ errorsBefore: 1, errorsAfter: 2, status: 410 }), null, 'said already (or it failed before it went)');
  assert.equal(feedEventOf({ errorsBefore: 0, errorsAfter: 1, status: 500 }), null, 'one failure is weather');
  const n = DAEMON_OPTIONS.feedEvents.failingAfter;
  assert.equal(feedEventOf({ errorsBefore: n - 1, errorsAfter: n, status: 500 }), 'failing');
  assert.equal(feedEventOf({ errorsBefore: n - 1, errorsAfter: n, status: null }), 'failing', 'a timeout counts');
  assert.equal(feedEventOf({ errorsBefore: n, errorsAfter: n + 1, status: 500 }), null, 'said once');
  assert.equal(feedEventOf({ errorsBefore: n - 1, errorsAfter: n, status: 410 }), null, 'gone, and said so: not failing as well');
  assert.equal(feedEventOf({ errorsBefore: n - 1, errorsAfter: n - 1, status: null }), null, 'a failure not counted against the feed (Forest was behind)');
  assert.equal(feedEventOf({ errorsBefore: 5, errorsAfter: 0, status: 200 }), null);
});
