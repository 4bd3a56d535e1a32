import { join } from 'node:path';
import pg from 'pg';
import { PROJECT_ROOT } from '../../util/project-root.js';
import { readMigrations } from '../migrations.js';
import { checkedRows, integer } from '../rows.js';
import type { AsyncSql, Params } from '../steps.js';

/**
 * The PostgreSQL connection (node-postgres): a pool, its own migrations, and the two ways a
 * query runs — alone on any pooled connection, or inside a transaction on one. Queries are
 * written with `?` or `@name` placeholders, as the SQLite backend writes them, and numbered
 * ($1, $2, …) here. A connection the server dropped (a restart, a network partition) leaves the
 * pool on its first error and the next query opens a new one: that is the reconnect; the query
 * that failed fails, and its transaction is rolled back as a whole.
 */

export const PG_MIGRATIONS_DIR = join(PROJECT_ROOT, 'migrations', 'postgres');

/** Numbers come back as numbers: int8 (ids, counts) and numeric (sums) stay far below 2^53 here. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value);
    return format === undefined ? pg.types.getTypeParser(oid) : pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};

/**
 * A query's text for the server. `name`: a query the daemon sends again and again is prepared
 * once per connection (node-postgres keeps the names it prepared per connection) — the server
 * then skips parsing and planning it, the larger part of its work on the small queries the
 * daemon sends. Names go only to queries kept in the cache below, so their number is bounded.
 */
interface Numbered { text: string; names: string[] | null; name?: string }

const numbered = new Map<string, Numbered>();
/** Distinct query texts remembered (and prepared on each connection): the daemon sends a few hundred. */
const REMEMBERED = 2000;

/**
 * `?` → $n in order, or `@name` → $n (a name used twice is one parameter). Placeholders inside
 * quoted strings are left alone.
 */
export function numberPlaceholders(sql: string): Numbered {
  const cached = numbered.get(sql);
  if (cached) return cached;
  const names: string[] = [];
  let positional = 0;
  let out = '';
  let quote: string | null = null;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (quote) {
      out += c;
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') {
      quote = c;
      out += c;
    } else if (c === '?') {
      out += `$${++positional}`;
    } else if (c === '@' && /[A-Za-z_]/.test(sql[i + 1] ?? '')) {
      const name = /^[A-Za-z_]\w*/.exec(sql.slice(i + 1))![0];
      let index = names.indexOf(name);
      if (index < 0) index = names.push(name) - 1;
      out += `$${index + 1}`;
      i += name.length;
    } else {
      out += c;
    }
  }
  const remembered = numbered.size < REMEMBERED;
  const result: Numbered = { text: out, names: names.length ? names : null, ...(remembered ? { name: `forest_${numbered.size}` } : {}) };
  if (remembered) numbered.set(sql, result);
  return result;
}

function values(sql: string, params: Params | undefined): { text: string; values: unknown[]; name?: string } {
  const { text, names, name } = numberPlaceholders(sql);
  const list = params === undefined ? [] : Array.isArray(params) ? params : namedValues(sql, names, params);
  return name === undefined ? { text, values: list } : { text, values: list, name };
}

function namedValues(sql: string, names: string[] | null, params: Record<string, unknown>): unknown[] {
  if (!names) throw new Error(`named parameters given to a query without @names: ${sql.slice(0, 80)}`);
  return names.map((parameter) => {
    if (!(parameter in params)) throw new Error(`query parameter @${parameter} has no value: ${sql.slice(0, 80)}`);
    return params[parameter];
  });
}

/** What a query runs on: the pool (each query on any connection) or one transaction's connection; shared rules run on it (steps.ts). */
export interface Sql extends AsyncSql {
  /** Statements sent as they are (a migration): no placeholders, several statements allowed. */
  exec(sql: string): Promise<void>;
}

function sqlOn(client: pg.Pool | pg.PoolClient): Sql {
  const query = async (sql: string, params?: Params) => {
    return client.query(values(sql, params));
  };
  return {
    all: async (sql, params) => (await query(sql, params)).rows,
    get: async (sql, params) => (await query(sql, params)).rows[0],
    column: async (sql, params) => {
      const result = await query(sql, params);
      const field = result.fields[0]?.name;
      return field === undefined ? [] : result.rows.map((row: Record<string, unknown>) => row[field]);
    },
    run: async (sql, params) => (await query(sql, params)).rowCount ?? 0,
    exec: async (sql) => void (await client.query(sql)),
  };
}

/** PostgreSQL's codes for a transaction that lost a race and may simply be run again. */
const RETRYABLE = new Set(['40001', '40P01']);

export class PgDatabase implements Sql {
  readonly pool: pg.Pool;
  private readonly sql: Sql;

  constructor(url: string, options: { max?: number } = {}) {
    this.pool = new pg.Pool({ connectionString: url, max: options.max ?? 8, types, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 10_000 });
    // An idle connection the server closed: the pool drops it and opens another when needed.
    this.pool.on('error', () => undefined);
    this.sql = sqlOn(this.pool);
  }

  all(sql: string, params?: Params) {
    return this.sql.all(sql, params);
  }

  get(sql: string, params?: Params) {
    return this.sql.get(sql, params);
  }

  column(sql: string, params?: Params) {
    return this.sql.column(sql, params);
  }

  run(sql: string, params?: Params) {
    return this.sql.run(sql, params);
  }

  exec(sql: string) {
    return this.sql.exec(sql);
  }

  /**
   * Runs `work` in one transaction on one connection (READ COMMITTED, row locks where a query
   * takes them); a serialization failure or deadlock runs it again, up to three times.
   */
  async transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.pool.connect();
      // The server dropping the connection mid-transaction (a restart) is reported twice: as the
      // failed query, which rolls the transaction back, and as an 'error' event, which would
      // otherwise crash the process.
      const dropped = () => undefined;
      client.on('error', dropped);
      let broken = false;
      try {
        await client.query('BEGIN');
        const result = await work(sqlOn(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
        const code = (error as { code?: unknown }).code;
        if (attempt < 3 && typeof code === 'string' && RETRYABLE.has(code)) continue;
        throw error;
      } finally {
        client.off('error', dropped);
        client.release(broken);
      }
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/**
 * Applies the migrations not recorded yet, each in its own transaction, under an advisory lock:
 * several daemons starting at once on one archive migrate it once.
 */
export async function migratePg(db: PgDatabase, migrations = readMigrations(PG_MIGRATIONS_DIR)): Promise<number[]> {
  return db.transaction(async (sql) => {
    await sql.get('SELECT pg_advisory_xact_lock(4242001)');
    await sql.run(`CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at text NOT NULL)`);
    const applied = new Set(checkedRows(integer, await sql.column('SELECT version FROM schema_migrations'), 'schema_migrations'));
    const done: number[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await sql.exec(migration.sql);
      await sql.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [migration.version, migration.name, new Date().toISOString()]);
      done.push(migration.version);
    }
    return done;
  });
}
