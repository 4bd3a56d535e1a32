import { z } from 'zod';
import { parseJson } from '../util/json.js';

/**
 * Rows as SQLite returned them, checked against their schema before the rest of Forest sees them:
 * better-sqlite3 types every row as `unknown`, and a cast would let a column that was renamed,
 * dropped or stored with another type (a migration gone wrong, a database written by another
 * version) flow on as a wrong type far from its query. A check that fails names the query and
 * the column.
 */

/** The row `value` (undefined when the query found none), checked against `schema`. */
export function checkedRow<S extends z.ZodType>(schema: S, value: unknown, query: string): z.infer<S> | undefined {
  return value === undefined ? undefined : check(schema, value, query);
}

/** Every row of `values`, checked against `schema`. */
export function checkedRows<S extends z.ZodType>(schema: S, values: unknown[], query: string): Array<z.infer<S>> {
  return values.map((value) => check(schema, value, query));
}

function check<S extends z.ZodType>(schema: S, value: unknown, query: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new Error(`${query}: the database returned an unexpected row (${z.prettifyError(result.error).replace(/\s+/g, ' ')})`);
  return result.data;
}

/** Parses a JSON column with `schema`; a row that fails names itself. */
export const json = parseJson;

/** Response headers as stored: a repeated header is a list. */
export const storedHeaders = z.record(z.string(), z.union([z.string(), z.array(z.string())]));

/** A capture's stored headers, a repeated header's values joined with ", " (as HTTP allows). */
export function joinedHeaders(text: string, where: string): Record<string, string> {
  return Object.fromEntries(Object.entries(json(storedHeaders, text, where)).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]));
}

/** Column types as SQLite returns them. */
export const integer = z.number().int();
export const text = z.string();
export const nullableInteger = integer.nullable();
export const nullableText = text.nullable();
/** A count, or another number an aggregate returns. */
export const count = z.number();
/** A REAL column. */
export const nullableReal = z.number().nullable();
