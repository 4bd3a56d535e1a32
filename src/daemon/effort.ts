import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import type { WorkKind } from '../archive/store.js';
import { threadCpuMs } from '../util/thread-cpu.js';

/**
 * Where a daemon's time goes, period by period (issue #70): its process's CPU and its main
 * thread's busy time, its scheduler passes (how many found nothing to start, how many units
 * another daemon held), the wall time of its units of work by kind, and the time it waited on
 * its archive, method by method. Written with each minute's report, so that a benchmark of
 * several daemons on one archive can say what the second one spends its time on — claims lost
 * to the other, re-reads of what is due, waiting on the server, passes that find nothing.
 *
 * Work and archive times are sums over concurrent units: with ten requests in flight, a minute
 * of wall time holds up to ten minutes of work.
 */

export type EffortKind = WorkKind | 'extract';

export interface EffortReport {
  /** CPU the process used (every thread: the main one, the pool's, V8's helpers), ms. */
  cpuMs: number;
  /**
   * Of it, the main thread's and the pool's workers' (the rest is V8's compiler and collector
   * threads and libuv's), ms; null where the threads' CPU cannot be read (not Linux).
   */
  mainCpuMs: number | null;
  poolCpuMs: number | null;
  /** The main thread's busy time (its event loop not idle), ms. */
  mainBusyMs: number;
  passes: number;
  /** Passes that started nothing. */
  emptyPasses: number;
  /** The passes' wall time, ms (their reads of what is due and their claims included). */
  passMs: number;
  /** Units the passes claimed, and of them, those another daemon held. */
  claimed: number;
  refused: number;
  /** Wall time of units of work, by kind, ms (summed over concurrent units). */
  workMs: Record<EffortKind, number>;
  /** Time spent waiting on the archive, ms (summed over concurrent calls), and the calls. */
  storeMs: number;
  storeCalls: number;
  /** The store methods that took the most of it: name, calls, ms. */
  storeTop: Array<{ method: string; calls: number; ms: number }>;
}

const count = z.number();
/** An effort report as read back (a daemon's lease, its log): the interface above, checked. */
export const effortReportSchema = z.object({
  cpuMs: count, mainCpuMs: count.nullable(), poolCpuMs: count.nullable(), mainBusyMs: count, passes: count, emptyPasses: count, passMs: count, claimed: count, refused: count,
  workMs: z.object({ poll: count, capture: count, revisit: count, extract: count }), storeMs: count, storeCalls: count,
  storeTop: z.array(z.object({ method: z.string(), calls: count, ms: count })),
}) satisfies z.ZodType<EffortReport>;

/** How many store methods a report names. */
const STORE_TOP = 8;

const emptyWork = (): Record<EffortKind, number> => ({ poll: 0, capture: 0, revisit: 0, extract: 0 });

export class Effort {
  private cpu = process.cpuUsage();
  /** Each thread's CPU at the period's start, ms: the main thread's from now, as process.cpuUsage(); a pool's worker from its start. */
  private threads = new Map<number, number>([[process.pid, threadCpuMs(process.pid) ?? 0]]);
  private loop = performance.eventLoopUtilization();
  private passes = { passes: 0, empty: 0, ms: 0, claimed: 0, refused: 0 };
  private work = emptyWork();
  private store = new Map<string, { calls: number; ms: number }>();

  /** A scheduler pass ended: how long it took, what it asked for and what it got. */
  pass(ms: number, claimed: number, refused: number): void {
    this.passes.passes++;
    this.passes.ms += ms;
    this.passes.claimed += claimed;
    this.passes.refused += refused;
    if (claimed - refused === 0) this.passes.empty++;
  }

  /** A unit of work ended after `ms`. */
  worked(kind: EffortKind, ms: number): void {
    this.work[kind] += ms;
  }

  /** A call to the archive took `ms`. */
  waited(method: string, ms: number): void {
    const entry = this.store.get(method);
    if (entry) {
      entry.calls++;
      entry.ms += ms;
    } else {
      this.store.set(method, { calls: 1, ms });
    }
  }

  /** CPU the threads used since the last reading (a thread first seen counts from its start), ms; null without /proc. */
  private threadsCpu(tids: readonly number[]): number | null {
    let sum: number | null = null;
    for (const tid of tids) {
      const now = threadCpuMs(tid);
      if (now === null) continue;
      sum = (sum ?? 0) + now - (this.threads.get(tid) ?? 0);
      this.threads.set(tid, now);
    }
    return sum;
  }

  /** The period's figures; the next period starts now. `poolThreads`: the kernel's ids of the pool's workers. */
  take(poolThreads: readonly number[] = []): EffortReport {
    const cpu = process.cpuUsage(this.cpu);
    const mainCpu = this.threadsCpu([process.pid]);
    const poolCpu = poolThreads.length > 0 ? this.threadsCpu(poolThreads) : mainCpu === null ? null : 0;
    const loop = performance.eventLoopUtilization(this.loop);
    const store = [...this.store].map(([method, entry]) => ({ method, calls: entry.calls, ms: Math.round(entry.ms) }));
    const report: EffortReport = {
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      mainCpuMs: mainCpu === null ? null : Math.round(mainCpu),
      poolCpuMs: poolCpu === null ? null : Math.round(poolCpu),
      mainBusyMs: Math.round(loop.active),
      passes: this.passes.passes,
      emptyPasses: this.passes.empty,
      passMs: Math.round(this.passes.ms),
      claimed: this.passes.claimed,
      refused: this.passes.refused,
      workMs: Object.fromEntries(Object.entries(this.work).map(([kind, ms]) => [kind, Math.round(ms)])) as Record<EffortKind, number>,
      storeMs: store.reduce((sum, entry) => sum + entry.ms, 0),
      storeCalls: store.reduce((sum, entry) => sum + entry.calls, 0),
      storeTop: store.sort((a, b) => b.ms - a.ms).slice(0, STORE_TOP),
    };
    this.cpu = process.cpuUsage();
    this.loop = performance.eventLoopUtilization();
    this.passes = { passes: 0, empty: 0, ms: 0, claimed: 0, refused: 0 };
    this.work = emptyWork();
    this.store = new Map();
    return report;
  }
}

/**
 * The daemon's view of its archive, every asynchronous call timed into `effort`. The methods run
 * on the store itself (not on the proxy): an engine's private state stays its own.
 */
export function meteredStore<T extends object>(store: T, effort: Effort): T {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      const method = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        const started = performance.now();
        const result = method.apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.finally(() => effort.waited(property, performance.now() - started));
      };
    },
  });
}
