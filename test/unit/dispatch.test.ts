import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkKind, WorkRef } from '../../src/archive/store.js';
import { hostOf, planDispatch, workKey } from '../../src/daemon/dispatch.js';

const ref = (kind: WorkKind, id: number, host: string, dueAt = 0): WorkRef => ({ kind, id, url: `http://${host}/${kind}/${id}`, dueAt });
const none = { poll: [], capture: [], revisit: [] };

test('at most one unit of work per host, polls before captures before revisits', () => {
  const plan = planDispatch({
    due: {
      poll: [ref('poll', 1, 'a')],
      capture: [ref('capture', 1, 'a'), ref('capture', 2, 'b')],
      revisit: [ref('revisit', 1, 'b'), ref('revisit', 2, 'c')],
    },
    inFlight: new Set(), room: 10, revisitRoom: 10, readyAt: () => 0,
  });
  assert.deepEqual(plan.start.map(workKey), ['poll:1', 'capture:2', 'revisit:2']);
});

test('on one host, a capture that failed before waits behind first captures and revisits (issue #52)', () => {
  const retry = { ...ref('capture', 9, 'a'), retry: true };
  const plan = (due: Record<WorkKind, WorkRef[]>) => planDispatch({ due, inFlight: new Set(), room: 10, revisitRoom: 10, readyAt: () => 0 }).start.map(workKey);
  assert.deepEqual(plan({ poll: [], capture: [retry, ref('capture', 1, 'a')], revisit: [ref('revisit', 1, 'a')] }), ['capture:1']);
  assert.deepEqual(plan({ poll: [], capture: [retry], revisit: [ref('revisit', 1, 'a')] }), ['revisit:1']);
  assert.deepEqual(plan({ poll: [], capture: [retry], revisit: [ref('revisit', 1, 'b')] }), ['revisit:1', 'capture:9'], 'on another host it goes at once');
});

test('a busy or resting host is passed over, not waited for; the plan says when the first rests end', () => {
  const readyAt = (host: string) => (host === 'a' ? Infinity : host === 'b' ? 5000 : 0);
  const plan = planDispatch({
    due: { ...none, capture: [ref('capture', 1, 'a'), ref('capture', 2, 'a'), ref('capture', 3, 'b'), ref('capture', 4, 'c')] },
    inFlight: new Set(), room: 10, revisitRoom: 10, readyAt,
  });
  assert.deepEqual(plan.start.map(workKey), ['capture:4']);
  assert.equal(plan.wakeAt, 5000);
});

test('slots are shared in priority order; revisits never take more than their share', () => {
  const hosts = ['a', 'b', 'c', 'd', 'e', 'f'];
  const plan = planDispatch({
    due: { poll: [ref('poll', 1, 'a')], capture: [], revisit: hosts.slice(1).map((host, i) => ref('revisit', i, host)) },
    inFlight: new Set(), room: 4, revisitRoom: 2, readyAt: () => 0,
  });
  assert.deepEqual(plan.start.map((r) => r.kind), ['poll', 'revisit', 'revisit']);
  assert.equal(plan.waitingForSlots, 3);
});

test('a round of polls leaves one slot to captures, and takes it back when nothing else is due', () => {
  const polls = ['a', 'b', 'c', 'd', 'e', 'f'].map((host, i) => ref('poll', i, host));
  const withCapture = planDispatch({ due: { ...none, poll: polls, capture: [ref('capture', 9, 'g')] }, inFlight: new Set(), room: 4, revisitRoom: 2, readyAt: () => 0 });
  assert.deepEqual(withCapture.start.map(workKey), ['poll:0', 'poll:1', 'poll:2', 'capture:9']);
  assert.equal(withCapture.waitingForSlots, 3);
  const pollsOnly = planDispatch({ due: { ...none, poll: polls }, inFlight: new Set(), room: 4, revisitRoom: 2, readyAt: () => 0 });
  assert.deepEqual(pollsOnly.start.map(workKey), ['poll:0', 'poll:1', 'poll:2', 'poll:3']);
  // A capture whose host a poll holds cannot take the slot; the slot goes back to polls.
  const sameHost = planDispatch({ due: { ...none, poll: polls, capture: [ref('capture', 9, 'a')] }, inFlight: new Set(), room: 4, revisitRoom: 2, readyAt: () => 0 });
  assert.deepEqual(sameHost.start.map(workKey), ['poll:0', 'poll:1', 'poll:2', 'poll:3']);
  // One free slot: the capture has it while polls wait.
  const oneSlot = planDispatch({ due: { ...none, poll: polls, capture: [ref('capture', 9, 'g')] }, inFlight: new Set(), room: 1, revisitRoom: 1, readyAt: () => 0 });
  assert.deepEqual(oneSlot.start.map(workKey), ['capture:9']);
  // …unless a poll's feed has items at risk: it takes the slot, the page waits.
  const atRisk = planDispatch({ due: { ...none, poll: [{ ...polls[0]!, atRisk: true }, ...polls.slice(1)], capture: [ref('capture', 9, 'g')] }, inFlight: new Set(), room: 1, revisitRoom: 1, readyAt: () => 0 });
  assert.deepEqual(atRisk.start.map(workKey), ['poll:0']);
  const twoAtRisk = planDispatch({ due: { ...none, poll: polls.map((poll) => ({ ...poll, atRisk: true })), capture: [ref('capture', 9, 'g')] }, inFlight: new Set(), room: 2, revisitRoom: 1, readyAt: () => 0 });
  assert.deepEqual(twoAtRisk.start.map(workKey), ['poll:0', 'poll:1']);
});

