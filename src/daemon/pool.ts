import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { loadCodec, type EncodedBody } from '../archive/codec.js';
import type { Requisite } from '../requisites/discover.js';
import { settlesWithin } from '../util/deadline.js';
import {
  discoverTask, encodeTask, extractTask, learnTask, parseFeedTask, rebaseTask, revisitTask, type DiscoverTask, type EncodeTask, type ExtractOutcome, type ExtractTask, type LearnOutcome, type LearnTask,
  type ParseFeedOutcome, type ParseFeedTask, type RebaseOutcome, type RebaseTask, type RevisitOutcome, type RevisitTask, workerLoaded,
} from './tasks.js';
import { DAEMON_OPTIONS } from './options.js';

/**
 * The pool of worker threads that does the daemon's CPU work: parsing, extraction,
 * normalisation, hashing, diffing, learning and compression (piscina: a well-kept pool with a
 * task queue, named task functions and clean shutdown, so we write no thread plumbing of our
 * own). `workers: 0` runs the same tasks on the main thread — for debugging, and the reference
 * the pool is checked against.
 */

/** Each worker's heap (node's `resourceLimits`); bench/pool.ts replays the tasks under the same. */
export const WORKER_LIMITS = { maxOldGenerationSizeMb: DAEMON_OPTIONS.pool.workerHeapMb, maxYoungGenerationSizeMb: DAEMON_OPTIONS.pool.workerYoungMb } as const;

export interface CpuPool {
  readonly threads: number;
  /** The kernel's ids of the threads that have loaded (a worker the pool replaced stays listed; its CPU reads as null). */
  readonly threadIds: readonly number[];
  encode(task: EncodeTask): Promise<EncodedBody>;
  extract(task: ExtractTask): Promise<ExtractOutcome>;
  revisit(task: RevisitTask): Promise<RevisitOutcome>;
  rebase(task: RebaseTask): Promise<RebaseOutcome>;
  learn(task: LearnTask): Promise<LearnOutcome>;
  parseFeed(task: ParseFeedTask): Promise<ParseFeedOutcome>;
  discover(task: DiscoverTask): Promise<Requisite[]>;
  close(): Promise<void>;
}

/** `workers: auto` → one thread per core the process may use. */
export function poolSize(setting: number | 'auto'): number {
  return setting === 'auto' ? availableParallelism() : setting;
}

/** The worker entry beside this module: worker.js when built; from source (tsx), a bootstrap that loads worker.ts. */
function workerFile(): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts') ? here.replace(/pool\.ts$/, 'worker-tsx.mjs') : here.replace(/pool\.js$/, 'worker.js');
}

/**
 * The CPU work's pool: `threads` worker threads, or none (the calling thread). `onError` hears what
 * piscina reports apart from any task (a worker that failed while idle); by default a process
 * warning — the daemon goes on, the pool starts another worker.
 */
export function createPool(threads: number, onError: (error: Error) => void = (error) => process.emitWarning(error)): CpuPool {
  if (threads === 0) return inlinePool();
  const piscina = new Piscina({
    filename: workerFile(), minThreads: threads, maxThreads: threads, idleTimeout: Infinity,
    // A bounded heap per worker: V8 collects before it grows past this instead of holding on to
    // what a large task (learning from ten pages) once needed. A task that really needs more
    // fails alone (recorded as an extraction error) and the pool starts a new worker.
    resourceLimits: WORKER_LIMITS,
  });
  // Workers that have loaded their module. Terminating a worker while it loads aborts the whole
  // process: Node 20's require(esm), which piscina tries first, reaches a fatal error when the
  // instantiation it was in is cut short ("v8::Module::IsGraphAsync must be used on an
  // instantiated module"). A daemon stopped within its first second hit it (CI, serve.test.ts:
  // `forest run --serve` stopped at once exited by abort instead of 0);
  // test/integration/service.test.ts closes pools across the loading time.
  let loaded = 0;
  let allLoaded: () => void = () => {};
  const loading = new Promise<void>((resolve) => (allLoaded = resolve));
  const threadIds: number[] = [];
  piscina.on('message', (message: unknown) => {
    const parsed = workerLoaded.safeParse(message);
    if (!parsed.success) return;
    if (parsed.data.tid !== null) threadIds.push(parsed.data.tid);
    if (++loaded >= threads) allLoaded();
  });
  let closed = false;
  // Being destroyed, piscina can still receive a worker's answer to a task it has just failed
  // ("Terminating worker thread"), and emits 'error' for the answer it no longer knows. Unheard,
  // the event ended the process as it stopped: a daemon stopped with thousands of pages queued for
  // reading (the 100,000-feed first day) exited 1 after logging "stopped".
  piscina.on('error', (error: unknown) => {
    if (!closed) onError(error instanceof Error ? error : new Error(String(error)));
  });
  return {
    threads,
    threadIds,
    encode: (task) => piscina.run(task, { name: 'encode' }) as Promise<EncodedBody>,
    extract: (task) => piscina.run(task, { name: 'extract' }) as Promise<ExtractOutcome>,
    revisit: (task) => piscina.run(task, { name: 'revisit' }) as Promise<RevisitOutcome>,
    rebase: (task) => piscina.run(task, { name: 'rebase' }) as Promise<RebaseOutcome>,
    learn: (task) => piscina.run(task, { name: 'learn' }) as Promise<LearnOutcome>,
    parseFeed: (task) => piscina.run(task, { name: 'parseFeed' }) as Promise<ParseFeedOutcome>,
    discover: (task) => piscina.run(task, { name: 'discover' }) as Promise<Requisite[]>,
    async close() {
      if (closed) return;
      closed = true;
      await settlesWithin(loading, DAEMON_OPTIONS.pool.loadWaitMs);
      await piscina.destroy();
    },
  };
}

/** The same tasks, run on the calling thread. */
function inlinePool(): CpuPool {
  const run = async <T>(work: () => T | Promise<T>): Promise<T> => {
    // Yield first (and load zstd, once), so that a caller's bookkeeping runs before the work, as with threads.
    await loadCodec();
    return work();
  };
  return {
    threads: 0,
    threadIds: [],
    encode: (task) => run(() => encodeTask(task)),
    extract: (task) => run(() => extractTask(task)),
    revisit: (task) => run(() => revisitTask(task)),
    rebase: (task) => run(() => rebaseTask(task)),
    learn: (task) => run(() => learnTask(task)),
    parseFeed: (task) => run(() => parseFeedTask(task)),
    discover: (task) => run(() => discoverTask(task)),
    close: async () => {},
  };
}
