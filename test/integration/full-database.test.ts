import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import { SyntheticWeb } from '../../src/synthetic/server.js';
import { finished, forest, runUntil, startForest, waitFor } from '../helpers/cli.js';
import { scalar, workspace } from '../helpers/setup.js';

const web = new SyntheticWeb();
before(() => web.start());
after(() => web.stop());

const articles = (db: string) => scalar<number>(db, 'SELECT COUNT(*) FROM articles');

test('a full database: no new work, one error a minute, nothing committed lost, and work resumes when there is room', async () => {
  const ws = workspace([{ url: web.site('ledger').feedUrl }], { revisit: { enabled: false, after: ['1h'] } });
  // Until the site's eight pages are archived.
  assert.equal((await runUntil(ws.args, () => articles(ws.db) >= 8, 60_000, 'eight articles')).code, 0);
  const committed = articles(ws.db);
  assert.ok(committed >= 8);

  // Room that can be given back later (a body no capture uses, as `forest vacuum` would drop old
  // logs), then a cap a little above the file's size.
  const db = new Database(ws.db);
  db.prepare("INSERT INTO blobs (sha256, size, encoding, data) VALUES ('filler', 0, 'identity', zeroblob(?))").run(2 * 2 ** 20);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const bytes = (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
  db.close();
  writeFileSync(ws.feeds, stringify(['ledger', 'orbit', 'parish', 'fieldnotes'].map((slug) => ({ url: web.site(slug).feedUrl }))));

  const daemon = startForest([...ws.args, 'run'], { env: { FOREST_DATABASE_MAX_SIZE: `${Math.ceil(bytes / 1024) + 96}KB` } });
  const fullLines = () => daemon.output.stdout.split('\n').filter((line) => line.includes('the database is full')).length;
  try {
    await waitFor(() => fullLines() > 0, 30_000, 'the daemon to find the database full');
    const atFull = articles(ws.db);
    // Several units failed to write, and passes kept testing for room: still one line.
    await new Promise((resolve) => setTimeout(resolve, 6000));
    assert.equal(fullLines(), 1, 'one error a minute, not one per unit of work');
    assert.equal(daemon.exitCode, null, 'the daemon goes on');
    // status shows it from the next heartbeat on.
    await waitFor(async () => /DATABASE FULL since/.test((await forest([...ws.args, 'status'])).stdout), 15_000, 'status to show the full database');
    const status = await forest([...ws.args, 'status']);
    assert.doesNotMatch(status.stdout, /database or disk is full/, 'not recorded as the pages\' or feeds\' failure');
    assert.ok(articles(ws.db) >= committed, 'nothing committed is lost');

    // Room is given back: the daemon notices and goes on archiving.
    const admin = new Database(ws.db);
    admin.pragma('busy_timeout = 5000');
    admin.prepare("DELETE FROM blobs WHERE sha256 = 'filler'").run();
    admin.close();
    await waitFor(() => daemon.output.stdout.includes('the database has room again: resuming work'), 20_000, 'work resumed');
    await waitFor(() => articles(ws.db) > atFull, 30_000, 'more articles archived after the room came back');
  } finally {
    daemon.kill('SIGTERM');
    const ended = await finished(daemon);
    assert.equal(ended.code, 0, ended.stderr);
  }
  assert.equal(scalar<string>(ws.db, 'PRAGMA integrity_check'), 'ok');
  assert.equal((await forest([...ws.args, 'check'])).code, 0);
});
