import type { PageRequest, Store } from '../archive/store.js';
import type { Settings } from '../config/settings.js';
import { Fetcher, type FetchResult } from '../net/fetcher.js';
import { isHtmlType } from '../requisites/discover.js';
import type { Logger } from '../util/logger.js';
import type { PipelineContext } from './context.js';
import { Extractor } from './extraction.js';
import { capturePage, revisitPage } from './pipeline.js';
import { createPool } from './pool.js';
import { captureRequisites } from './requisites.js';
import { requisiteFetcherFor } from './service.js';

/**
 * Pages archived by hand (`forest capture`, issue #67 item 6), archived by the process that
 * asked, when it holds the archive's lease (no daemon runs on a SQLite archive; on PostgreSQL it
 * is one daemon more for a moment): each page is claimed, captured or revisited, its requisites
 * fetched, and its capture extracted and compared — the daemon's own steps (pipeline.ts,
 * requisites.ts, extraction.ts) in the daemon's order, one page after another, in this thread
 * (no worker pool to start for a few pages). A page another daemon holds is left to it.
 * Revisits then follow the article's schedule, whenever a daemon runs.
 */
export async function archiveByHand(store: Store, settings: Settings, log: Logger, requests: PageRequest[], signal: AbortSignal): Promise<void> {
  const pool = createPool(0);
  const fetcher = new Fetcher(settings.http);
  fetcher.shareHosts(store.hostGate());
  const requisiteFetcher = requisiteFetcherFor(settings);
  requisiteFetcher.shareHosts(store.hostGate());
  const stored: number[] = [];
  const fetching: Array<Promise<void>> = [];
  const context: PipelineContext = {
    store, fetcher, requisiteFetcher, settings, log, pool,
    requisites: {
      add: (snapshotId: number, page: FetchResult) => {
        stored.push(snapshotId);
        if (requisiteFetcher && isHtmlType(page.contentType) && page.body.length > 0) fetching.push(captureRequisites(context, snapshotId, page, signal));
      },
    },
  };
  try {
    for (const request of requests) {
      const claim = request.state === 'queued' ? { kind: 'capture' as const, id: request.itemId } : { kind: 'revisit' as const, id: request.articleId! };
      if (signal.aborted || !(await store.claim(claim, new Date()))) continue;
      try {
        if (claim.kind === 'capture') {
          const item = await store.itemToCapture(claim.id);
          if (item) await capturePage(context, item, signal);
        } else {
          const article = await store.articleToRevisit(claim.id);
          if (article) await revisitPage(context, article, signal);
        }
      } finally {
        await store.release(claim, new Date());
      }
    }
    await Promise.all(fetching);
    const extractor = new Extractor(context, 1);
    for (const snapshotId of stored) {
      const claim = { kind: 'extract' as const, id: snapshotId };
      if (signal.aborted || !(await store.claim(claim, new Date()))) continue;
      try {
        const capture = await store.storedCapture(snapshotId);
        if (capture) await (await extractor.extract(capture)).learning;
      } finally {
        await store.release(claim, new Date());
      }
    }
  } finally {
    fetcher.close();
    requisiteFetcher?.close();
    await pool.close();
  }
}
