import type { SearchOptions } from '../store.js';

/** Search hits grouped and paged, the same for both engines' full-text indexes. */

/**
 * The hits of matching versions, best-ranked first (both backends): one per version with
 * `allVersions` (the query already paged them), else one per article — its best-ranked version,
 * with every version that matched — paged here.
 */
export function hitsOf<R extends { article: number; n: number }>(rows: R[], options: SearchOptions): Array<{ best: R; versions: number[] }> {
  if (options.allVersions) return rows.map((row) => ({ best: row, versions: [row.n] }));
  const byArticle = new Map<number, { best: R; versions: number[] }>();
  for (const row of rows) {
    const entry = byArticle.get(row.article);
    if (entry) entry.versions.push(row.n);
    else byArticle.set(row.article, { best: row, versions: [row.n] });
  }
  const offset = options.offset ?? 0;
  return [...byArticle.values()].slice(offset, offset + (options.limit ?? 100)).map(({ best, versions }) => ({ best, versions: versions.sort((a, b) => a - b) }));
}
