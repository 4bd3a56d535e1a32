import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { COPY_PLAN } from '../src/archive/copy-plan.js';
import { openDatabase } from '../src/archive/sqlite/database.js';
import { openArchive } from '../src/archive/open-archive.js';
import { fillArchive } from '../test/helpers/big-archive.js';
import { launchCluster } from '../test/helpers/pg-cluster.js';
import { benchArgs } from './args.js';

/**
 * bench:copy (issue #51): `forest copy` of an archive of N articles (default 100,000) from SQLite
 * to PostgreSQL and back, with the built CLI as a user runs it: each way's time and rows per
 * second, `forest check` on each copy, each table's rows counted, and each table's content
 * compared — a digest of every row (its columns as JSON, bytes as base64), order aside: the
 * two backends page text keys in their own collation.
 *
 * The archive is test/helpers/big-archive.ts's synthetic one (feeds, items, two captures per
 * item, extractions, articles, versions, checks, queues), each capture with a body of its own of
 * BODY_BYTES random bytes — the size of a stored capture in bench:scale (about 3 KB
 * compressed), so that the copy moves what a real archive of that many articles holds.
 *
 *   npm run bench:copy -- [--articles=100000] [--json] [--keep]
 */

const args = benchArgs();
const ARTICLES = Number(args.get('articles') ?? 100_000);
const ITEMS_PER_FEED = 100;
const BODY_BYTES = 3200;
const ROOT = join(import.meta.dirname, '..');
const PAGE = 2000;

/** A SQLite archive of `articles` captured articles (big-archive leaves one item in a thousand uncaptured). */
function buildSource(path: string): void {
  const db = openDatabase(path);
  const feeds = Math.ceil((ARTICLES * 1000) / 999 / ITEMS_PER_FEED);
  fillArchive(db, { feeds, itemsPerFeed: ITEMS_PER_FEED, snapshotsPerItem: 2 });
  db.transaction(() => {
    db.prepare(`INSERT INTO blobs (sha256, size, encoding, data) SELECT printf('%064x', id), ?, 'identity', randomblob(?) FROM snapshots`).run(BODY_BYTES, BODY_BYTES);
    db.prepare(`UPDATE snapshots SET sha256 = printf('%064x', id)`).run();
    db.prepare(`DELETE FROM blobs WHERE sha256 = '0000'`).run();
  })();
  // big-archive writes its versions with SQL alone, beside the search index: built here, so that
  // the source is an archive `forest check` finds clean, as a user's would be.
  db.exec("INSERT INTO version_search (version_search) VALUES ('rebuild')");
  db.close();
}

const cli = (...argv: string[]) => {
  const started = performance.now();
  const run = spawnSync(process.execPath, [join(ROOT, 'bin', 'forest.js'), ...argv], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, ms: performance.now() - started };
};

const copied = z.object({ rows: z.record(z.string(), z.number()) }).passthrough();
const checked = z.object({ ok: z.boolean(), checks: z.array(z.object({ name: z.string(), problems: z.array(z.string()) })) });

function copy(source: string, target: string) {
  const run = cli('copy', source, target, '--json');
  if (run.status !== 0) throw new Error(`forest copy ${source} → ${target} failed: ${run.stderr}`);
  return { ms: run.ms, rows: copied.parse(JSON.parse(run.stdout)).rows };
}

function check(archive: string) {
  const run = cli('--db', archive, 'check', '--json');
  const result = checked.parse(JSON.parse(run.stdout));
  return { ok: result.ok, problems: result.checks.flatMap((one) => one.problems.map((problem) => `${one.name}: ${problem}`)) };
}

/** A value as the same JSON on both backends: bytes as base64, numbers as numbers. */
const plain = (value: unknown): unknown => (value instanceof Uint8Array ? Buffer.from(value).toString('base64') : typeof value === 'bigint' ? Number(value) : value);

