import type { Db } from './database.js';
import { changeRow, type ChangeRow } from '../rules/access.js';
import { checkedRows } from '../rows.js';

/** The change feed on SQLite (its index named, its tags read with json_each); the rows are rules/access.ts's. */

/** Versions after the first (edits found by a revisit), newest first, of a feed or a tag. */
export function recentChanges(db: Db, filter: { feed?: string | undefined; tag?: string | undefined }, limit: number): ChangeRow[] {
  return checkedRows(changeRow, db.prepare(`SELECT versions.article_id AS articleId, versions.n, versions.captured_at AS capturedAt, contents.title, articles.url, versions.change,
      versions.summary, versions.diff, feeds.subscribed_url AS feed, COALESCE(feeds.title, feeds.feed_title) AS feedTitle
    FROM versions INDEXED BY versions_edits JOIN articles ON articles.id = versions.article_id JOIN feeds ON feeds.id = articles.feed_id
      JOIN contents ON contents.hash = versions.hash
    WHERE versions.n > 1 AND (@feed IS NULL OR feeds.url = @feed OR feeds.subscribed_url = @feed)
      AND (@tag IS NULL OR EXISTS (SELECT 1 FROM json_each(feeds.tags) WHERE json_each.value = @tag))
    ORDER BY versions.captured_at DESC LIMIT @limit`).all({ feed: filter.feed ?? null, tag: filter.tag ?? null, limit }), 'recentChanges');
}
