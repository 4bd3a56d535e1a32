import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { z } from 'zod';
import { migratePg, PgDatabase, type Sql } from '../../src/archive/postgres/database.js';
import { claimUnits } from '../../src/archive/postgres/lease.js';
import { duePolls } from '../../src/archive/postgres/queues.js';
import { requisiteHistories } from '../../src/archive/rules/requisites.js';
import { runStepsAsync, type Params } from '../../src/archive/steps.js';
import { startCluster } from '../helpers/pg-cluster.js';

/*
 * What the first day at 100,000 feeds on PostgreSQL found slow (issue #70, item 4). The queries:
 * each statement's plan run for real (EXPLAIN ANALYZE), and the rows its scans touched counted —
 * the rows they returned and the rows their filters threw away. A search of an index touches about
 * the rows it answers with; a walk that filters touches what it walks past. And the claims: one
 * daemon's claim does not wait on the lock another holds while it records a unit's work.
 */

const cluster = startCluster();
let db: PgDatabase;
let url: string;

before(async () => {
  url = await cluster.createDatabase('plans');
  db = new PgDatabase(url);
  await migratePg(db);
});
after(() => db.close());

/** A Sql that remembers every statement it ran, with its parameters. */
function recording(inner: Sql): { sql: Sql; statements: Array<{ sql: string; params: Params | undefined }> } {
  const statements: Array<{ sql: string; params: Params | undefined }> = [];
  const remember = <T>(run: (sql: string, params?: Params) => Promise<T>) => (sql: string, params?: Params) => {
    statements.push({ sql, params });
    return run(sql, params);
  };
  return {
    statements,
    sql: {
      all: remember((sql, params) => inner.all(sql, params)),
      get: remember((sql, params) => inner.get(sql, params)),
      column: remember((sql, params) => inner.column(sql, params)),
      run: remember((sql, params) => inner.run(sql, params)),
      exec: (sql) => inner.exec(sql),
    },
  };
}

const planNode = z.object({
  'Node Type': z.string(),
  'Actual Rows': z.number(),
  'Actual Loops': z.number(),
  'Rows Removed by Filter': z.number().optional(),
  get Plans() {
    return z.array(planNode).optional();
  },
});
type PlanNode = z.infer<typeof planNode>;

