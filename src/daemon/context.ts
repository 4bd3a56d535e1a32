import type { WorkStore } from '../archive/store.js';
import type { Settings } from '../config/settings.js';
import type { Fetcher, FetchResult } from '../net/fetcher.js';
import type { Logger } from '../util/logger.js';
import type { ExtractedAhead } from './extracted-ahead.js';
import type { HostTrouble } from './host-trouble.js';
import type { CpuPool } from './pool.js';

/** What the daemon's work (pipeline.ts, extraction.ts) runs with: the archive, the network, the pool, the settings. */
export interface PipelineContext {
  store: WorkStore;
  fetcher: Fetcher;
  /** The requisites' own fetcher (their politeness and byte cap apart from pages'), or none: pages are kept without them. */
  requisiteFetcher?: Fetcher | null;
  /** Where a stored capture's requisites are fetched, beside the daemon's work (requisites.ts' RequisiteLane). */
  requisites?: { add(snapshotId: number, page: FetchResult): void } | null;
  settings: Settings;
  log: Logger;
  pool: CpuPool;
  now?: () => Date;
  /** How late polls are starting (ms): the daemon is behind schedule when this is large. */
  pollLag?: () => number;
  /** Hosts whose pages are not answering: their revisits wait (host-trouble.ts). None: every due revisit is tried. */
  hostTrouble?: HostTrouble;
  /** Revisits' extractions, for their queued extraction to take (none: every stored page is extracted when its turn comes). */
  ahead?: ExtractedAhead;
}
