import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { readMigrations } from '../../src/archive/migrations.js';
import type { ScriptedEdit } from '../../src/synthetic/articles.js';
import { SyntheticWeb } from '../../src/synthetic/server.js';
import { seededRandom } from '../../src/util/random.js';
import { finished, forest, startForest, waitFor } from '../helpers/cli.js';
import { query, scalar, workspace } from '../helpers/setup.js';

/*
 * The crash loop: a busy daemon (polls, first captures, extractions in the pool, revisits of
 * edited articles) is killed with SIGKILL at random moments, 20 times, then run to the end. A
 * kill at any moment must leave the database consistent and lose or duplicate nothing.
 */

const SECOND = 1000;
const SITES = ['ledger', 'orbit', 'parish', 'fieldnotes'];
const EDITS: ScriptedEdit[] = SITES.flatMap((site, i) => [
  { site, index: 7, after: (4 + i) * SECOND, kind: 'correct-word' as const },
  { site, index: 6, after: (9 + i) * SECOND, kind: 'add-paragraph' as const },
]);

const web = new SyntheticWeb({ edits: EDITS });
before(() => web.start());
after(() => web.stop());

const count = (db: string, sql: string) => scalar<number>(db, sql);
/** Whether the daemon has logged that it runs (start-up done). */
const saidRunning = (daemon: ReturnType<typeof startForest>) => `${daemon.output.stdout}${daemon.output.stderr}`.includes('"msg":"forest running"');

test('20 SIGKILLs at random moments of a busy run: integrity ok, nothing duplicated, every page served is archived', async () => {
  const ws = workspace(SITES.map((slug) => ({ url: web.site(slug).feedUrl })), { revisit: { after: Array.from({ length: 60 }, () => '1s') } });
  const random = seededRandom(20261122);
  let killedWithWork = 0;
  for (let kill = 0; kill < 20; kill++) {
    const daemon = startForest([...ws.args, 'run']);
    // Let it get going (the first start creates the database), then kill it somewhere in its
    // work: at a random moment after it says it runs. Counted from the spawn, the moment fell
    // before any work whenever the machine was busy (starting node, the database and the pool's
    // threads takes from under one second to several), and the kill tested nothing.
    await waitFor(() => saidRunning(daemon), 30_000, `run ${kill} to start`);
    if (kill === 0) await waitFor(() => existsSync(ws.db) && count(ws.db, 'SELECT COUNT(*) FROM snapshots') > 0, 20_000, 'first captures');
    const work = () => count(ws.db, 'SELECT (SELECT COUNT(*) FROM polls) + (SELECT COUNT(*) FROM snapshots) + (SELECT COUNT(*) FROM checks)');
    const before = work();
    await new Promise((resolve) => setTimeout(resolve, 200 + random() * 2000));
    daemon.kill('SIGKILL');
    const ended = await finished(daemon);
    assert.equal(ended.signal, 'SIGKILL', `run ${kill} was still running when killed: ${ended.stderr}`);
    if (work() > before) killedWithWork++;
    assert.equal(scalar<string>(ws.db, 'PRAGMA quick_check'), 'ok', `after kill ${kill}`);
  }
  assert.ok(killedWithWork >= 10, `most kills interrupted work in progress (${killedWithWork} of 20)`);
  // Every article page the server served with 200 at least once and not archived as an article.
  const lostPages = () => {
    const served = new Set(web.requests.filter((request) => request.status === 200 && request.path.startsWith('/articles/')).map((request) => `${request.site}${request.path}`));
    const archived = new Set(query<{ url: string }>(ws.db, 'SELECT url FROM articles').map((row) => {
      const url = new URL(row.url);
      const site = SITES.find((slug) => new URL(web.site(slug).url).host === url.host)!;
      return `${site}${url.pathname}`;
    }));
    return { served, lost: [...served].filter((page) => !archived.has(page)) };
  };
  // The last run finishes what the kills left (captures, extractions, due revisits), stopped as a
  // service manager would once it has: a fixed 8 s left pages unarchived on a loaded machine (2026-12-02).
  const lastRun = startForest([...ws.args, 'run']);
  try {
    // Once it runs: before, a SIGTERM would find node still starting, without its handlers.
    await waitFor(() => saidRunning(lastRun), 30_000, 'the last run to start');
    await waitFor(() => lostPages().lost.length === 0 && count(ws.db, 'SELECT COUNT(*) FROM articles WHERE versions > 1') >= 1, 60_000, 'every page served archived, an edit found');
  } finally {
    lastRun.kill('SIGTERM');
  }
  const last = await finished(lastRun);
  assert.equal(last.code, 0, last.stderr);

  assert.equal(scalar<string>(ws.db, 'PRAGMA integrity_check'), 'ok');
  const check = await forest([...ws.args, 'check']);
  assert.equal(check.code, 0, check.stdout);
  // Nothing duplicated: one item per guid and feed, one article per item, one check per snapshot,
  // and no version that repeats the one before it.
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM (SELECT 1 FROM items GROUP BY feed_id, guid HAVING COUNT(*) > 1)'), 0, 'duplicated items');
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM (SELECT 1 FROM articles GROUP BY item_id HAVING COUNT(*) > 1)'), 0, 'duplicated articles');
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM (SELECT 1 FROM checks WHERE snapshot_id IS NOT NULL GROUP BY snapshot_id HAVING COUNT(*) > 1)'), 0, 'a snapshot checked twice');
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM versions a JOIN versions b ON b.article_id = a.article_id AND b.n = a.n + 1 WHERE a.hash = b.hash'), 0, 'a version repeating the one before');
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM (SELECT 1 FROM versions GROUP BY article_id, n HAVING COUNT(*) > 1)'), 0, 'a version number twice');
  // Versions in time order.
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM versions a JOIN versions b ON b.article_id = a.article_id AND b.n = a.n + 1 WHERE b.captured_at < a.captured_at'), 0, 'a version older than the one before');

  // Every article page the server served with 200 at least once is archived as an article.
  const { served, lost } = lostPages();
  assert.deepEqual(lost, [], 'pages served but not archived');
  assert.ok(served.size >= 24, `${served.size} pages served`);
  // The edits were found: at least one article has more than one version.
  assert.ok(count(ws.db, 'SELECT COUNT(*) FROM articles WHERE versions > 1') >= 1);
});

