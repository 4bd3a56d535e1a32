import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { z } from 'zod';
import { openDatabase, type Db } from '../../src/archive/sqlite/database.js';
import { openArchive } from '../../src/archive/open-archive.js';
import { startCluster } from '../helpers/pg-cluster.js';

// The two engines' schemas are kept by hand, one set of migrations each (migrations/ and
// migrations/postgres/). This test migrates both and compares what they hold — tables, columns
// (type family, nullability, default), indexes (uniqueness, partial or not) and foreign keys — so
// that a column or an index added to one engine only fails here (issue #66). What differs on
// purpose is listed below, with why.

/** Tables of one engine alone. */
const ONLY: Record<'sqlite' | 'postgres', Record<string, string>> = {
  sqlite: {
    version_documents: 'full-text search: FTS5 over a view of the versions\' text',
    version_search: 'FTS5', version_search_config: 'FTS5', version_search_data: 'FTS5', version_search_docsize: 'FTS5', version_search_idx: 'FTS5',
  },
  postgres: {
    claims: 'several daemons share one PostgreSQL archive: units of work claimed by one', daemons: 'the daemons registered on it', hosts: 'each host\'s politeness, across daemons',
  },
};
/** Columns and indexes of one engine alone (`table.column`, or an index's name), with why. */
const ONLY_COLUMNS: Record<'sqlite' | 'postgres', Record<string, string>> = {
  sqlite: {},
  postgres: { 'contents.search': 'full-text search: a tsvector per content, where SQLite has FTS5' },
};
const ONLY_INDEXES: Record<'sqlite' | 'postgres', Record<string, string>> = {
  sqlite: {},
  postgres: {
    contents_search: 'the GIN index of contents.search', claims_owner: 'a daemon\'s claims (claims is PostgreSQL\'s alone)',
    versions_hash: 'search joins a matching content to its versions by hash (SQLite\'s FTS5 indexes the versions themselves)',
    feeds_never_polled: 'the never-polled feeds in id order: SQLite searches feeds_due for a NULL time, its entries in rowid order; PostgreSQL does not take IS NULL as fixing the first column (migrations/postgres/0014)',
  },
};

interface Schema {
  /** table → column → `family, null|not null, default …` */
  columns: Map<string, Map<string, string>>;
  /** index name → `table(unique|plain, partial|whole)` for the indexes migrations create by name. */
  indexes: Map<string, string>;
  /** `table.column → table.column` */
  foreignKeys: Set<string>;
}

/** A column type's family: both engines store the same values under other names (INTEGER/bigint, REAL/double precision, BLOB/bytea). */
function family(type: string): string {
  const name = type.toLowerCase();
  if (/int/.test(name)) return 'integer';
  if (/real|double|float|numeric/.test(name)) return 'real';
  if (/blob|bytea/.test(name)) return 'bytes';
  if (/text|char/.test(name)) return 'text';
  return name;
}
/** A default as written, without PostgreSQL's cast (`'[]'::text` is `'[]'`). */
const plainDefault = (value: string | null) => (value === null ? 'no default' : `default ${value.replace(/::[a-z ]+$/, '')}`);

const pragmaColumn = z.object({ name: z.string(), type: z.string(), notnull: z.number(), dflt_value: z.string().nullable(), pk: z.number(), hidden: z.number() });
const pragmaIndex = z.object({ name: z.string(), unique: z.number(), origin: z.string(), partial: z.number() });
const pragmaKey = z.object({ table: z.string(), from: z.string(), to: z.string().nullable() });

function sqliteSchema(db: Db): Schema {
  const schema: Schema = { columns: new Map(), indexes: new Map(), foreignKeys: new Set() };
  const tables = z.array(z.string()).parse(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all());
  for (const table of tables) {
    const columns = new Map<string, string>();
    for (const column of z.array(pragmaColumn).parse(db.prepare(`PRAGMA table_xinfo("${table}")`).all())) {
      if (column.hidden !== 0) continue;
      columns.set(column.name, `${family(column.type)}, ${column.notnull || column.pk ? 'not null' : 'null'}, ${plainDefault(column.dflt_value)}`);
    }
    schema.columns.set(table, columns);
    for (const index of z.array(pragmaIndex).parse(db.prepare(`PRAGMA index_list("${table}")`).all())) {
      if (index.origin !== 'c') continue;
      schema.indexes.set(index.name, `${table}(${index.unique ? 'unique' : 'plain'}, ${index.partial ? 'partial' : 'whole'})`);
    }
    for (const key of z.array(pragmaKey).parse(db.prepare(`PRAGMA foreign_key_list("${table}")`).all())) {
      schema.foreignKeys.add(`${table}.${key.from} → ${key.table}.${key.to ?? 'id'}`);
    }
  }
  return schema;
}

