import type { FeedItem } from '../feeds/model.js';
import { z } from 'zod';
import type { Db } from './database.js';
import { checkedRow, integer, nullableText, text } from './rows.js';
import type { UpsertReport } from './store.js';

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

const knownItem = z.object({ id: integer, title: nullableText, summary: nullableText, updated: nullableText });

/**
 * Records the items of one poll: new ones are inserted (with their page pending capture, or
 * skipped when capture is off); known ones get last_seen, and are marked changed when their
 * updated date, title or summary differ. Run inside the poll's transaction.
 */
export function upsertItems(db: Db, feedId: number, items: FeedItem[], now: Date, capture: boolean): UpsertReport {
  const stamp = now.toISOString();
  const find = db.prepare('SELECT id, title, summary, updated FROM items WHERE feed_id = ? AND guid = ?');
  const insert = db.prepare(`INSERT INTO items (feed_id, guid, link, orig_link, title, summary, content, author, categories, enclosures,
      published, updated, first_seen, last_seen, page_state, page_due_at)
    VALUES (@feedId, @guid, @link, @origLink, @title, @summary, @content, @author, @categories, @enclosures,
      @published, @updated, @stamp, @stamp, @pageState, @stamp)`);
  const seen = db.prepare('UPDATE items SET last_seen = ? WHERE id = ?');
  const changed = db.prepare(`UPDATE items SET last_seen = @stamp, title = @title, summary = @summary, content = @content,
      updated = @updated, link = COALESCE(@link, link), changed_at = @stamp, change_count = change_count + 1 WHERE id = @id`);
  const report: UpsertReport = { newItems: 0, changedItems: 0, changedIds: [] };
  const inThisPoll = new Set<string>();
  for (const item of items) {
    // A feed that repeats a guid gets one item: the first occurrence, as readers show it.
    if (inThisPoll.has(item.guid)) continue;
    inThisPoll.add(item.guid);
    const row = checkedRow(knownItem, find.get(feedId, item.guid), 'upsertItems');
    const values = {
      feedId, guid: item.guid, link: item.link, origLink: item.origLink, title: item.title, summary: item.summary,
      content: item.content, author: item.author, categories: JSON.stringify(item.categories), enclosures: JSON.stringify(item.enclosures),
      published: item.published, updated: item.updated, stamp, pageState: capture && (item.origLink ?? item.link) ? 'pending' : 'skipped',
    };
    if (!row) {
      insert.run(values);
      report.newItems++;
    } else if (row.title !== item.title || row.summary !== item.summary || row.updated !== item.updated) {
      changed.run({ ...values, id: row.id });
      report.changedItems++;
      report.changedIds.push(row.id);
    } else {
      seen.run(stamp, row.id);
    }
  }
  return report;
}

/** Which of `guids` the feed already has. */
export function knownGuids(db: Db, feedId: number, guids: string[]): Set<string> {
  const find = db.prepare('SELECT 1 FROM items WHERE feed_id = ? AND guid = ?').pluck();
  return new Set(guids.filter((guid) => find.get(feedId, guid) !== undefined));
}

export function itemById(db: Db, id: number): ItemRow | undefined {
  return checkedRow(itemRow, db.prepare('SELECT * FROM items WHERE id = ?').get(id), 'itemById');
}