/** SQLite's quick_check through a connection that may write (see its use). */
function quickCheck(path: string): unknown {
  const db = new Database(path, { fileMustExist: true });
  try {
    return db.pragma('quick_check', { simple: true });
  } finally {
    db.close();
  }
}

test('SIGKILL while the daemon starts (node, migrations, the lease, the pool): the next start completes the schema and runs', async () => {
  const random = seededRandom(20261126);
  const migrations = readMigrations().length;
  // How long a start takes here (from under one second to several, with the machine's load): the
  // kills are spread over it, so that they land in start-up on a fast machine too.
  // The shorter of two probes: one start slowed by a moment of load elsewhere would spread the
  // kills past the starts that follow.
  let startup = Infinity;
  for (let probes = 0; probes < 2; probes++) {
    const probe = workspace([{ url: web.site(SITES[0]!).feedUrl }]);
    const spawned = Date.now();
    const first = startForest([...probe.args, 'run']);
    await waitFor(() => saidRunning(first), 30_000, 'a start');
    startup = Math.min(startup, Date.now() - spawned);
    first.kill('SIGKILL');
    await finished(first);
  }
  let beforeRunning = 0;
  for (let kill = 0; kill < 8; kill++) {
    // A new database each time: the first start is the one that creates and migrates it.
    const ws = workspace([{ url: web.site(SITES[kill % SITES.length]!).feedUrl }]);
    const spawned = Date.now();
    const daemon = startForest([...ws.args, 'run']);
    let ranAfter = Infinity;
    const heard = (): void => {
      if (ranAfter === Infinity && saidRunning(daemon)) ranAfter = Date.now() - spawned;
    };
    daemon.stdout!.on('data', heard);
    daemon.stderr!.on('data', heard);
    await new Promise((resolve) => setTimeout(resolve, random() * startup));
    daemon.kill('SIGKILL');
    await finished(daemon);
    if (!saidRunning(daemon)) beforeRunning++;
    // A start faster than the probes (the machine's load fell): later kills are spread over it,
    // so that one quiet moment does not carry every kill past start-up.
    else startup = Math.min(startup, ranAfter);
    // Read-write: a kill inside the first transaction (before WAL mode is on) leaves a hot
    // rollback journal, which only a connection that may write rolls back (a read-only one
    // fails with SQLITE_READONLY_ROLLBACK) — as the next start does.
    if (existsSync(ws.db)) assert.equal(quickCheck(ws.db), 'ok', `after kill ${kill}`);
    const again = await forest([...ws.args, 'run', '--exit-after', '2s']);
    assert.equal(again.code, 0, `start after kill ${kill}: ${again.stderr}`);
    assert.equal(scalar<string>(ws.db, 'PRAGMA integrity_check'), 'ok');
    assert.equal(count(ws.db, 'SELECT COUNT(*) FROM schema_migrations'), migrations, `every migration applied after kill ${kill}`);
    assert.ok(count(ws.db, 'SELECT COUNT(*) FROM polls') > 0, `the run after kill ${kill} polled`);
  }
  // Kills after start-up are the test above's; this one is for the ones before.
  assert.ok(beforeRunning >= 4, `most kills came during start-up (${beforeRunning} of 8)`);
});

