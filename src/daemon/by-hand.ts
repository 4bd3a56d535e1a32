import type { ClaimRef, PageRequest, Store } from '../archive/store.js';
import type { Settings } from '../config/settings.js';
import { Fetcher, type FetchResult } from '../net/fetcher.js';
import type { Logger } from '../util/logger.js';
import type { PipelineContext } from './context.js';
import { Extractor } from './extraction.js';
import { capturePage, revisitPage } from './pipeline.js';
import { createPool } from './pool.js';
import { captureRequisites, namesRequisites, readPage } from './requisites.js';
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
        // Claimed as a daemon's lane claims it: a daemon on a shared archive may read it from the queue meanwhile.
        if (namesRequisites(page)) fetching.push(claimed({ kind: 'requisites', id: snapshotId }, () => captureRequisites(context, snapshotId, readPage(context, page), signal)));
      },
    },
  };
  // A unit another daemon holds is left to it; one this process claims is given back when done.
  const claimed = async (claim: ClaimRef, work: () => Promise<void>) => {
    if (signal.aborted || !(await store.claim(claim, new Date()))) return;
    try {
      await work();
    } finally {
      await store.release(claim, new Date());
    }
  };
  try {
    for (const request of requests) {
      if (request.state === 'queued') {
        await claimed({ kind: 'capture', id: request.itemId }, async () => {
          const item = await store.itemToCapture(request.itemId);
          if (item) await capturePage(context, item, signal);
        });
      } else {
        const articleId = request.articleId!;
        await claimed({ kind: 'revisit', id: articleId }, async () => {
          const article = await store.articleToRevisit(articleId);
          if (article) await revisitPage(context, article, signal);
        });
      }
    }
    await Promise.all(fetching);
    const extractor = new Extractor(context, 1);
    for (const snapshotId of stored) {
      await claimed({ kind: 'extract', id: snapshotId }, async () => {
        const capture = await store.storedCapture(snapshotId);
        if (capture) await (await extractor.extract(capture)).learning;
      });
    }
  } finally {
    fetcher.close();
    requisiteFetcher.close();
    await pool.close();
  }
}
