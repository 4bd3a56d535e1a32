import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { Effort } from '../../src/daemon/effort.js';
import { ownThreadId, threadCpuMs } from '../../src/util/thread-cpu.js';

/*
 * The effort report splits the process's CPU into the main thread's and the pool's workers'
 * (issue #70, item 1: where a second daemon's CPU goes). A worker that spins for 400 ms of its own
 * CPU is seen in its thread, not in the main one.
 */

const SPIN = `const { parentPort } = require('node:worker_threads');
  const { readlinkSync } = require('node:fs');
  // 'on', not 'once': the listener keeps the worker's thread alive until it is terminated, so its
  // /proc entry is there to read (with 'once' the thread could end as soon as it answered).
  parentPort.on('message', () => {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    const start = process.cpuUsage();
    // process.cpuUsage counts every thread; the main one waits, so this is the worker's own spin.
    while (((u) => u.user + u.system)(process.cpuUsage(start)) < 400_000);
    parentPort.postMessage(tid);
  });`;

test('a worker\'s CPU is its thread\'s: the effort report puts it in the pool, not the main thread', async () => {
  assert.equal(ownThreadId(), process.pid, 'the main thread is the process\'s first task');
  const effort = new Effort();
  const worker = new Worker(SPIN, { eval: true });
  try {
    const tid = await new Promise<number>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.postMessage('go');
    });
    assert.notEqual(tid, process.pid);
    assert.ok((threadCpuMs(tid) ?? 0) >= 300, `the worker's thread used ${threadCpuMs(tid)} ms`);
    const report = effort.take([tid]);
    assert.ok(report.poolCpuMs !== null && report.poolCpuMs >= 300, `pool ${report.poolCpuMs} ms`);
    assert.ok(report.mainCpuMs !== null && report.mainCpuMs < report.poolCpuMs, `main ${report.mainCpuMs} ms, pool ${report.poolCpuMs} ms`);
    assert.ok(report.cpuMs >= report.mainCpuMs + report.poolCpuMs - 20, `all ${report.cpuMs} ms`);
    // The next period starts from here: the worker, idle since, used next to nothing.
    assert.ok((effort.take([tid]).poolCpuMs ?? 0) < 100);
  } finally {
    await worker.terminate();
  }
  assert.equal(threadCpuMs(999_999_999), null, 'a thread that is not ours reads as null');
});