/**
 * A writer killed in the middle of a transaction in rollback-journal mode (a new database's first
 * transaction, before WAL mode is on; or any tool of the user's) leaves a hot journal: the file
 * holds half of the transaction, the journal what it overwrote. A connection that may not write
 * cannot roll it back (SQLITE_READONLY_ROLLBACK). Forest's reading commands open the archive as
 * the daemon does, so the first of them rolls the transaction back and answers.
 */
test('a read command on an archive a kill left mid-transaction rolls the half-written transaction back and answers', async () => {
  const ws = workspace([{ url: web.site(SITES[0]!).feedUrl }]);
  const made = await forest([...ws.args, 'feeds', 'list']);
  assert.equal(made.code, 0, made.stderr);
  // A child that writes with a one-page cache (so that its changes spill into the file before
  // the commit) and is killed before it commits.
  const writer = `const Database = require(${JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'))});
    const db = new Database(${JSON.stringify(ws.db)});
    db.pragma('journal_mode = DELETE');
    db.pragma('cache_size = 1');
    db.exec('BEGIN');
    db.exec("UPDATE feeds SET title = 'half-written'");
    for (let i = 0; i < 2000; i++) db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(1000 + i, 'x'.repeat(200), 'y');
    process.kill(process.pid, 'SIGKILL');`;
  const killed = spawnSync(process.execPath, ['-e', writer]);
  assert.equal(killed.signal, 'SIGKILL', killed.stderr.toString());
  assert.ok(existsSync(`${ws.db}-journal`), 'the kill left a journal');
  assert.ok(readFileSync(ws.db).includes('half-written'), 'the file holds the half-written transaction');

  const status = await forest([...ws.args, 'status']);
  assert.equal(status.code, 0, status.stderr);
  assert.ok(status.stdout.includes(web.site(SITES[0]!).feedUrl), status.stdout);
  assert.doesNotMatch(status.stdout, /half-written/);
  assert.ok(!existsSync(`${ws.db}-journal`), 'the journal is rolled back and gone');
  assert.equal(scalar<string | null>(ws.db, 'SELECT title FROM feeds'), null);
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM schema_migrations'), readMigrations().length);
  assert.equal(scalar<string>(ws.db, 'PRAGMA quick_check'), 'ok');
});
