import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadCodec } from '../../src/archive/codec.js';
import type { PollRecord } from '../../src/archive/store.js';
import { startServe, type ForestProcess } from '../helpers/cli.js';
import { ARCHIVE_START, smallArchive } from '../helpers/small-archive.js';
import { tempDir } from '../helpers/temp.js';

/*
 * Issue #53, item 4: a feed's page shows its polls and gaps over time — a row per day, then the
 * latest polls with what each found — and /api/v1/feeds/:id/polls gives the same as JSON.
 */

const dir = tempDir();
const database = join(dir, 'archive.db');
let server: ForestProcess;
let base = '';

const poll = (minutes: number, extra: Partial<PollRecord> = {}): PollRecord => {
  const at = new Date(ARCHIVE_START + minutes * 60_000);
  return {
    startedAt: at, durationMs: 42, result: 'ok', fetch: null, parsed: null, error: null, capturePages: true, revisitChangedItemsAt: null,
    schedule: { nextPollAt: new Date(at.getTime() + 600_000), reason: 'test', state: '{}', ratePerHour: null, window: null, maxAgeSeconds: null, riskAt: null },
    ...extra,
  };
};

before(async () => {
  await loadCodec();
  const store = smallArchive(database, ['One']);
  const feed = { id: 1, url: 'https://a.example/feed' };
  await store.recordPoll(feed, poll(10));
  await store.recordPoll(feed, poll(24 * 60 + 5, { result: 'error', error: 'HTTP 503' }));
  await store.recordPoll(feed, poll(24 * 60 + 65, { gap: { since: '2026-11-03T00:05:00.000Z', until: '2026-11-03T01:05:00.000Z', recovered: 3, pages: 2, complete: false, missing: 7 } }));
  await store.close();
  ({ server, base } = await startServe(['--db', database]));
});

after(() => {
  server?.kill('SIGTERM');
});

test('the feed page: polling day by day and the latest polls, with the gap a poll found', async () => {
  const page = await (await fetch(`${base}/feeds/1`)).text();
  assert.match(page, /<h2>Polls<\/h2>/);
  const days = /<caption>Day by day[^]*?<\/table>/.exec(page)?.[0] ?? '';
  assert.match(days, /<td>2026-11-03<\/td><td>2<\/td><td>0<\/td><td>0<\/td>\s*<td class="failing">1<\/td><td class="failing">1<\/td>/, 'the second day: two polls, one failed, one gap');
  assert.match(days, /<td>2026-11-02<\/td><td>1<\/td>/);
  assert.ok(days.indexOf('2026-11-03') < days.indexOf('2026-11-02'), 'newest first');
  const latest = /<caption>The latest 3 polls[^]*?<\/table>/.exec(page)?.[0] ?? '';
  assert.match(latest, /HTTP 503/);
  assert.match(latest, /up to 7 items may be missing/i);
});

test('GET /api/v1/feeds/1/polls: the same as JSON; an unknown feed is a 404', async () => {
  const body = await (await fetch(`${base}/api/v1/feeds/1/polls?limit=2`)).json() as { polls: Array<{ startedAt: string; gap: { missing: number } | null }>; days: Array<{ day: string; polls: number; gaps: number }> };
  assert.equal(body.polls.length, 2);
  assert.equal(body.polls[0]!.gap?.missing, 7);
  assert.deepEqual(body.days.map((day) => [day.day, day.polls, day.gaps]), [['2026-11-03', 2, 1], ['2026-11-02', 1, 0]]);
  assert.equal((await fetch(`${base}/api/v1/feeds/9/polls`)).status, 404);
});
