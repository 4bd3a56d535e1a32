import { z } from 'zod';
import { checkedRow, checkedRows, count, integer } from '../rows.js';
import type { ArchiveCheck, LogRetention } from '../store.js';
import { MISCOUNTED_CHECKS, miscountedChecks } from '../feed-counts.js';
import type { PgDatabase } from './database.js';

/** `forest check` and retention on PostgreSQL (as integrity.ts and retention.ts on SQLite). */

/**
 * The foreign keys PostgreSQL enforces itself; what is left to check is what no constraint says:
 * the search documents against the text they index, and stored bodies against the captures
 * that use them.
 */
export async function checkArchive(db: PgDatabase): Promise<ArchiveCheck[]> {
  const checks: ArchiveCheck[] = [];
  const invalid = checkedRows(z.object({ index: z.string() }), await db.all(`SELECT indexrelid::regclass::text AS index FROM pg_index
    JOIN pg_class ON pg_class.oid = pg_index.indrelid JOIN pg_namespace ON pg_namespace.oid = pg_class.relnamespace
    WHERE pg_namespace.nspname = current_schema() AND NOT pg_index.indisvalid`), 'invalid indexes');
  checks.push({ name: 'PostgreSQL indexes', problems: invalid.map((row) => `index ${row.index} is invalid: REINDEX INDEX ${row.index}`) });
  checks.push({ name: 'foreign keys', problems: [] });
  const stale = checkedRow(count, (await db.column(`SELECT COUNT(*) FROM contents
    WHERE search IS DISTINCT FROM setweight(to_tsvector('forest', COALESCE(title, '')), 'A') || setweight(to_tsvector('forest', text), 'B')`))[0], 'search documents') ?? 0;
  checks.push({ name: 'search index', problems: stale ? [`${stale} version text${stale === 1 ? '' : 's'} whose search document does not match`] : [] });
  const orphans = checkedRow(z.object({ count, bytes: count }), await db.get(`SELECT COUNT(*) AS count, COALESCE(SUM(octet_length(data)), 0) AS bytes FROM blobs
    WHERE NOT EXISTS (SELECT 1 FROM snapshots WHERE snapshots.sha256 = blobs.sha256)
      AND NOT EXISTS (SELECT 1 FROM blobs AS dependent WHERE dependent.reference = blobs.sha256)
      AND NOT EXISTS (SELECT 1 FROM capture_references WHERE capture_references.sha256 = blobs.sha256)
      AND NOT EXISTS (SELECT 1 FROM requisites WHERE requisites.sha256 = blobs.sha256)`), 'orphan bodies')!;
  const bodies: string[] = [];
  if (orphans.count > 0) bodies.push(`${orphans.count} stored bod${orphans.count === 1 ? 'y' : 'ies'} (${orphans.bytes} bytes) that nothing uses`);
  checks.push({ name: 'stored bodies', problems: bodies });
  checks.push(miscountedChecks(checkedRow(count, (await db.column(MISCOUNTED_CHECKS))[0], 'miscounted checks') ?? 0));
  return checks;
}

const BATCH = 5000;

async function summarise(db: PgDatabase, select: string, before: string, summarise: string[], remove: string): Promise<number> {
  return db.transaction(async (sql) => {
    const ids = checkedRows(integer, await sql.column(select, [before, BATCH]), 'retention');
    if (ids.length === 0) return 0;
    for (const statement of summarise) await sql.run(statement, [ids]);
    await sql.run(remove, [ids]);
    return ids.length;
  });
}

/** Polls and checks that found nothing new older than the ages (ms) become per-day counts, a batch per transaction. */
export async function applyRetention(db: PgDatabase, ages: { polls: number | null; checks: number | null }, now: Date): Promise<LogRetention> {
  const report: LogRetention = { polls: 0, checks: 0 };
  const pollBatch = (before: string) => summarise(db, 'SELECT id FROM polls WHERE started_at < ? ORDER BY started_at LIMIT ? FOR UPDATE SKIP LOCKED', before,
    [`INSERT INTO poll_days (feed_id, day, polls, ok, not_modified, errors, new_items)
      SELECT feed_id, substr(started_at, 1, 10), COUNT(*), COUNT(*) FILTER (WHERE result = 'ok'), COUNT(*) FILTER (WHERE result = 'not-modified'),
        COUNT(*) FILTER (WHERE result = 'error'), SUM(new_items)
      FROM polls WHERE id = ANY(?::bigint[]) GROUP BY feed_id, substr(started_at, 1, 10)
      ON CONFLICT (feed_id, day) DO UPDATE SET polls = poll_days.polls + excluded.polls, ok = poll_days.ok + excluded.ok,
        not_modified = poll_days.not_modified + excluded.not_modified, errors = poll_days.errors + excluded.errors, new_items = poll_days.new_items + excluded.new_items`],
    'DELETE FROM polls WHERE id = ANY(?::bigint[])');
  const checkBatch = (before: string) => summarise(db, "SELECT id FROM checks WHERE at < ? AND result <> 'changed' ORDER BY at LIMIT ? FOR UPDATE SKIP LOCKED", before,
    [`INSERT INTO check_days (article_id, day, unchanged, failed)
      SELECT article_id, substr(at, 1, 10), COUNT(*) FILTER (WHERE result = 'unchanged'), COUNT(*) FILTER (WHERE result = 'failed')
      FROM checks WHERE id = ANY(?::bigint[]) GROUP BY article_id, substr(at, 1, 10)
      ON CONFLICT (article_id, day) DO UPDATE SET unchanged = check_days.unchanged + excluded.unchanged, failed = check_days.failed + excluded.failed`,
    // Each article's count of checks is of the checks stored (status sums it): the deleted leave it.
    `UPDATE articles SET checks = articles.checks - removed.n FROM
      (SELECT article_id, COUNT(*) AS n FROM checks WHERE id = ANY(?::bigint[]) GROUP BY article_id) AS removed WHERE articles.id = removed.article_id`],
    'DELETE FROM checks WHERE id = ANY(?::bigint[])');
  if (ages.polls !== null) {
    const before = new Date(now.getTime() - ages.polls).toISOString();
    for (let done = await pollBatch(before); done > 0; done = await pollBatch(before)) report.polls += done;
  }
  if (ages.checks !== null) {
    const before = new Date(now.getTime() - ages.checks).toISOString();
    for (let done = await checkBatch(before); done > 0; done = await checkBatch(before)) report.checks += done;
  }
  return report;
}
