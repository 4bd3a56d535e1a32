import type { z } from 'zod';
import { checkedRow, checkedRows } from './rows.js';

/**
 * Rules written once for both engines (issue #66). A rule that reads and writes the archive is a
 * generator of statements: it yields each statement it needs and is resumed with its result.
 * Each engine runs the same generator its own way — SQLite synchronously, inside one
 * better-sqlite3 transaction, so that no other work interleaves with it (as every SQLite write
 * always did); PostgreSQL awaiting each statement on its transaction's connection. The rule
 * itself never sees an engine: what differs between the dialects is kept out of the SQL it
 * writes (portable SQL: `?`/`@name` placeholders, CAST, `RETURNING`, `ON CONFLICT`, quoted
 * camelCase aliases), or said as a property of the statement (`lock`) that each engine turns
 * into its own syntax. The same pattern is Babel's `gensync`: one body, run sync or async.
 */

/** Values for `?` placeholders in order, or for `@name` placeholders by name. */
export type Params = unknown[] | Record<string, unknown>;

/** What a rule asks of storage: one statement and what it wants back. */
export interface Statement {
  /** `all`: every row; `get`: the first row or undefined; `column`: the first column of every row; `run`: rows changed. */
  readonly kind: 'all' | 'get' | 'column' | 'run';
  readonly sql: string;
  readonly params: Params;
  /** Lock the rows read until the transaction ends (PostgreSQL's FOR UPDATE; a SQLite write transaction already holds the database). */
  readonly lock?: boolean;
}

/** A rule that runs statements and returns T. */
export type Steps<T> = Generator<Statement, T, unknown>;

/** A statement run to its result on one engine, synchronously (SQLite). */
export interface SyncSql {
  all(sql: string, params: Params): unknown[];
  get(sql: string, params: Params): unknown;
  column(sql: string, params: Params): unknown[];
  run(sql: string, params: Params): number;
}

/** A statement run to its result on one engine, asynchronously (PostgreSQL). */
export interface AsyncSql {
  all(sql: string, params?: Params): Promise<unknown[]>;
  get(sql: string, params?: Params): Promise<unknown>;
  column(sql: string, params?: Params): Promise<unknown[]>;
  run(sql: string, params?: Params): Promise<number>;
}

/** Runs a rule to its end on a synchronous engine (inside the caller's transaction, if any). */
export function runSteps<T>(sql: SyncSql, steps: Steps<T>): T {
  let next = steps.next();
  while (!next.done) {
    const { kind, sql: text, params } = next.value;
    next = steps.next(sql[kind](text, params));
  }
  return next.value;
}

/** Runs a rule to its end on an asynchronous engine (on the caller's transaction's connection, if any). */
export async function runStepsAsync<T>(sql: AsyncSql, steps: Steps<T>, lockSuffix = ' FOR UPDATE'): Promise<T> {
  let next = steps.next();
  while (!next.done) {
    const { kind, sql: text, params, lock } = next.value;
    next = steps.next(await sql[kind](lock ? text + lockSuffix : text, params));
  }
  return next.value;
}

// The statements rules are made of, each result checked before the rule sees it (rows.ts).

/** Every row, checked against `schema`. */
export function* rows<S extends z.ZodType>(schema: S, sql: string, params: Params, where: string, options: { lock?: boolean } = {}): Steps<Array<z.infer<S>>> {
  return checkedRows(schema, listOf(yield { kind: 'all', sql, params, ...(options.lock ? { lock: true } : {}) }, where), where);
}

/** The first row, checked against `schema` (undefined when there is none). */
export function* row<S extends z.ZodType>(schema: S, sql: string, params: Params, where: string, options: { lock?: boolean } = {}): Steps<z.infer<S> | undefined> {
  return checkedRow(schema, yield { kind: 'get', sql, params, ...(options.lock ? { lock: true } : {}) }, where);
}

/** The first column of the first row, checked against `schema` (undefined when there is no row). */
export function* value<S extends z.ZodType>(schema: S, sql: string, params: Params, where: string): Steps<z.infer<S> | undefined> {
  return checkedRow(schema, listOf(yield { kind: 'column', sql, params }, where)[0], where);
}

/** The first column of every row, checked against `schema`. */
export function* values<S extends z.ZodType>(schema: S, sql: string, params: Params, where: string): Steps<Array<z.infer<S>>> {
  return checkedRows(schema, listOf(yield { kind: 'column', sql, params }, where), where);
}

/** Whether the query finds a row. */
export function* exists(sql: string, params: Params): Steps<boolean> {
  return (yield { kind: 'get', sql, params }) !== undefined;
}

/** Runs a statement that writes; returns the rows it changed. */
export function* run(sql: string, params: Params): Steps<number> {
  const changed = yield { kind: 'run', sql, params };
  if (typeof changed !== 'number') throw new Error(`a write returned ${typeof changed}, not a count: ${sql.slice(0, 80)}`);
  return changed;
}

/** Runs an INSERT … RETURNING id; returns the id. */
export function* inserted(sql: string, params: Params, where: string): Steps<number> {
  const [id] = listOf(yield { kind: 'column', sql, params }, where);
  if (typeof id !== 'number' && typeof id !== 'bigint') throw new Error(`${where}: the insert returned no id`);
  return Number(id);
}

function listOf(result: unknown, where: string): unknown[] {
  if (!Array.isArray(result)) throw new Error(`${where}: the engine returned ${typeof result}, not rows`);
  return result;
}
