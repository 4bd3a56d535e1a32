import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../util/project-root.js';

/**
 * The migrations' files, read the same way for both engines (migrations/ for SQLite,
 * migrations/postgres/ for PostgreSQL): this module loads neither engine's driver.
 */

export const MIGRATIONS_DIR = join(PROJECT_ROOT, 'migrations');

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** `dir`/NNNN_name.sql, in order of their number. */
export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .map((file) => /^(\d+)_(.+)\.sql$/.exec(file))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ version: Number(match[1]), name: match[2]!, sql: readFileSync(join(dir, match[0]), 'utf8') }))
    .sort((a, b) => a.version - b.version);
}
