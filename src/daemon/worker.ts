/** The worker pool's entry: each export is a task the pool runs by name (see pool.ts). */
export { encodeTask as encode, extractTask as extract, learnTask as learn, parseFeedTask as parseFeed, rebaseTask as rebase } from './tasks.js';
