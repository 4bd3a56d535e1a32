import type { Db } from './database.js';
import { runSteps, type Steps, type SyncSql } from '../steps.js';

/**
 * SQLite's side of the statements shared rules yield (steps.ts): better-sqlite3 binds `?` and
 * `@name` placeholders as written, and statements come from the connection's cache
 * (database.ts). A statement's pluck mode is set for the call and put back, since one cached
 * statement may serve other callers that read whole rows.
 */
export function sqliteSql(db: Db): SyncSql {
  return {
    all: (sql, params) => db.prepare(sql).all(params),
    get: (sql, params) => db.prepare(sql).get(params),
    column: (sql, params) => {
      const statement = db.prepare(sql).pluck(true);
      try {
        return statement.all(params);
      } finally {
        statement.pluck(false);
      }
    },
    run: (sql, params) => db.prepare(sql).run(params).changes,
  };
}

const adapters = new WeakMap<Db, SyncSql>();

/** Runs a shared rule on a SQLite connection (in the caller's transaction, if any). */
export function runOn<T>(db: Db, steps: Steps<T>): T {
  let sql = adapters.get(db);
  if (!sql) adapters.set(db, (sql = sqliteSql(db)));
  return runSteps(sql, steps);
}
