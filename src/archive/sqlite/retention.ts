import { checkpoint, type Db } from './database.js';
import { checkedRows, integer } from '../rows.js';
import type { LogRetention } from '../store.js';

/**
 * Retention of operational logs (migration 0006). Polls older than `pollsOlderThan`, and checks
 * that found nothing new (unchanged or failed) older than `checksOlderThan`, are added to per-day
 * counts and deleted, a batch per transaction so that the daemon's writes are never held up for
 * long. A check whose snapshot is still referenced by nothing else keeps its snapshot row (the
 * capture stays); only the check row goes.
 */

const BATCH = 5000;

function summarisePolls(db: Db, before: string): number {
  return db.transaction(() => {
    const ids = checkedRows(integer, db.prepare('SELECT id FROM polls INDEXED BY polls_started WHERE started_at < ? ORDER BY started_at LIMIT ?').pluck().all(before, BATCH), 'summarisePolls');
    if (ids.length === 0) return 0;
    const list = JSON.stringify(ids);
    db.prepare(`INSERT INTO poll_days (feed_id, day, polls, ok, not_modified, errors, new_items)
      SELECT feed_id, substr(started_at, 1, 10), COUNT(*), SUM(result = 'ok'), SUM(result = 'not-modified'), SUM(result = 'error'), SUM(new_items)
      FROM polls WHERE id IN (SELECT value FROM json_each(?)) GROUP BY feed_id, substr(started_at, 1, 10)
      ON CONFLICT (feed_id, day) DO UPDATE SET polls = polls + excluded.polls, ok = ok + excluded.ok, not_modified = not_modified + excluded.not_modified,
        errors = errors + excluded.errors, new_items = new_items + excluded.new_items`).run(list);
    db.prepare('DELETE FROM polls WHERE id IN (SELECT value FROM json_each(?))').run(list);
    return ids.length;
  })();
}

function summariseChecks(db: Db, before: string): number {
  return db.transaction(() => {
    const ids = checkedRows(integer, db.prepare("SELECT id FROM checks INDEXED BY checks_at WHERE at < ? AND result <> 'changed' ORDER BY at LIMIT ?").pluck().all(before, BATCH), 'summariseChecks');
    if (ids.length === 0) return 0;
    const list = JSON.stringify(ids);
    db.prepare(`INSERT INTO check_days (article_id, day, unchanged, failed)
      SELECT article_id, substr(at, 1, 10), SUM(result = 'unchanged'), SUM(result = 'failed')
      FROM checks WHERE id IN (SELECT value FROM json_each(?)) GROUP BY article_id, substr(at, 1, 10)
      ON CONFLICT (article_id, day) DO UPDATE SET unchanged = unchanged + excluded.unchanged, failed = failed + excluded.failed`).run(list);
    // Each article's count of checks is of the checks stored (status sums it): the deleted leave it.
    db.prepare(`UPDATE articles SET checks = checks - removed.n FROM
      (SELECT article_id, COUNT(*) AS n FROM checks WHERE id IN (SELECT value FROM json_each(?)) GROUP BY article_id) AS removed WHERE articles.id = removed.article_id`).run(list);
    db.prepare('DELETE FROM checks WHERE id IN (SELECT value FROM json_each(?))').run(list);
    return ids.length;
  })();
}

/** Applies the retention ages (ms); `null` keeps that log for ever. Returns the rows summarised. */
export function applyRetention(db: Db, ages: { polls: number | null; checks: number | null }, now: Date): LogRetention {
  const report: LogRetention = { polls: 0, checks: 0 };
  if (ages.polls !== null) {
    const before = new Date(now.getTime() - ages.polls).toISOString();
    for (let done = summarisePolls(db, before); done > 0; done = summarisePolls(db, before)) report.polls += done;
  }
  if (ages.checks !== null) {
    const before = new Date(now.getTime() - ages.checks).toISOString();
    for (let done = summariseChecks(db, before); done > 0; done = summariseChecks(db, before)) report.checks += done;
  }
  return report;
}

/**
 * Gives the free pages of the file back to the file system: SQLite reuses free pages without it,
 * so this only matters after a large retention pass. VACUUM rewrites the whole file and holds the
 * write lock while it does: run it when the daemon can wait (`forest vacuum --full`).
 */
export function vacuum(db: Db): void {
  checkpoint(db);
  db.exec('VACUUM');
  checkpoint(db);
}
