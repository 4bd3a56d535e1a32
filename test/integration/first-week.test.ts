import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { SyntheticWeb } from '../../src/synthetic/server.js';
import { finished, forest, startForest, startServe, waitFor } from '../helpers/cli.js';
import { workspace } from '../helpers/setup.js';

/* Rough edges of a first week (issue #68, 9), each as a user met it. */

const web = new SyntheticWeb();
before(() => web.start());
after(() => web.stop());

test('a restart after a long stop is not "behind schedule": the polls due while no daemon ran are not its lateness', async () => {
  const ws = workspace([{ url: web.site('ledger').feedUrl }]);
  assert.equal((await forest([...ws.args, 'run', '--exit-after', '2s'])).code, 0);
  // The daemon was stopped for an hour: its feed fell due long ago.
  const db = new Database(ws.db);
  db.prepare('UPDATE feeds SET next_poll_at = ?').run(new Date(Date.now() - 3_600_000).toISOString());
  db.close();
  const daemon = startForest([...ws.args, 'run']);
  try {
    let shown = '';
    // Its first report (the heartbeat's, every 10 s) once it has polled the feed again.
    await waitFor(async () => /last minute: [1-9]\d* polls/.test(shown = (await forest([...ws.args, 'status'])).stdout), 30_000, 'a report with the poll');
    assert.doesNotMatch(shown, /BEHIND SCHEDULE/);
  } finally {
    daemon.kill('SIGTERM');
    assert.equal((await finished(daemon)).code, 0);
  }
});

test('forest serve answers /favicon.ico without a 404', async () => {
  const ws = workspace([]);
  assert.equal((await forest([...ws.args, 'run', '--exit-after', '1s'])).code, 0);
  const { server, base } = await startServe([...ws.args, '--host', '127.0.0.1']);
  try {
    assert.equal((await fetch(`${base}/favicon.ico`)).status, 204);
  } finally {
    server.kill('SIGTERM');
  }
});