/** Per table: a digest of its rows whatever their order (each row's hash, sorted, hashed). */
async function digests(archive: { path: string; url: string | null }): Promise<Map<string, string>> {
  const store = await openArchive({ ...archive, maxSize: 'unlimited' });
  const rowsOf = new Map<string, string[]>();
  try {
    for (const part of COPY_PLAN) {
      const hashes = rowsOf.get(part.table) ?? [];
      let after: unknown[] | null = null;
      for (;;) {
        const rows = await store.copyRows(part, after, PAGE);
        for (const row of rows) {
          const columns = Object.keys(row).sort().map((column) => [column, plain(row[column])]);
          hashes.push(createHash('sha256').update(JSON.stringify(columns)).digest('hex'));
        }
        if (rows.length < PAGE) break;
        after = part.key.map((column) => rows.at(-1)![column]);
      }
      rowsOf.set(part.table, hashes);
    }
  } finally {
    await store.close();
  }
  return new Map([...rowsOf].map(([table, hashes]) => [table, createHash('sha256').update(hashes.sort().join('')).digest('hex')]));
}

const work = mkdtempSync(join(tmpdir(), 'forest-copy-'));
const cluster = launchCluster();
try {
  const source = join(work, 'source.db');
  const back = join(work, 'back.db');
  process.stderr.write(`building a SQLite archive of ${ARTICLES.toLocaleString('en')} articles…\n`);
  buildSource(source);
  const url = await cluster.createDatabase('copy');
  process.stderr.write('SQLite → PostgreSQL…\n');
  const there = copy(source, url);
  process.stderr.write('PostgreSQL → SQLite…\n');
  const home = copy(url, back);
  process.stderr.write('checking and comparing every row…\n');
  const checks = { source: check(source), postgres: check(url), back: check(back) };
  const [a, b, c] = [await digests({ path: source, url: null }), await digests({ path: '', url }), await digests({ path: back, url: null })];
  const differing = [...a.keys()].filter((table) => a.get(table) !== b.get(table) || a.get(table) !== c.get(table));
  const rows = Object.values(there.rows).reduce((sum, n) => sum + n, 0);
  const result = {
    articles: there.rows['articles'] ?? 0, rows, tables: there.rows,
    toPostgresS: there.ms / 1000, toSqliteS: home.ms / 1000,
    countsEqual: JSON.stringify(there.rows) === JSON.stringify(home.rows), checks, tablesDiffering: differing,
  };
  if (args.has('json')) {
    console.log(JSON.stringify(result));
  } else {
    console.log(`\nbench:copy — ${result.articles.toLocaleString('en')} articles, ${rows.toLocaleString('en')} rows in ${Object.keys(there.rows).length} tables\n`);
    console.log('| direction | time | rows/s | `forest check` on the copy | every row equal to the source |');
    console.log('|---|---|---|---|---|');
    const equal = (table: Map<string, string>) => ([...a.keys()].every((name) => a.get(name) === table.get(name)) ? 'yes' : `no: ${[...a.keys()].filter((name) => a.get(name) !== table.get(name)).join(', ')}`);
    console.log(`| SQLite → PostgreSQL | ${result.toPostgresS.toFixed(1)} s | ${Math.round(rows / result.toPostgresS).toLocaleString('en')} | ${checks.postgres.ok ? 'clean' : checks.postgres.problems.join('; ')} | ${equal(b)} |`);
    console.log(`| PostgreSQL → SQLite | ${result.toSqliteS.toFixed(1)} s | ${Math.round(rows / result.toSqliteS).toLocaleString('en')} | ${checks.back.ok ? 'clean' : checks.back.problems.join('; ')} | ${equal(c)} |`);
    console.log(`\nthe source's own check: ${checks.source.ok ? 'clean' : checks.source.problems.join('; ')}; table counts equal both ways: ${result.countsEqual ? 'yes' : 'no'}`);
  }
  if (differing.length > 0 || !result.countsEqual || !checks.postgres.ok || !checks.back.ok) process.exitCode = 1;
} finally {
  cluster.dispose();
  if (args.has('keep')) process.stderr.write(`kept ${work}\n`);
  else rmSync(work, { recursive: true, force: true });
}
