import { parentPort } from 'node:worker_threads';
import { loadCodec } from '../archive/codec.js';
import { ownThreadId } from '../util/thread-cpu.js';
import { WORKER_LOADED } from './tasks.js';

/** The worker pool's entry: each export is a task the pool runs by name (see pool.ts). */
export { discoverTask as discover, encodeTask as encode, extractTask as extract, learnTask as learn, parseFeedTask as parseFeed, rebaseTask as rebase, revisitTask as revisit } from './tasks.js';

// zstd (WebAssembly) is loaded before the worker takes its first task.
await loadCodec();
// The pool waits for this before it terminates the worker (pool.ts, close); the thread's id lets
// the daemon's effort report say how much CPU the pool used (effort.ts).
parentPort?.postMessage({ kind: WORKER_LOADED, tid: ownThreadId() });
