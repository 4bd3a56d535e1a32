import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { inTimeOrder, LogFollower, pollLateness } from '../../bench/scale/daemon-log.js';

test('a log followed as it grows: whole lines only, kept by the filter, none read twice', () => {
  const dir = mkdtempSync(join(tmpdir(), 'forest-follow-'));
  try {
    const path = join(dir, 'forest.log');
    writeFileSync(path, '{"msg":"extracted","n":1}\n{"msg":"polled","n":2}\n{"msg":"extr');
    // Chunks of 5 bytes: every line and the two-byte character below cross a read's edge.
    const follower = new LogFollower(path, (line) => line.includes('"msg":"extracted"'), 5);
    assert.deepEqual(follower.follow(), ['{"msg":"extracted","n":1}']);
    appendFileSync(path, 'acted","t":"é"}\n');
    assert.deepEqual(follower.follow(), ['{"msg":"extracted","t":"é"}']);
    assert.deepEqual(follower.follow(), []);
    assert.deepEqual(follower.lines, ['{"msg":"extracted","n":1}', '{"msg":"extracted","t":"é"}']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("polls' lateness against their plan, and against the time their items were at risk", () => {
  const line = (feed: string, time: string, next: string, riskAt?: string) => JSON.stringify({ msg: 'polled', time, feed, ms: 1000, next, ...(riskAt ? { riskAt } : {}) });
  const log = [
    line('a', '2026-12-01T00:00:00.000Z', '2026-12-01T00:01:00.000Z', '2026-12-01T00:03:00.000Z'),
    // Planned for 0:01, started 0:02 (its line at 0:02:01 less its 1 s): 60 s late, 60 s before the risk.
    line('a', '2026-12-01T00:02:01.000Z', '2026-12-01T00:03:00.000Z'),
    // Planned for 0:03 with no risk time said (learning): late against the plan only.
    line('a', '2026-12-01T00:05:01.000Z', '2026-12-01T00:06:00.000Z', '2026-12-01T00:08:00.000Z'),
    line('a', '2026-12-01T00:10:01.000Z', '2026-12-01T00:11:00.000Z'),
  ];
  assert.deepEqual(pollLateness(log), [60, 120, 240]);
  assert.deepEqual(pollLateness(log, { past: 'risk' }), [-60, 120]);
});

test("two daemons' polls of one feed: lateness read in time order across their logs, not one log after the other", () => {
  const line = (time: string, next: string) => JSON.stringify({ msg: 'polled', time, feed: 'a', ms: 0, next });
  // The feed's polls alternate between the daemons, each on time.
  const first = [line('2026-12-01T00:00:00.000Z', '2026-12-01T00:01:00.000Z'), line('2026-12-01T00:02:00.000Z', '2026-12-01T00:03:00.000Z')];
  const second = [line('2026-12-01T00:01:00.000Z', '2026-12-01T00:02:00.000Z'), line('2026-12-01T00:03:00.000Z', '2026-12-01T00:04:00.000Z')];
  assert.deepEqual(pollLateness(inTimeOrder(first, second)), [0, 0, 0]);
  // One log after the other, the second daemon's first poll would be read against the first's last plan.
  assert.deepEqual(pollLateness([...first, ...second]), [60, -120, 60]);
});
