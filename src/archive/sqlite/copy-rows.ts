import { z } from 'zod';
import { COPY_PLAN, copyPageQuery, type CopyPart } from '../copy-plan.js';
import type { Db } from './database.js';
import { checkedRow, checkedRows, count, text } from '../rows.js';

/** `forest copy` on SQLite: pages of a table's rows, rows inserted as they are, the search index rebuilt after. */

const columnsOf = (db: Db, table: string): string[] =>
  checkedRows(z.object({ name: text }), db.prepare(`PRAGMA table_info(${table})`).all(), `columns of ${table}`).map((column) => column.name);

export function copyRows(db: Db, part: CopyPart, after: unknown[] | null, limit: number): Array<Record<string, unknown>> {
  const rows = db.prepare(copyPageQuery(part, columnsOf(db, part.table), after)).all(...(after ?? []), limit);
  return checkedRows(z.record(z.string(), z.unknown()), rows, `copy ${part.table}`);
}

export function insertCopied(db: Db, part: CopyPart, rows: Array<Record<string, unknown>>): void {
  const first = rows[0];
  if (!first) return;
  const columns = Object.keys(first);
  const insert = db.prepare(`INSERT INTO ${part.table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
  db.transaction(() => {
    for (const row of rows) insert.run(...columns.map((column) => row[column]));
  })();
}

export function isEmptyArchive(db: Db): boolean {
  return (checkedRow(count, db.prepare('SELECT (SELECT COUNT(*) FROM feeds) + (SELECT COUNT(*) FROM items) + (SELECT COUNT(*) FROM articles)').pluck().get(), 'isEmptyArchive') ?? 0) === 0;
}

/** The full-text index is external content over the versions: built once from the copied rows. */
export function finishCopy(db: Db): void {
  db.prepare("INSERT INTO version_search (version_search) VALUES ('rebuild')").run();
}

export function tableCounts(db: Db): Record<string, number> {
  const tables = [...new Set(COPY_PLAN.map((part) => part.table))];
  return Object.fromEntries(tables.map((table) => [table, checkedRow(count, db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get(), `count ${table}`) ?? 0]));
}
