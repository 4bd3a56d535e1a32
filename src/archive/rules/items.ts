import { z } from 'zod';
import type { FeedItem } from '../../feeds/model.js';
import { integer, nullableText, text } from '../rows.js';
import { row, rows, run, values, type Steps } from '../steps.js';
import type { UpsertReport } from '../store.js';

/** A feed's items, on either engine (steps.ts). */

export const itemRow = z.object({
  id: integer,
  feed_id: integer,
  guid: text,
  link: nullableText,
  orig_link: nullableText,
  title: nullableText,
  summary: nullableText,
  published: nullableText,
  updated: nullableText,
  author: nullableText,
  first_seen: text,
  last_seen: text,
  page_state: text,
  page_attempts: integer,
  page_error: nullableText,
  page_due_at: nullableText,
});
export type ItemRow = z.infer<typeof itemRow>;

const knownItem = z.object({ id: integer, guid: text, title: nullableText, summary: nullableText, updated: nullableText });

/** Guids asked about per statement: `IN (?, …)` lists are portable SQL, and a bounded length bounds the statements prepared. */
const GUIDS_PER_QUERY = 100;

/** `list` in slices of at most `size`. */
const slices = <T>(list: T[], size: number): T[][] => Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));

const placeholders = (list: unknown[]) => list.map(() => '?').join(', ');

/**
 * Records the items of one poll (in the poll's transaction): new ones are inserted (with their
 * page pending capture, or skipped when capture is off); known ones get last_seen, and are marked
 * changed when their updated date, title or summary differ.
 */
export function* upsertItems(feedId: number, items: FeedItem[], now: Date, capture: boolean): Steps<UpsertReport> {
  const stamp = now.toISOString();
  const report: UpsertReport = { newItems: 0, changedItems: 0, changedIds: [] };
  const known = new Map<string, z.infer<typeof knownItem>>();
  for (const guids of slices([...new Set(items.map((item) => item.guid))], GUIDS_PER_QUERY)) {
    for (const found of yield* rows(knownItem, `SELECT id, guid, title, summary, updated FROM items WHERE feed_id = ? AND guid IN (${placeholders(guids)})`, [feedId, ...guids], 'upsertItems')) {
      known.set(found.guid, found);
    }
  }
  const inThisPoll = new Set<string>();
  for (const item of items) {
    // A feed that repeats a guid gets one item: the first occurrence, as readers show it.
    if (inThisPoll.has(item.guid)) continue;
    inThisPoll.add(item.guid);
    const stored = known.get(item.guid);
    const columns = {
      feedId, guid: item.guid, link: item.link, origLink: item.origLink, title: item.title, summary: item.summary,
      content: item.content, author: item.author, categories: JSON.stringify(item.categories), enclosures: JSON.stringify(item.enclosures),
      published: item.published, updated: item.updated, stamp, pageState: capture && (item.origLink ?? item.link) ? 'pending' : 'skipped',
    };
    if (!stored) {
      // Another daemon's poll of this feed may have stored it a moment ago: then it is known, not new.
      const added = yield* run(`INSERT INTO items (feed_id, guid, link, orig_link, title, summary, content, author, categories, enclosures,
          published, updated, first_seen, last_seen, page_state, page_due_at)
        VALUES (@feedId, @guid, @link, @origLink, @title, @summary, @content, @author, @categories, @enclosures,
          @published, @updated, @stamp, @stamp, @pageState, @stamp) ON CONFLICT (feed_id, guid) DO NOTHING`, columns);
      if (added) report.newItems++;
    } else if (stored.title !== item.title || stored.summary !== item.summary || stored.updated !== item.updated) {
      yield* run(`UPDATE items SET last_seen = @stamp, title = @title, summary = @summary, content = @content,
          updated = @updated, link = COALESCE(CAST(@link AS TEXT), link), changed_at = @stamp, change_count = change_count + 1 WHERE id = @id`,
      { stamp, title: columns.title, summary: columns.summary, content: columns.content, updated: columns.updated, link: columns.link, id: stored.id });
      report.changedItems++;
      report.changedIds.push(stored.id);
    } else {
      yield* run('UPDATE items SET last_seen = ? WHERE id = ?', [stamp, stored.id]);
    }
  }
  return report;
}

/** Which of `guids` the feed already has. */
export function* knownGuids(feedId: number, guids: string[]): Steps<Set<string>> {
  const known = new Set<string>();
  for (const slice of slices([...new Set(guids)], GUIDS_PER_QUERY)) {
    for (const guid of yield* values(text, `SELECT guid FROM items WHERE feed_id = ? AND guid IN (${placeholders(slice)})`, [feedId, ...slice], 'knownGuids')) known.add(guid);
  }
  return known;
}

export function itemById(id: number): Steps<ItemRow | undefined> {
  return row(itemRow, 'SELECT * FROM items WHERE id = ?', [id], 'itemById');
}