async function postgresSchema(client: pg.Client): Promise<Schema> {
  const schema: Schema = { columns: new Map(), indexes: new Map(), foreignKeys: new Set() };
  const columns = z.array(z.object({ table_name: z.string(), column_name: z.string(), data_type: z.string(), is_nullable: z.string(), column_default: z.string().nullable() })).parse((await client.query(
    "SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position")).rows);
  for (const column of columns) {
    const table = schema.columns.get(column.table_name) ?? new Map<string, string>();
    schema.columns.set(column.table_name, table);
    // An identity column's default is the engine's way to number rows, as SQLite's INTEGER PRIMARY KEY.
    table.set(column.column_name, `${family(column.data_type)}, ${column.is_nullable === 'NO' ? 'not null' : 'null'}, ${plainDefault(column.column_default)}`);
  }
  // Indexes made by name: not those of a primary key or a UNIQUE constraint (SQLite's autoindexes).
  const indexes = z.array(z.object({ table: z.string(), name: z.string(), unique: z.boolean(), partial: z.boolean() })).parse((await client.query(`
    SELECT t.relname AS table, i.relname AS name, x.indisunique AS unique, x.indpred IS NOT NULL AS partial
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)`)).rows);
  for (const index of indexes) schema.indexes.set(index.name, `${index.table}(${index.unique ? 'unique' : 'plain'}, ${index.partial ? 'partial' : 'whole'})`);
  const keys = z.array(z.object({ from_table: z.string(), from_column: z.string(), to_table: z.string(), to_column: z.string() })).parse((await client.query(`
    SELECT kcu.table_name AS from_table, kcu.column_name AS from_column, ccu.table_name AS to_table, ccu.column_name AS to_column
    FROM information_schema.table_constraints tc
    JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema
    JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = tc.constraint_name AND ccu.table_schema = tc.table_schema
    WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = 'public'`)).rows);
  for (const key of keys) schema.foreignKeys.add(`${key.from_table}.${key.from_column} → ${key.to_table}.${key.to_column}`);
  return schema;
}

/** Every difference between the two schemas that is not listed as on purpose, one line each. */
function schemaDifferences(sqlite: Schema, postgres: Schema): string[] {
  const out: string[] = [];
  const engines = [['sqlite', sqlite, postgres], ['postgres', postgres, sqlite]] as const;
  for (const [name, mine, other] of engines) {
    for (const [table, columns] of mine.columns) {
      if (table in ONLY[name]) continue;
      const theirs = other.columns.get(table);
      if (!theirs) {
        out.push(`table ${table}: only on ${name}`);
        continue;
      }
      for (const [column, shape] of columns) {
        if (`${table}.${column}` in ONLY_COLUMNS[name]) continue;
        const their = theirs.get(column);
        if (their === undefined) out.push(`column ${table}.${column}: only on ${name}`);
        else if (name === 'sqlite' && !sameShape(shape, their)) out.push(`column ${table}.${column}: ${shape} on sqlite, ${their} on postgres`);
      }
    }
    for (const [index, shape] of mine.indexes) {
      if (index in ONLY_INDEXES[name]) continue;
      const their = other.indexes.get(index);
      if (their === undefined) out.push(`index ${index}: only on ${name}`);
      else if (name === 'sqlite' && their !== shape) out.push(`index ${index}: ${shape} on sqlite, ${their} on postgres`);
    }
    for (const key of mine.foreignKeys) if (!other.foreignKeys.has(key)) out.push(`foreign key ${key}: only on ${name}`);
  }
  return out;
}

/** Two columns alike; a numbered key (SQLite's INTEGER PRIMARY KEY, PostgreSQL's identity) has no default on SQLite and a sequence on PostgreSQL. */
const sameShape = (sqlite: string, postgres: string) => sqlite === postgres.replace(/, default nextval\(.*\)$/, ', no default');

const cluster = startCluster();

async function bothSchemas(change: { sqlite?: string } = {}): Promise<[Schema, Schema]> {
  const db = openDatabase(':memory:');
  if (change.sqlite) db.exec(change.sqlite);
  const url = await cluster.createDatabase(`schema_${Math.random().toString(36).slice(2, 10)}`);
  await (await openArchive({ path: '', maxSize: 'unlimited', url })).close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return [sqliteSchema(db), await postgresSchema(client)];
  } finally {
    await client.end();
    db.close();
  }
}

test('both engines, migrated, hold the same tables, columns, indexes and foreign keys, but for what differs on purpose', async () => {
  const [sqlite, postgres] = await bothSchemas();
  assert.ok(sqlite.columns.size > 15 && postgres.indexes.size > 20, 'both schemas were read');
  assert.deepEqual(schemaDifferences(sqlite, postgres), []);
});

test('a column, a default, a nullability or an index changed on one engine only is found', async () => {
  const [sqlite, postgres] = await bothSchemas({
    sqlite: `ALTER TABLE feeds ADD COLUMN drifted TEXT;
      CREATE INDEX items_drifted ON items (title);`,
  });
  const differences = schemaDifferences(sqlite, postgres);
  assert.ok(differences.includes('column feeds.drifted: only on sqlite'), differences.join('\n'));
  assert.ok(differences.includes('index items_drifted: only on sqlite'), differences.join('\n'));
  // The same columns with another shape.
  const reshaped = new Map(sqlite.columns);
  reshaped.set('items', new Map([...sqlite.columns.get('items')!].map(([column, shape]) => [column, column === 'page_attempts' ? 'integer, not null, default 1' : column === 'title' ? 'text, not null, no default' : shape])));
  assert.deepEqual(schemaDifferences({ ...sqlite, columns: reshaped }, postgres).filter((line) => !line.includes('drifted')).sort(), [
    'column items.page_attempts: integer, not null, default 1 on sqlite, integer, not null, default 0 on postgres',
    'column items.title: text, not null, no default on sqlite, text, null, no default on postgres',
  ]);
});