/** The rows a statement's scans touched, run for real: returned and filtered out, over every loop. */
async function rowsTouched(statement: { sql: string; params: Params | undefined }): Promise<{ rows: number; plan: string }> {
  const result = await db.get(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.sql}`, statement.params);
  const root = planNode.parse(z.object({ 'QUERY PLAN': z.array(z.object({ Plan: z.unknown() })) }).parse(result)['QUERY PLAN'][0]!.Plan);
  let rows = 0;
  const lines: string[] = [];
  const walk = (node: PlanNode, depth: number) => {
    if (node['Node Type'].endsWith('Scan') && !node['Node Type'].startsWith('CTE') && !node['Node Type'].startsWith('Values') && !node['Node Type'].startsWith('Function')) {
      rows += (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'];
    }
    lines.push(`${'  '.repeat(depth)}${node['Node Type']} rows=${node['Actual Rows']} loops=${node['Actual Loops']} removed=${node['Rows Removed by Filter'] ?? 0}`);
    for (const child of node.Plans ?? []) walk(child, depth + 1);
  };
  walk(root, 0);
  return { rows, plan: lines.join('\n') };
}

/** A connection that writes rows without their foreign keys' checks: a fixture of one table's shape. */
async function fill(statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SET session_replication_role = replica');
    for (const statement of statements) await client.query(statement);
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}

test('the never-polled feeds are found by an index search, not by walking past every feed already polled', async () => {
  // The first day subscribes every feed at once and polls them in id order: the polled ones are
  // the low ids. 19,000 of 20,000 polled, each planned for later; 1,000 never polled.
  await fill([`INSERT INTO feeds (subscribed_url, url, created_at, updated_at, next_poll_at)
    SELECT 'http://feeds.test/' || g, 'http://feeds.test/' || g, '2026-12-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z',
      CASE WHEN g <= 19000 THEN '2026-12-02T00:00:00.000Z' END
    FROM generate_series(1, 20000) AS g`]);
  const { sql, statements } = recording(db);
  const due = await duePolls(sql, new Date('2026-12-01T12:00:00.000Z'), 64);
  assert.equal(due.length, 64);
  assert.ok(due.every((ref) => ref.id > 19000), 'only never-polled feeds are due');
  for (const statement of statements) {
    const { rows, plan } = await rowsTouched(statement);
    assert.ok(rows <= 4 * 64, `${rows} rows touched for 64 due polls:\n${statement.sql}\n${plan}`);
  }
});

test("a requisite's last fetch and last kept one are found by index searches, however many captures named it", async () => {
  // A site's stylesheet named by thousands of pages, kept once and then reused: every capture's
  // row has the one fetch's time, and the newest is the highest id among them. And an image never
  // kept (its host refused): a row at every capture that named it, none with bytes.
  await fill([
    `INSERT INTO blobs (sha256, size, encoding, data) VALUES ('${'a'.repeat(64)}', 1, 'identity', '\\x00')`,
    `INSERT INTO requisites (snapshot_id, url, kind, via, fetched_at, status, sha256)
      SELECT g, 'http://site.test/fonts.css', 'stylesheet', 'link', '2026-11-01T00:00:00.000Z', 200, '${'a'.repeat(64)}' FROM generate_series(1, 6000) AS g`,
    `INSERT INTO requisites (snapshot_id, url, kind, via, fetched_at, status)
      SELECT g, 'http://site.test/' || g || '.png', 'image', 'img', '2026-11-01T00:00:00.000Z', 200 FROM generate_series(1, 6000) AS g`,
    `INSERT INTO requisites (snapshot_id, url, kind, via, fetched_at, error)
      SELECT g, 'http://refused.test/badge.gif', 'image', 'img', '2026-11-01T00:00:00.000Z', 'refused' FROM generate_series(1, 6000) AS g`,
  ]);
  const { sql, statements } = recording(db);
  const histories = await runStepsAsync(sql, requisiteHistories(['http://site.test/fonts.css', 'http://site.test/7.png', 'http://refused.test/badge.gif']));
  assert.equal(histories.size, 3);
  assert.equal(histories.get('http://site.test/fonts.css')?.kept?.sha256, 'a'.repeat(64));
  assert.equal(histories.get('http://refused.test/badge.gif')?.kept, null);
  assert.equal(statements.length, 1);
  const { rows, plan } = await rowsTouched(statements[0]!);
  assert.ok(rows <= 30, `${rows} rows touched for three URLs' histories:\n${plan}`);
});

test("a claim does not wait for another daemon's lock on a unit it holds: it is simply not granted", async () => {
  const now = new Date('2026-12-01T12:00:00.000Z');
  const [mine] = await claimUnits(db, 'daemon-a', [{ kind: 'learn', id: 41 }], now, 60_000);
  assert.equal(typeof mine, 'number');
  // Daemon A records the unit's work: its transaction holds the claim's row (as the stores'
  // record methods do, to check the fencing token) until it commits.
  const recording = new pg.Client({ connectionString: url });
  await recording.connect();
  try {
    await recording.query('BEGIN');
    await recording.query("SELECT token FROM claims WHERE kind = 'learn' AND id = 41 FOR UPDATE");
    const claimed = claimUnits(db, 'daemon-b', [{ kind: 'learn', id: 41 }, { kind: 'learn', id: 42 }], now, 60_000).then((tokens) => ({ tokens }));
    const held = new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 10_000).unref());
    const outcome = await Promise.race([claimed, held]);
    if (outcome === 'still waiting') assert.fail("daemon B's claim waited for daemon A's transaction");
    // 41 is A's; 42 was nobody's (a template to learn: no due check) and is B's now.
    assert.equal(outcome.tokens[0], null);
    assert.equal(typeof outcome.tokens[1], 'number');
  } finally {
    await recording.query('COMMIT');
    await recording.end();
  }
  // Once A's claim has expired, B takes the unit over: the filter skips live claims only.
  const later = new Date(now.getTime() + 120_000);
  const [taken] = await claimUnits(db, 'daemon-b', [{ kind: 'learn', id: 41 }], later, 60_000);
  assert.equal(typeof taken, 'number');
});