test('work already in flight is never started twice', () => {
  const plan = planDispatch({ due: { ...none, poll: [ref('poll', 1, 'a')] }, inFlight: new Set(['poll:1']), room: 4, revisitRoom: 2, readyAt: () => 0 });
  assert.deepEqual(plan.start, []);
});

/**
 * The daemon's loop in miniature, on a fake clock and a fake fetcher where every request takes
 * 50 ms and a host rests `delay` ms after each: the dispatcher plans, and each finished unit
 * leaves the queue.
 */
function simulate(due: Record<WorkKind, WorkRef[]>, options: { slots: number; delay: number; until: number; arrivals?: Array<{ at: number; ref: WorkRef }> }) {
  let clock = 0;
  const started: Array<{ key: string; at: number }> = [];
  const inFlight = new Map<string, number>();
  const hostReadyAt = new Map<string, number>();
  const arrivals = [...(options.arrivals ?? [])];
  for (; clock <= options.until; clock += 10) {
    for (const [key, end] of inFlight) {
      if (end > clock) continue;
      inFlight.delete(key);
      const [kind, id] = key.split(':') as [WorkKind, string];
      due[kind] = due[kind].filter((r) => r.id !== Number(id));
    }
    while (arrivals.length && arrivals[0]!.at <= clock) {
      const { ref: arrived } = arrivals.shift()!;
      due[arrived.kind] = [arrived, ...due[arrived.kind]];
    }
    const readyAt = (host: string) => {
      const at = hostReadyAt.get(host) ?? 0;
      return at <= clock ? 0 : at;
    };
    const plan = planDispatch({ due, inFlight: new Set(inFlight.keys()), room: options.slots - inFlight.size, revisitRoom: options.slots, readyAt });
    for (const unit of plan.start) {
      const host = hostOf(unit.url)!;
      started.push({ key: workKey(unit), at: clock });
      inFlight.set(workKey(unit), clock + 50);
      hostReadyAt.set(host, clock + 50 + options.delay);
    }
  }
  return started;
}

test('a backlog on one host holds back neither another host nor a hot feed\'s new item', () => {
  const backlog = Array.from({ length: 100 }, (_, i) => ref('capture', i, 'slow.example', 0));
  const others = Array.from({ length: 5 }, (_, i) => ref('capture', 1000 + i, `other${i}.example`, 0));
  // The queue gives captures newest item first: the hot item (seen at 2 s) goes to the front.
  const hot = ref('capture', 5000, 'news.example', 2000);
  const started = simulate({ poll: [], capture: [...backlog, ...others], revisit: [] }, { slots: 4, delay: 1000, until: 6000, arrivals: [{ at: 2000, ref: hot }] });
  const at = (key: string) => started.find((s) => s.key === key)?.at;
  for (let i = 0; i < 5; i++) assert.ok(at(`capture:${1000 + i}`)! <= 100, `other host ${i} started at ${at(`capture:${1000 + i}`)} ms`);
  assert.ok(at('capture:5000')! - 2000 <= 20, `hot item waited ${at('capture:5000')! - 2000} ms`);
  // The slow host is served at its politeness pace, never two at once.
  const slow = started.filter((s) => Number(s.key.split(':')[1]) < 100).map((s) => s.at);
  assert.ok(slow.length >= 5 && slow.length <= 6, `${slow.length} backlog pages in 6 s at one per 1.05 s`);
  for (let i = 1; i < slow.length; i++) assert.ok(slow[i]! - slow[i - 1]! >= 1050, 'politeness delay after each request');
});

test('the pool gets pages during a round of polls: captures start while polls of other feeds wait', () => {
  const polls = Array.from({ length: 200 }, (_, i) => ref('poll', i, `feed${i}.example`));
  const backlog = Array.from({ length: 50 }, (_, i) => ref('capture', i, `site${i}.example`));
  const started = simulate({ poll: polls, capture: backlog, revisit: [] }, { slots: 4, delay: 1000, until: 1000 });
  const firstCapture = started.find((s) => s.key.startsWith('capture:'))?.at;
  assert.equal(firstCapture, 0, 'a capture starts with the first polls');
  // Three slots of polls at 50 ms each: 60 polls in the first second.
  assert.ok(started.filter((s) => s.key.startsWith('poll:')).length >= 60);
});
