import { z } from 'zod';
import { COPY_PLAN, copyPageQuery, type CopyPart } from '../copy-plan.js';
import { checkedRow, checkedRows, count, text } from '../rows.js';
import type { PgDatabase } from './database.js';

/** `forest copy` on PostgreSQL: pages of a table's rows (generated columns left out), multi-row inserts, the id sequences moved past the copied ids. */

const columns = new Map<string, string[]>();

async function columnsOf(db: PgDatabase, table: string): Promise<string[]> {
  let known = columns.get(table);
  if (!known) {
    known = checkedRows(z.object({ column_name: text }), await db.all(`SELECT column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = ? AND is_generated = 'NEVER' ORDER BY ordinal_position`, [table]), `columns of ${table}`).map((row) => row.column_name);
    columns.set(table, known);
  }
  return known;
}

export async function copyRows(db: PgDatabase, part: CopyPart, after: unknown[] | null, limit: number): Promise<Array<Record<string, unknown>>> {
  const rows = await db.all(copyPageQuery(part, await columnsOf(db, part.table), after), [...(after ?? []), limit]);
  return checkedRows(z.record(z.string(), z.unknown()), rows, `copy ${part.table}`);
}

/** Rows in one transaction, a few hundred per statement (PostgreSQL takes at most 65,535 parameters in one). */
export async function insertCopied(db: PgDatabase, part: CopyPart, rows: Array<Record<string, unknown>>): Promise<void> {
  const first = rows[0];
  if (!first) return;
  const names = Object.keys(first);
  const perStatement = Math.max(1, Math.floor(60_000 / names.length));
  await db.transaction(async (sql) => {
    for (let start = 0; start < rows.length; start += perStatement) {
      const chunk = rows.slice(start, start + perStatement);
      const values = chunk.map((_, row) => `(${names.map((__, column) => `$${row * names.length + column + 1}`).join(', ')})`).join(', ');
      // The statement holds column names and $n only; the rows' text travels as parameters.
      await sql.run(`INSERT INTO ${part.table} (${names.join(', ')}) VALUES ${values}`, chunk.flatMap((row) => names.map((name) => row[name])));
    }
  });
}

export async function isEmptyArchive(db: PgDatabase): Promise<boolean> {
  return (checkedRow(count, (await db.column('SELECT (SELECT COUNT(*) FROM feeds) + (SELECT COUNT(*) FROM items) + (SELECT COUNT(*) FROM articles)'))[0], 'isEmptyArchive') ?? 0) === 0;
}

/** Identity columns take their next value past the copied ids. */
export async function finishCopy(db: PgDatabase): Promise<void> {
  for (const part of COPY_PLAN.filter((candidate) => candidate.identity)) {
    await db.get(`SELECT setval(pg_get_serial_sequence('${part.table}', 'id'), COALESCE((SELECT MAX(id) FROM ${part.table}), 0) + 1, false)`);
  }
}

export async function tableCounts(db: PgDatabase): Promise<Record<string, number>> {
  const tables = [...new Set(COPY_PLAN.map((part) => part.table))];
  const counts: Record<string, number> = {};
  for (const table of tables) counts[table] = checkedRow(count, (await db.column(`SELECT COUNT(*) FROM ${table}`))[0], `count ${table}`) ?? 0;
  return counts;
}
