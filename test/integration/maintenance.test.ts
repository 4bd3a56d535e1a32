import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { SyntheticWeb } from '../../src/synthetic/server.js';
import { finished, forest, startForest, waitFor } from '../helpers/cli.js';
import { scalar, workspace } from '../helpers/setup.js';

const web = new SyntheticWeb();
before(() => web.start());
after(() => web.stop());

const articles = (db: string) => scalar<number>(db, 'SELECT COUNT(*) FROM articles');

test('backup while the daemon runs gives a consistent copy that check passes and a daemon starts on; check lists what is wrong', async () => {
  const ws = workspace([{ url: web.site('ledger').feedUrl }, { url: web.site('orbit').feedUrl }], { revisit: { after: Array.from({ length: 30 }, () => '1s') } });
  const copy = join(ws.dir, 'backup.db');
  const daemon = startForest([...ws.args, 'run']);
  try {
    await waitFor(() => articles(ws.db) >= 8, 20_000, 'articles archived');
    const backup = await forest([...ws.args, 'backup', copy, '--json']);
    assert.equal(backup.code, 0, backup.stderr);
    const report = JSON.parse(backup.stdout) as { file: string; bytes: number };
    assert.equal(report.file, copy);
    assert.ok(report.bytes > 0 && existsSync(copy));
    const again = await forest([...ws.args, 'backup', copy]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already exists: choose another name, or pass --force/);
  } finally {
    daemon.kill('SIGTERM');
    assert.equal((await finished(daemon)).code, 0, daemon.output.stderr);
  }
  const checked = await forest([...ws.args, 'check', '--db', copy]);
  assert.equal(checked.code, 0, checked.stdout);
  assert.match(checked.stdout, /ok +SQLite integrity[\s\S]*ok +foreign keys[\s\S]*ok +search index[\s\S]*ok +stored bodies[\s\S]*the archive is consistent/);
  assert.equal((await forest([...ws.args, 'check'])).code, 0, 'the original is consistent too');

  // Restore: a daemon started on the copy carries on from it.
  const inCopy = articles(copy);
  assert.ok(inCopy >= 8);
  const restored = await forest([...ws.args, 'run', '--db', copy, '--exit-after', '3s']);
  assert.equal(restored.code, 0, restored.stderr);
  assert.ok(articles(copy) >= inCopy);

  // Damage the copy: a body nothing uses, a capture pointed at a body that is not there (its own
  // body, not a reference, is then unused too), a search index out of step with the versions.
  const db = new Database(copy);
  db.pragma('foreign_keys = OFF');
  db.prepare("INSERT INTO blobs (sha256, size, encoding, data) VALUES ('0000', 3, 'identity', x'616263')").run();
  db.prepare(`UPDATE snapshots SET sha256 = 'ffff' WHERE id = (SELECT MIN(id) FROM snapshots WHERE sha256 IS NOT NULL
    AND sha256 NOT IN (SELECT sha256 FROM capture_references)
    AND sha256 NOT IN (SELECT reference FROM blobs WHERE reference IS NOT NULL))`).run();
  const version = db.prepare('SELECT id FROM versions ORDER BY id LIMIT 1').pluck().get() as number;
  db.prepare("INSERT INTO version_search (version_search, rowid, title, text) VALUES ('delete', ?, 'not', 'what was indexed')").run(version);
  db.close();
  const damaged = await forest([...ws.args, 'check', '--db', copy]);
  assert.equal(damaged.code, 1);
  assert.match(damaged.stdout, /FAILED +foreign keys\n +1 row of snapshots points at a missing row of blobs/);
  assert.match(damaged.stdout, /FAILED +search index\n +the search index does not match/);
  assert.match(damaged.stdout, /FAILED +stored bodies\n +1 capture whose body is missing\n +2 stored bodies \(\d+ bytes\) that nothing uses/);
  const json = JSON.parse((await forest([...ws.args, 'check', '--db', copy, '--json'])).stdout) as { ok: boolean; checks: Array<{ name: string; problems: string[] }> };
  assert.equal(json.ok, false);
  assert.deepEqual(json.checks.filter((check) => check.problems.length > 0).map((check) => check.name), ['foreign keys', 'search index', 'stored bodies']);
});
