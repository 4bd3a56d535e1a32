import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { SyntheticWeb } from '../../src/synthetic/server.js';
import { forest, runUntil } from '../helpers/cli.js';
import { startCluster } from '../helpers/pg-cluster.js';
import { scalar, workspace } from '../helpers/setup.js';

/*
 * `forest copy SOURCE TARGET` (issue #51 item 5): an archive the daemon made on SQLite, copied to
 * PostgreSQL and back to a new SQLite file. Both sides check clean, every table's rows are
 * counted equal, the copy of the copy reads the same — articles, history, search, the JSONL
 * export byte for byte — and a daemon goes on on the copy. A target that holds anything is refused.
 */

const web = new SyntheticWeb();
const cluster = startCluster();
before(() => web.start());
after(() => web.stop());

const lines = (stdout: string) => stdout.trim().split('\n').filter(Boolean);

test('an archive copied SQLite → PostgreSQL → SQLite is the same archive; a non-empty target is refused', async () => {
  const ws = workspace([web.site('ledger'), web.site('orbit')].map((site) => ({ url: site.feedUrl })), { revisit: { after: Array.from({ length: 20 }, () => '1s') } });
  // Until there are ten articles and a revisit, not a fixed time: a loaded machine archived 6 in 8 s.
  const run = await runUntil(ws.args, () => existsSync(ws.db) && scalar<number>(ws.db, 'SELECT COUNT(*) FROM articles') >= 10
    && scalar<number>(ws.db, 'SELECT COUNT(*) FROM checks') > scalar<number>(ws.db, 'SELECT COUNT(*) FROM articles'), 60_000, 'ten articles and a revisit');
  assert.equal(run.code, 0, run.stderr);
  const url = await cluster.createDatabase('copy_target');
  const back = join(ws.dir, 'back.db');

  const there = await forest([...ws.args, 'copy', ws.db, url, '--json']);
  assert.equal(there.code, 0, there.stderr);
  const rows = (JSON.parse(there.stdout) as { rows: Record<string, number> }).rows;
  assert.ok(rows['articles']! >= 10 && rows['versions']! >= rows['articles']! && rows['checks']! > rows['articles']! && rows['blobs']! > 0, JSON.stringify(rows));
  const returned = await forest([...ws.args, 'copy', url, back, '--json']);
  assert.equal(returned.code, 0, returned.stderr);
  assert.deepEqual((JSON.parse(returned.stdout) as { rows: Record<string, number> }).rows, rows, 'the copy of the copy has every row');

  for (const db of [url, back]) {
    const check = await forest([...ws.args, '--db', db, 'check', '--json']);
    assert.equal(check.code, 0, `${db}: ${check.stdout}`);
  }
  const read = async (db: string, args: string[]) => (await forest([...ws.args, '--db', db, ...args])).stdout;
  const articles = await read(ws.db, ['articles', '--json']);
  assert.ok(lines(articles).length >= 10);
  const first = (JSON.parse(lines(articles)[0]!) as { id: number }).id;
  for (const db of [url, back]) {
    assert.equal(await read(db, ['articles', '--json']), articles, `${db}: the same articles`);
    assert.equal(await read(db, ['history', String(first), '--json']), await read(ws.db, ['history', String(first), '--json']), `${db}: the same history`);
    assert.deepEqual(lines(await read(db, ['search', 'the', '--json'])).length, lines(await read(ws.db, ['search', 'the', '--json'])).length, `${db}: the same hits`);
  }
  for (const [db, name] of [[ws.db, 'a'], [back, 'b']] as const) assert.equal((await forest([...ws.args, '--db', db, 'export', '--out', join(ws.dir, `${name}.jsonl`)])).code, 0);
  assert.ok(readFileSync(join(ws.dir, 'a.jsonl')).equals(readFileSync(join(ws.dir, 'b.jsonl'))), 'the JSONL export of the copy of the copy is byte for byte the original\'s');

  const refused = await forest([...ws.args, 'copy', ws.db, url]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /already holds an archive: copy into a new file or an empty database/);

  // The daemon goes on on the PostgreSQL copy: new rows take ids past the copied ones.
  const more = await forest([...ws.args, '--db', url, 'run', '--exit-after', '4s']);
  assert.equal(more.code, 0, more.stderr);
  const check = await forest([...ws.args, '--db', url, 'check', '--json']);
  assert.equal(check.code, 0, check.stdout);
});
