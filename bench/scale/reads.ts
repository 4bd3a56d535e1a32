import { openArchive } from '../../src/archive/open-archive.js';
import { quantile } from '../quantile.js';

/** One read an archivist makes (the web app, the API, `forest status`) and how long it took. */
export interface TimedRead { read: string; ms: number }

/**
 * The reads an archivist makes, timed on an archive at its size: the median of up to 5 (fewer once
 * 5 s are spent), ms. `now` is the moment the due-work reads ask about.
 */
export async function timedReads(database: { path: string } | { url: string }, now: number): Promise<TimedRead[]> {
  const store = await openArchive({ path: 'path' in database ? database.path : '', url: 'url' in database ? database.url : null, maxSize: 'unlimited' });
  try {
    const [feed] = await store.feeds();
    const reads: Array<[string, () => Promise<unknown>]> = [
      ['articles, newest 50 (the web app\'s list)', () => store.articles({}, { limit: 50, offset: 0 })],
      ['articles of one feed, newest 50', () => store.articles({ feed: feed!.url }, { limit: 50, offset: 0 })],
      ['search, a common word', () => store.search('the', { limit: 20, offset: 0 })],
      ['search, a rare phrase', () => store.search('"supreme court"', { limit: 20, offset: 0 })],
      ['a feed\'s history (50 polls, 30 days)', () => store.feedHistory(feed!.id, { polls: 50, days: 30 })],
      ['feed statuses (every feed: forest status, the dashboard)', () => store.feedStatuses()],
      ['totals (the API\'s status)', () => store.totals()],
      ['backlog (status)', () => store.backlog(new Date(now))],
      ['due polls, captures, revisits (a pass)', () => Promise.all([store.duePolls(new Date(now), 64), store.dueCaptures(new Date(now), 64), store.dueRevisits(new Date(now), 64)])],
      ['changes, newest 50', () => store.changes({}, 50)],
    ];
    const timed: TimedRead[] = [];
    for (const [read, run] of reads) {
      const times: number[] = [];
      for (let i = 0, spent = 0; i < 5 && spent < 5000; i++, spent += times.at(-1)!) {
        const t = performance.now();
        await run();
        times.push(performance.now() - t);
      }
      timed.push({ read, ms: quantile(times, 0.5) });
    }
    return timed;
  } finally {
    await store.close();
  }
}
