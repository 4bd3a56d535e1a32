import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, test } from 'node:test';
import { finished, runUntil, startForest, waitFor } from '../helpers/cli.js';
import { heldPicturesWeb } from '../helpers/held-pictures.js';
import { scalar, workspace } from '../helpers/setup.js';

// Captures waiting for their requisites are the archive's, not the daemon's memory: a daemon
// killed while its pages' pictures were still to be fetched left those pages without them, and
// nothing said so (at 100,000 feeds up to 2,000 captures wait). The next start fetches them.

const PAGES = 4;
const web = heldPicturesWeb(PAGES);
after(() => web.close());

const count = (db: string, sql: string) => scalar<number>(db, sql);

test('a daemon killed while its captures wait for their requisites leaves them queued in the archive; the next start fetches them', async () => {
  const feed = await web.start();
  const ws = workspace([{ url: feed }], { capture: { retryDelay: '1s', requisites: { timeout: '60s' } } });

  const first = startForest([...ws.args, 'run']);
  try {
    await waitFor(() => existsSync(ws.db) && count(ws.db, 'SELECT COUNT(*) FROM snapshots') === PAGES && web.held.length > 0, 30_000, 'every page captured, a picture asked for');
  } finally {
    first.kill('SIGKILL');
  }
  await finished(first);
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM requisites'), 0, 'no picture came before the kill');
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM requisite_queue'), PAGES, 'every capture still waits for its requisites, in the archive');

  web.release(false);
  const second = await runUntil(ws.args, () => count(ws.db, 'SELECT COUNT(*) FROM requisites WHERE status = 200') === PAGES, 30_000, 'every page\'s picture after the restart');
  assert.equal(second.code, 0, second.stderr);
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM snapshots'), PAGES, 'no page captured again');
  assert.equal(count(ws.db, `SELECT COUNT(*) FROM snapshots WHERE id IN (SELECT snapshot_id FROM requisites WHERE url LIKE '%/photo-%.png' AND sha256 IS NOT NULL)`), PAGES,
    'each capture has its own picture');
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM requisite_queue'), 0, 'and the queue is empty');
});
