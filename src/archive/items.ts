import type { FeedItem } from '../feeds/model.js';
import type { Db } from './database.js';

export interface ItemRow {
  id: number;
  feed_id: number;
  guid: string;
  link: string | null;
  orig_link: string | null;
  title: string | null;
  summary: string | null;
  published: string | null;
  updated: string | null;
  author: string | null;
  first_seen: string;
  last_seen: string;
  page_state: string;
  page_attempts: number;
  page_error: string | null;
  page_due_at: string | null;
}

export interface UpsertReport {
  newItems: number;
  changedItems: number;
  /** The items whose date, title or summary changed. */
  changedIds: number[];
}

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
    const row = find.get(feedId, item.guid) as { id: number; title: string | null; summary: string | null; updated: string | null } | undefined;
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
  return db.prepare('SELECT * FROM items WHERE id = ?').get(id) as ItemRow | undefined;
}
