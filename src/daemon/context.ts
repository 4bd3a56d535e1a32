import type { WorkStore } from '../archive/store.js';
import type { Settings } from '../config/settings.js';
import type { Fetcher } from '../net/fetcher.js';
import type { Logger } from '../util/logger.js';
import type { ExtractedAhead } from './extracted-ahead.js';
import type { CpuPool } from './pool.js';

/** What the daemon's work (pipeline.ts, extraction.ts) runs with: the archive, the network, the pool, the settings. */
export interface PipelineContext {
  store: WorkStore;
  fetcher: Fetcher;
  settings: Settings;
  log: Logger;
  pool: CpuPool;
  now?: () => Date;
  /** How late polls are starting (ms): the daemon is behind schedule when this is large. */
  pollLag?: () => number;
  /** Revisits' extractions, for their queued extraction to take (none: every stored page is extracted when its turn comes). */
  ahead?: ExtractedAhead;
}
