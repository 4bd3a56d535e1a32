import { loadCodec } from '../archive/codec.js';

/** The worker pool's entry: each export is a task the pool runs by name (see pool.ts). */
export { encodeTask as encode, extractTask as extract, learnTask as learn, parseFeedTask as parseFeed, rebaseTask as rebase, revisitTask as revisit } from './tasks.js';

// zstd (WebAssembly) is loaded before the worker takes its first task.
await loadCodec();
