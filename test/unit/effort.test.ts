import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { Effort, meteredStore } from '../../src/daemon/effort.js';

/** A store-like object with private state, as the engines have. */
class Engine {
  #rows = [1, 2, 3];
  async due(): Promise<number[]> {
    await sleep(20);
    return this.#rows;
  }

  gate(): string {
    return 'sync';
  }

  async fails(): Promise<never> {
    await sleep(5);
    throw new Error('connection lost');
  }
}

test('a metered store times every asynchronous call by method, runs it on the store itself, and passes results and errors through', async () => {
  const effort = new Effort();
  const store = meteredStore(new Engine(), effort);
  assert.deepEqual(await store.due(), [1, 2, 3], 'the engine\'s private state is reached');
  await store.due();
  assert.equal(store.gate(), 'sync', 'a synchronous method is not timed and returns as it is');
  await assert.rejects(store.fails(), /connection lost/);
  const report = effort.take();
  assert.equal(report.storeCalls, 3);
  const due = report.storeTop.find((entry) => entry.method === 'due')!;
  assert.equal(due.calls, 2);
  assert.ok(due.ms >= 35, `${due.ms} ms for two calls of 20 ms`);
  assert.ok(report.storeTop.some((entry) => entry.method === 'fails'), 'a failed call is timed too');
  assert.equal(effort.take().storeCalls, 0, 'the next period starts empty');
});

test('effort counts passes, the empty ones and the claims another daemon held, and work by kind', () => {
  const effort = new Effort();
  effort.pass(3, 4, 1);
  effort.pass(2, 0, 0);
  effort.pass(2, 2, 2);
  effort.worked('poll', 120);
  effort.worked('poll', 80);
  effort.worked('extract', 40);
  const report = effort.take();
  assert.deepEqual([report.passes, report.emptyPasses, report.passMs, report.claimed, report.refused], [3, 2, 7, 6, 3]);
  assert.deepEqual(report.workMs, { poll: 200, capture: 0, revisit: 0, extract: 40 });
  assert.ok(report.cpuMs >= 0 && report.mainBusyMs >= 0);
});
