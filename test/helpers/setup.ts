import Database from 'better-sqlite3';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { tempDir, writeFile } from './temp.js';

export interface Workspace {
  dir: string;
  config: string;
  feeds: string;
  db: string;
  args: string[];
}

/** A temp folder with a settings file tuned for tests (short intervals, tiny politeness delay). */
export function workspace(subscriptions: Array<Record<string, unknown>> = [], overrides: Record<string, unknown> = {}): Workspace {
  const dir = tempDir();
  const feeds = writeFile(dir, 'feeds.yaml', subscriptions.length ? stringify(subscriptions) : '[]\n');
  const db = join(dir, 'forest.db');
  const { http, ...rest } = overrides;
  const settings = {
    subscriptions: feeds,
    database: { path: db },
    // Test servers listen on loopback, which Forest refuses unless told (http.allowPrivateNetworks).
    http: { perHostDelay: '20ms', timeout: '5s', connectTimeout: '2s', allowPrivateNetworks: ['127.0.0.0/8'], ...(http as Record<string, unknown> | undefined) },
    schedule: { defaultInterval: '2s', minInterval: '1s', maxInterval: '2s', jitter: 0 },
    capture: { retryDelay: '1s' },
    shutdown: { deadline: '5s' },
    ...rest,
  };
  const config = writeFile(dir, 'settings.yaml', stringify(settings));
  return { dir, config, feeds, db, args: ['--config', config] };
}

/** Runs `query` on the workspace database, opened read-only beside a possibly running daemon. */
export function query<T>(path: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

export function scalar<T>(path: string, sql: string, ...params: unknown[]): T {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).pluck().get(...params) as T;
  } finally {
    db.close();
  }
}
