import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { HostQueue } from '../../src/net/host-queue.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('one request per host at a time, with the delay between them; the global limit holds', async () => {
  const queue = new HostQueue(2, 50);
  const log: Array<[string, 'start' | 'end', number]> = [];
  const started = Date.now();
  const task = (host: string) => queue.run(host, async () => {
    log.push([host, 'start', Date.now() - started]);
    await sleep(20);
    log.push([host, 'end', Date.now() - started]);
  });
  await Promise.all([task('a'), task('a'), task('b'), task('c')]);
  let running = 0;
  let peak = 0;
  for (const [, kind] of log) {
    running += kind === 'start' ? 1 : -1;
    peak = Math.max(peak, running);
  }
  assert.equal(peak, 2, 'global concurrency');
  const a = log.filter(([host]) => host === 'a');
  assert.deepEqual(a.map(([, kind]) => kind), ['start', 'end', 'start', 'end'], 'never two at once on one host');
  assert.ok(a[2]![2] - a[1]![2] >= 45, `delay between requests to a: ${a[2]![2] - a[1]![2]} ms`);
});

test('a waiting request is dropped when its signal aborts', async () => {
  const queue = new HostQueue(1, 0);
  const controller = new AbortController();
  let ran = false;
  const blocker = queue.run('a', () => sleep(50));
  const waiting = queue.run('a', async () => {
    ran = true;
  }, controller.signal);
  controller.abort(new Error('stop'));
  await assert.rejects(waiting, /stop/);
  await blocker;
  assert.equal(ran, false);
  assert.equal(queue.pending, 0);
});

test('no listener outlives its task: after 1,000 tasks on one signal, the signal has none', async () => {
  const queue = new HostQueue(8, 0);
  const controller = new AbortController();
  const tasks = Array.from({ length: 1000 }, (_, i) => queue.run(`host-${i % 50}`, async () => Buffer.alloc(1024), controller.signal));
  // While some wait, their listeners are there to drop them on abort.
  assert.ok(getEventListeners(controller.signal, 'abort').length > 0);
  await Promise.all(tasks);
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
});

test('readyAt: 0 for a free host, Infinity while busy, the end of the delay after', async () => {
  let clock = 1000;
  const queue = new HostQueue(4, 500, () => clock);
  assert.equal(queue.readyAt('a'), 0);
  let finish!: () => void;
  const running = queue.run('a', () => new Promise<void>((resolve) => (finish = resolve)));
  assert.equal(queue.readyAt('a'), Infinity);
  assert.equal(queue.readyAt('b'), 0);
  finish();
  await running;
  assert.equal(queue.readyAt('a'), 1500);
  clock = 1500;
  assert.equal(queue.readyAt('a'), 0);
  queue.deferHost('b', 9000);
  assert.equal(queue.readyAt('b'), 9000);
});

test('a lighter request (a page\'s requisite) follows the last request after its own rest; the page pace holds between full requests whatever comes between', async () => {
  let clock = 0;
  const queue = new HostQueue(4, 1000, () => clock);
  const starts: Array<[string, number]> = [];
  const pump = () => (queue as unknown as { pump(): void }).pump();
  const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
  const request = (name: string, rest?: number) => queue.run('a', async () => void starts.push([name, clock]), undefined, rest);
  await request('page 1');
  assert.equal(queue.readyAt('a'), 1000, 'the next page: a full delay after this one');
  const first = request('requisite 1', 100);
  await settle();
  assert.equal(starts.length, 1, 'a requisite waits its own rest after the page');
  clock = 100;
  pump();
  await first;
  assert.deepEqual(starts.at(-1), ['requisite 1', 100], 'the page\'s requisite 100 ms after it, not 1,000');
  clock = 200;
  await request('requisite 2', 100);
  assert.deepEqual(starts.at(-1), ['requisite 2', 200], 'requisites follow each other at their own rest');
  assert.equal(queue.readyAt('a'), 1000, 'the next page still waits for the page pace from page 1');
  const page = request('page 2');
  await settle();
  assert.equal(starts.length, 3);
  clock = 1000;
  pump();
  await page;
  assert.deepEqual(starts.at(-1), ['page 2', 1000]);
  queue.deferHost('a', 5000);
  assert.equal(queue.readyAt('a'), 5000, 'a pause the server asked for holds for both');
});

test('a host\'s full request goes before the lighter ones queued ahead of it', async () => {
  let clock = 0;
  const queue = new HostQueue(4, 1000, () => clock);
  const order: string[] = [];
  const pump = () => (queue as unknown as { pump(): void }).pump();
  await queue.run('a', async () => void order.push('page 1'));
  const lights = [1, 2, 3].map((n) => queue.run('a', async () => void order.push(`requisite ${n}`), undefined, 100));
  const page = queue.run('a', async () => void order.push('page 2'));
  for (clock = 100; clock <= 1500; clock += 100) {
    pump();
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await Promise.all([...lights, page]);
  assert.deepEqual(order, ['page 1', 'page 2', 'requisite 1', 'requisite 2', 'requisite 3']);
});
