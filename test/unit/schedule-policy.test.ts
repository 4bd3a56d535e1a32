import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cronProblem, nextCronTime } from '../../src/schedule/cron.js';
import { nextPoll, type ScheduleSettings } from '../../src/schedule/policy.js';

const MIN = 60_000;
const settings: ScheduleSettings = { defaultInterval: 30 * MIN, minInterval: 5 * MIN, maxInterval: 24 * 60 * MIN, maxBackoff: 6 * 60 * MIN, jitter: 0 };
const now = new Date('2026-11-02T10:07:30Z');
const state = { cron: null, consecutiveErrors: 0, ttlMinutes: null };

test('a healthy feed polls at the default interval', () => {
  const decision = nextPoll(state, { ok: true, retryAfterMs: null }, now, settings);
  assert.equal(decision.at.getTime() - now.getTime(), 30 * MIN);
  assert.match(decision.reason, /fixed interval 30m/);
});

test('failures back off exponentially up to the cap', () => {
  const gaps = [1, 2, 3, 4, 5, 6, 10].map((n) => nextPoll({ ...state, consecutiveErrors: n }, { ok: false, retryAfterMs: null }, now, settings).at.getTime() - now.getTime());
  assert.deepEqual(gaps.map((gap) => gap / MIN), [30, 60, 120, 240, 360, 360, 360]);
});

test('Retry-After is honoured even above the maximum interval', () => {
  const decision = nextPoll(state, { ok: false, retryAfterMs: 30 * 60 * MIN }, now, settings);
  assert.equal(decision.at.getTime() - now.getTime(), 30 * 60 * MIN);
  assert.match(decision.reason, /Retry-After/);
});

test('RSS ttl is a floor', () => {
  const decision = nextPoll({ ...state, ttlMinutes: 90 }, { ok: true, retryAfterMs: null }, now, settings);
  assert.equal(decision.at.getTime() - now.getTime(), 90 * MIN);
});

test('jitter stays within the configured spread', () => {
  const jittered = { ...settings, jitter: 0.1 };
  const low = nextPoll(state, null, now, jittered, () => 0).at.getTime() - now.getTime();
  const high = nextPoll(state, null, now, jittered, () => 0.999999).at.getTime() - now.getTime();
  assert.equal(low, 27 * MIN);
  assert.ok(high > 32.9 * MIN && high <= 33 * MIN);
});

test('a cron expression overrides the interval', () => {
  const decision = nextPoll({ ...state, cron: '*/15 * * * *' }, null, now, settings);
  assert.equal(decision.at.getMinutes(), 15);
  assert.equal(decision.at.getSeconds(), 0);
  assert.ok(decision.at.getTime() - now.getTime() < 8 * MIN);
});

test('nextCronTime finds weekday and hour matches', () => {
  const friday = new Date(2026, 10, 6, 18, 0, 0); // Friday 18:00 local
  const next = nextCronTime('0 9 * * 1-5', friday);
  assert.equal(next.getDay(), 1);
  assert.equal(next.getHours(), 9);
  assert.equal(next.getMinutes(), 0);
});

test('cronProblem explains invalid expressions', () => {
  assert.equal(cronProblem('*/5 * * * *'), null);
  assert.match(cronProblem('61 * * * *') ?? '', /minute/);
});
