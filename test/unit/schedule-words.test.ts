import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scheduleInWords } from '../../src/schedule/words.js';

// Issue #53: the schedule as an archivist reads it, not the scheduler's λ and W.

const feed = (ratePerHour: number | null, minutes: number | null, enabled = true) => ({
  enabled, ratePerHour, lastPoll: '2026-11-28T10:00:00.000Z', nextPoll: minutes === null ? null : new Date(Date.parse('2026-11-28T10:00:00.000Z') + minutes * 60_000).toISOString(),
});

test('a feed\'s schedule in words: its pace, and how often it is polled', () => {
  assert.equal(scheduleInWords(feed(3.4, 20)), 'about 3.4 new items an hour: polled every 20 min');
  assert.equal(scheduleInWords(feed(12.2, 5)), 'about 12 new items an hour: polled every 5 min');
  assert.equal(scheduleInWords(feed(3.4, 20.6)), 'about 3.4 new items an hour: polled every 21 min', 'no seconds');
  assert.equal(scheduleInWords(feed(0.5, 150)), 'about 12 new items a day: polled every 2.5 h');
  assert.equal(scheduleInWords(feed(0.25, 180)), 'about 6 new items a day: polled every 3 h');
  assert.equal(scheduleInWords(feed(1 / 24, 24 * 60)), 'about 1 new item a day: polled every 1 day');
  assert.equal(scheduleInWords(feed(0.004, 24 * 60)), 'about 0.7 new items a week: polled every 1 day');
  assert.equal(scheduleInWords(feed(null, 30)), 'its pace is not known yet: polled every 30 min');
  assert.equal(scheduleInWords(feed(3, 20, false)), 'paused');
  assert.equal(scheduleInWords(feed(0.0001, null)), 'hardly any new items');
  assert.doesNotMatch(scheduleInWords(feed(3.4, 20)), /λ|W=|overflow/);
});
