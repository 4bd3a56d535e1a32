import type { FeedGap } from '../archive/store.js';
import type { FeedItem, ParsedFeed } from '../feeds/model.js';
import { DAEMON_OPTIONS } from './options.js';

/**
 * Gaps (issue #52): a feed document shows its newest items only, so a poll that comes too late —
 * a burst, a misleading first document, a daemon down for hours — finds a document that shares no
 * item with what was seen before, and the items between scrolled out unseen. Many feeds keep the
 * older items reachable: RFC 5005 archived feeds (`link rel=prev-archive`, each archive document
 * pointing to the one before), paged feeds (`link rel=next`, JSON Feed's `next_url`) and
 * WordPress, whose feeds page with `?paged=N` without saying so. Forest follows them back until
 * it meets an item it knows, and records the gap either way.
 */

/**
 * Whether this poll's document may have lost items: the previous document showed items, this one
 * shows items, and not one of them was seen before — every item that was in the window last time
 * has scrolled out, so more may have come and gone between. Compared with every item ever seen,
 * not only the last document's, and whatever the document's size: a feed that shows fewer items
 * than it did is no reason to trust it more.
 */
export function gapSuspected(previousDocumentSize: number, shown: readonly string[], known: ReadonlySet<string>): boolean {
  return previousDocumentSize > 0 && shown.length > 0 && !shown.some((guid) => known.has(guid));
}

/** WordPress names itself in `<generator>` (https://wordpress.org/?v=…) and pages its feeds with `?paged=N`. */
const isWordPress = (generator: string | null) => generator !== null && /\bwordpress\.(org|com)\b/i.test(generator);

/**
 * The document before `page`, the `n`-th document of the walk (the feed's own is the first): its
 * previous archive, else its next page, else — for WordPress — the feed's URL with `paged=n + 1`.
 */
export function documentBefore(feedUrl: string, page: ParsedFeed, n: number): string | null {
  if (page.feed.prevArchive) return page.feed.prevArchive;
  if (page.feed.nextPage) return page.feed.nextPage;
  if (!isWordPress(page.feed.generator)) return null;
  try {
    const url = new URL(feedUrl);
    url.searchParams.set('paged', String(n + 1));
    return url.href;
  } catch {
    return null;
  }
}

export interface WalkBack {
  /** Items found in the archive that were neither known nor in the feed's document, newest first. */
  items: FeedItem[];
  pages: number;
  /** Whether the walk reached an item already known: then nothing is missing. */
  complete: boolean;
}

/**
 * Follows the feed's archive back from `document` until a document holds a known item, the
 * archive ends, or `maxPages` documents were read. `fetchDocument` answers null for a document
 * that could not be had (the walk ends there); `known` says which guids the archive holds.
 */
export async function walkBack(
  feedUrl: string,
  document: ParsedFeed,
  fetchDocument: (url: string) => Promise<ParsedFeed | null>,
  known: (guids: string[]) => Promise<ReadonlySet<string>>,
  maxPages: number = DAEMON_OPTIONS.gaps.maxPages,
): Promise<WalkBack> {
  const seen = new Set(document.items.map((item) => item.guid));
  const visited = new Set([feedUrl]);
  const items: FeedItem[] = [];
  let url = documentBefore(feedUrl, document, 1);
  let pages = 0;
  while (url !== null && pages < maxPages && !visited.has(url)) {
    visited.add(url);
    const page = await fetchDocument(url);
    if (page === null) break;
    pages++;
    const fresh = page.items.filter((item) => !seen.has(item.guid));
    // A document with nothing new: the archive loops back on itself, or pages past its end.
    if (fresh.length === 0) break;
    fresh.forEach((item) => seen.add(item.guid));
    const held = await known(fresh.map((item) => item.guid));
    items.push(...fresh.filter((item) => !held.has(item.guid)));
    if (held.size > 0) return { items, pages, complete: true };
    url = documentBefore(feedUrl, page, pages + 1);
  }
  return { items, pages, complete: false };
}

/** What the gap record is made from, besides the walk back. */
export interface GapEvidence {
  /** The previous poll that read the document, and this one (ms). */
  since: number;
  until: number;
  /** The dates the document shows (ms; undated items left out) and how many items it shows. */
  documentDates: number[];
  documentItems: number;
  /** The newest arrival the scheduler had seen before this poll (ms), or null. */
  newestKnown: number | null;
  /** The feed's rate as the scheduler bounds it from above (items per ms), or null. */
  ratePerMs: number | null;
}

/**
 * The gap's record: complete when the walk met a known item; else "up to `missing`", the larger
 * of two estimates of the items between the last one known and the document's oldest, less those
 * recovered: the feed's rate over the time between the polls, less what the document shows; and
 * the document's own pace (its items over the span of their dates) over the time between the
 * newest item known and the document's oldest — which sees an outage that the wall clock of
 * one daemon cannot (a backup restored, a daemon down). Null where neither can be told.
 */
export function gapRecord(evidence: GapEvidence, walk: WalkBack): FeedGap {
  const { since, until, documentDates, documentItems, newestKnown, ratePerMs } = evidence;
  const byRate = ratePerMs === null ? null : ratePerMs * (until - since) - documentItems;
  let byDates: number | null = null;
  if (documentDates.length >= 2 && newestKnown !== null) {
    const newest = Math.max(...documentDates);
    const oldest = Math.min(...documentDates);
    if (newest > oldest && oldest > newestKnown) byDates = ((documentDates.length - 1) / (newest - oldest)) * (oldest - newestKnown);
  }
  const estimates = [byRate, byDates].filter((value): value is number => value !== null);
  const missing = walk.complete ? 0 : estimates.length === 0 ? null : Math.max(1, Math.ceil(Math.max(...estimates)) - walk.items.length);
  return { since: new Date(since).toISOString(), until: new Date(until).toISOString(), recovered: walk.items.length, pages: walk.pages, complete: walk.complete, missing };
}

/** One line for a person: what the gap means for the archive. */
export function describeGap(gap: FeedGap): string {
  const span = `between ${gap.since.replace('T', ' ').replace(/\.\d+Z$/, 'Z')} and ${gap.until.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}`;
  if (gap.complete) return `a gap ${span}: ${gap.recovered} item${gap.recovered === 1 ? '' : 's'} recovered from the feed's archive, none missing`;
  const recovered = gap.recovered > 0 ? `; ${gap.recovered} recovered from the feed's archive` : gap.pages === 0 ? ' (the feed has no archive to recover them from)' : '';
  return `${gap.missing === null ? 'items' : `up to ${gap.missing} item${gap.missing === 1 ? '' : 's'}`} may be missing ${span}${recovered}`;
}
