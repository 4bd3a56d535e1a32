import Database from 'better-sqlite3';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { Db } from './database.js';
import { checkedRow, checkedRows, count } from '../rows.js';
import type { ArchiveCheck } from '../store.js';
import { MISCOUNTED_CHECKS, miscountedChecks } from '../feed-counts.js';

/** Rows of a query as plain objects (PRAGMA results are untyped). */
const rows = (db: Db, sql: string) => checkedRows(z.record(z.string(), z.unknown()), db.prepare(sql).all(), sql);

/**
 * Everything `forest check` verifies: SQLite's own integrity check, foreign keys, the full-text
 * index against the versions it indexes, and that stored bodies and the captures that use them
 * match (a body nothing uses is space lost; a capture whose body is missing is data lost).
 * Read-only, and safe beside a running daemon (WAL: it reads one consistent state).
 */
export function checkArchive(db: Db): ArchiveCheck[] {
  const checks: ArchiveCheck[] = [];
  const integrity = rows(db, 'PRAGMA integrity_check').map((row) => String(Object.values(row)[0]));
  checks.push({ name: 'SQLite integrity', problems: integrity.length === 1 && integrity[0] === 'ok' ? [] : integrity });

  // Dangling rows, counted per table and the table they point into.
  const dangling = new Map<string, { table: string; parent: string; count: number }>();
  for (const row of rows(db, 'PRAGMA foreign_key_check')) {
    const table = String(row['table']);
    const parent = String(row['parent']);
    const link = dangling.get(`${table}\u0000${parent}`) ?? { table, parent, count: 0 };
    link.count++;
    dangling.set(`${table}\u0000${parent}`, link);
  }
  checks.push({
    name: 'foreign keys',
    problems: [...dangling.values()].map(({ table, parent, count }) =>
      `${count} row${count === 1 ? ' of' : 's of'} ${table} ${count === 1 ? 'points' : 'point'} at a missing row of ${parent}`),
  });

  const search: string[] = [];
  try {
    // FTS5's own check of an external-content index against its content (the versions' text).
    db.prepare("INSERT INTO version_search (version_search, rank) VALUES ('integrity-check', 1)").run();
  } catch (error) {
    search.push(`the search index does not match the stored versions (${(error as Error).message}); rebuild it with: sqlite3 DB "INSERT INTO version_search (version_search) VALUES ('rebuild')"`);
  }
  checks.push({ name: 'search index', problems: search });

  // A body is in use when a capture is, when another body was compressed against it, or when it
  // is a site's reference for the next captures (codec.ts).
  const orphans = db.prepare(`SELECT COUNT(*) AS count, COALESCE(SUM(LENGTH(data)), 0) AS bytes FROM blobs
    WHERE NOT EXISTS (SELECT 1 FROM snapshots WHERE snapshots.sha256 = blobs.sha256)
      AND NOT EXISTS (SELECT 1 FROM blobs AS dependent WHERE dependent.reference = blobs.sha256)
      AND NOT EXISTS (SELECT 1 FROM capture_references WHERE capture_references.sha256 = blobs.sha256)
      AND NOT EXISTS (SELECT 1 FROM requisites WHERE requisites.sha256 = blobs.sha256)`).get();
  const { count: orphanCount, bytes: orphanBytes } = checkedRow(z.object({ count, bytes: count }), orphans, 'orphan bodies')!;
  const missing = checkedRow(count, db.prepare('SELECT COUNT(*) FROM snapshots WHERE sha256 IS NOT NULL AND NOT EXISTS (SELECT 1 FROM blobs WHERE blobs.sha256 = snapshots.sha256)').pluck().get(), 'missing bodies') ?? 0;
  const bodies: string[] = [];
  if (missing > 0) bodies.push(`${missing} capture${missing === 1 ? '' : 's'} whose body is missing`);
  if (orphanCount > 0) bodies.push(`${orphanCount} stored bod${orphanCount === 1 ? 'y' : 'ies'} (${orphanBytes} bytes) that nothing uses`);
  checks.push({ name: 'stored bodies', problems: bodies });
  checks.push(miscountedChecks(checkedRow(count, db.prepare(MISCOUNTED_CHECKS).pluck().get(), 'miscounted checks') ?? 0));
  return checks;
}

/**
 * An online, consistent copy of the archive while the daemon may be writing: SQLite's backup
 * API (through better-sqlite3). It copies in one step, so that a write by the daemon between
 * steps — which makes SQLite start the copy again — costs at most one more pass instead of
 * restarting forever on a busy archive. The copy is written beside `file` and renamed into
 * place once complete: a failed backup never leaves a file that looks like one. The copy holds
 * no lease.
 */
export async function backupArchive(db: Db, file: string, options: { overwrite: boolean }): Promise<{ file: string; bytes: number; ms: number }> {
  // A backup's folder (backups/ beside the archive, a dated tree) is made when it is missing.
  mkdirSync(dirname(file), { recursive: true });
  if (existsSync(file) && !options.overwrite) throw new Error(`${file} already exists: choose another name, or pass --force to replace it`);
  const started = performance.now();
  const partial = `${file}.partial-${process.pid}`;
  try {
    await db.backup(partial, { progress: () => 0x7fffffff });
    // The copy is nobody's running archive: without this, the daemon's lease would travel with
    // it, and a daemon started on the copy would wait for a heartbeat that never comes.
    const copy = new Database(partial);
    try {
      copy.prepare('DELETE FROM leases').run();
    } finally {
      copy.close();
    }
    renameSync(partial, file);
  } finally {
    rmSync(partial, { force: true });
  }
  return { file, bytes: statSync(file).size, ms: Math.round(performance.now() - started) };
}
