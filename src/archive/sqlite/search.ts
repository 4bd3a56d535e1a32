import { z } from 'zod';
import type { Db } from './database.js';
import { hitsOf } from '../rules/search.js';
import { checkedRows, count, integer, nullableText, text } from '../rows.js';
import { parseSearchQuery, toFts5 } from '../search-query.js';
import type { SearchOptions, SearchHit } from '../store.js';

/**
 * Full-text search over the title and text of every version (SQLite FTS5, porter stemming). Text
 * that a later edit removed is still found, with the versions it stood in. The query is Forest's
 * own language (search-query.ts), translated to FTS5 here: FTS5 never sees the user's text.
 */

const hitRow = z.object({
  version: integer,
  article: integer,
  n: integer,
  feed: text,
  url: text,
  title: nullableText,
  latest: integer,
  capturedAt: text,
  rank: count,
});
type Row = z.infer<typeof hitRow>;
const snippetRow = z.object({ version: integer, snippet: text });

export function search(db: Db, query: string, options: SearchOptions = {}): SearchHit[] {
  const match = toFts5(parseSearchQuery(query));
  const rows: Row[] = checkedRows(hitRow, db.prepare(`SELECT versions.id AS version, versions.article_id AS article, versions.n, feeds.url AS feed, articles.url, contents.title,
        articles.versions AS latest, versions.captured_at AS capturedAt, bm25(version_search, 5.0, 1.0) AS rank
      FROM version_search JOIN versions ON versions.id = version_search.rowid JOIN contents ON contents.hash = versions.hash
      JOIN articles ON articles.id = versions.article_id JOIN feeds ON feeds.id = articles.feed_id
      WHERE version_search MATCH @query
        AND (@feed IS NULL OR feeds.url = @feed OR feeds.subscribed_url = @feed)
        AND (@since IS NULL OR versions.captured_at >= @since) AND (@until IS NULL OR versions.captured_at <= @until)
      ORDER BY rank LIMIT @limit OFFSET @offset`).all({
    query: match, feed: options.feed ?? null, since: options.since ?? null, until: options.until ?? null,
    limit: options.allVersions ? options.limit ?? 100 : 10_000, offset: options.allVersions ? options.offset ?? 0 : 0,
  }), 'search');
  const chosen = hitsOf(rows, options);
  // Snippets only for the hits returned: one costs about as much as ranking a hundred matches, and
  // a common word matches up to the 10,000 versions read above (bench:hundred-thousand).
  const snippets = new Map(checkedRows(snippetRow, db.prepare(`SELECT rowid AS version, snippet(version_search, 1, '[', ']', '…', 16) AS snippet
      FROM version_search WHERE version_search MATCH @query AND rowid IN (SELECT value FROM json_each(@versions))`).all({
    query: match, versions: JSON.stringify(chosen.map(({ best }) => best.version)),
  }), 'search snippets').map((row) => [row.version, row.snippet]));
  return chosen.map(({ best, versions }) => ({
    article: best.article, feed: best.feed, url: best.url, title: best.title, versions, latest: best.latest,
    inLatest: versions.includes(best.latest), capturedAt: best.capturedAt, rank: best.rank, snippet: snippets.get(best.version) ?? '',
  }));
}
