import assert from 'node:assert/strict';
import { test } from 'node:test';
import { atCapacity, capacityAdvice } from '../../src/daemon/capacity.js';
import { DAEMON_OPTIONS } from '../../src/daemon/options.js';

test('at capacity: most of a period\'s passes left work waiting for a slot; a burst or a quiet minute is not', () => {
  const { minPasses } = DAEMON_OPTIONS.capacity;
  assert.equal(atCapacity({ passes: 1150, passesAtCapacity: 1100 }), true);
  assert.equal(atCapacity({ passes: 1150, passesAtCapacity: 575 }), true);
  assert.equal(atCapacity({ passes: 1150, passesAtCapacity: 574 }), false);
  // A burst: a few passes at capacity in a busy minute.
  assert.equal(atCapacity({ passes: 600, passesAtCapacity: 12 }), false);
  // Too few passes to say: a daemon just started, or a quiet minute.
  assert.equal(atCapacity({ passes: minPasses - 1, passesAtCapacity: minPasses - 1 }), false);
  assert.equal(atCapacity({ passes: 0, passesAtCapacity: 0 }), false);
});

test('the advice names the setting that would help: the slots while the main thread has time, else polling less or more daemons', () => {
  const counts = { periodMs: 60_000, passes: 1150, passesAtCapacity: 1100, slots: 8 };
  const slots = capacityAdvice({ ...counts, effort: { mainBusyMs: 37_000 } });
  assert.match(slots, /1100 of 1150 scheduler passes/);
  assert.match(slots, /raise http\.concurrency \(now 8\)/);
  assert.match(slots, /http\.perHostDelay/);
  // Without the minute's effort (the heartbeat's report between two minutes): the slots.
  assert.match(capacityAdvice(counts), /raise http\.concurrency \(now 8\)/);
  const main = capacityAdvice({ ...counts, slots: 32, effort: { mainBusyMs: 54_000 } });
  assert.match(main, /main thread was busy 90 %/);
  assert.match(main, /schedule\.defaultInterval/);
  assert.doesNotMatch(main, /raise http\.concurrency/);
  // An older daemon's report did not say its slots.
  assert.doesNotMatch(capacityAdvice({ ...counts, slots: null }), /now/);
});
