import Database from 'better-sqlite3';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { readMigrations } from '../migrations.js';
import { checkedRow, checkedRows, count, integer } from '../rows.js';

export type Db = Database.Database;

/** Applies the migrations the database has not recorded yet, each in its own transaction. */
export function migrate(db: Db, migrations = readMigrations()): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = new Set(checkedRows(integer, db.prepare('SELECT version FROM schema_migrations').pluck().all(), 'schema_migrations'));
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const done: number[] = [];
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
    })();
    done.push(migration.version);
  }
  return done;
}

/** Opens (creating if needed) the database in WAL mode with its schema up to date. */
/**
 * Whether another connection holds the database file open (a running `forest serve` or daemon):
 * a connection in exclusive locking mode cannot read while another one has the file open in WAL
 * mode (SQLite's locking: the shared-memory index is in use), and answers SQLITE_BUSY at once.
 * A missing file is held by nobody. The probe changes nothing.
 */
export function heldOpenElsewhere(path: string): boolean {
  if (!existsSync(path)) return false;
  const probe = new Database(path, { timeout: 0, fileMustExist: true });
  try {
    probe.pragma('locking_mode = EXCLUSIVE');
    probe.prepare('SELECT count(*) FROM sqlite_master').get();
    return false;
  } catch (error) {
    if (error instanceof Database.SqliteError && /^SQLITE_BUSY/.test(error.code)) return true;
    throw error;
  } finally {
    probe.close();
  }
}

export function openDatabase(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  // NORMAL is durable across process crashes in WAL mode; only a power loss can drop the
  // last transactions, never corrupt the file.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  cacheStatements(db);
  return db;
}

/** Moves the write-ahead log into the database file and empties it (a quiet moment, or before reporting the file's size). */
export function checkpoint(db: Db): void {
  db.pragma('wal_checkpoint(TRUNCATE)');
}

/**
 * Prepared statements are kept per SQL text: preparing is most of the cost of a small query, and
 * the daemon runs the same few dozen queries all day. (Every call site of a given text uses it
 * the same way — with or without pluck() — and none iterates, so sharing a statement is safe.)
 */
function cacheStatements(db: Db): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, Database.Statement>();
  db.prepare = ((source: string) => {
    let statement = cache.get(source);
    if (!statement) {
      statement = prepare(source);
      // Statements built from data (none today) would grow the cache: it stays bounded.
      if (cache.size < 2000) cache.set(source, statement);
    }
    return statement;
  }) as Db['prepare'];
}

/** The file system or `database.maxSize` has no room for the write (SQLite's SQLITE_FULL). */
export function isStorageFull(error: unknown): boolean {
  return error instanceof Database.SqliteError && error.code === 'SQLITE_FULL';
}

/** How much a space probe writes: a capture's worth, so that room for it means room for work. */
const ROOM_PROBE_BYTES = 256 * 1024;

class ProbeDone extends Error {}

/**
 * Whether a capture's worth of data can be written now: a row is written and rolled back. Used
 * while the database is full, to resume as soon as space is back (`forest vacuum`, a larger
 * `database.maxSize`, a bigger disk). A real write is the only honest test: free pages inside the
 * file, the size cap and the disk all play a part.
 */
export function hasRoomToWrite(db: Db): boolean {
  try {
    db.transaction(() => {
      db.prepare("INSERT INTO blobs (sha256, size, encoding, data) VALUES ('forest:space-probe', 0, 'identity', zeroblob(?))").run(ROOM_PROBE_BYTES);
      throw new ProbeDone();
    })();
  } catch (error) {
    if (error instanceof ProbeDone) return true;
    if (isStorageFull(error)) return false;
    throw error;
  }
  return true;
}

/** Caps the database file at `bytes` (SQLite's max_page_count); writes beyond fail as storage full. */
export function limitSize(db: Db, bytes: number): void {
  const pageSize = checkedRow(count, db.pragma('page_size', { simple: true }), 'page_size') ?? 4096;
  db.pragma(`max_page_count = ${Math.max(1, Math.floor(bytes / pageSize))}`);
}
