// The worker entry when Forest runs from its TypeScript source (tests, benchmarks under tsx):
// worker threads do not inherit tsx's loader, so it is registered here before worker.ts loads.
// The built daemon (dist/) uses worker.js directly and never loads this file.
import { register } from 'tsx/esm/api';

register();
const tasks = await import('./worker.ts');
export const { discover, encode, extract, learn, parseFeed, rebase, revisit } = tasks;
