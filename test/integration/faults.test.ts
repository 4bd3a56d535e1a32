import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { forest } from '../helpers/cli.js';
import { startFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { query, scalar, workspace } from '../helpers/setup.js';

/*
 * The fault suite: one feed whose items point at every way a server can fail, on several hosts
 * (the 503 and the 429 each on a host of their own, since they pause the whole host; the slow
 * ones apart, so that the run stays short), beside a good page and feeds that fail themselves. Each fault must be recorded against its item or feed
 * with a reason a person understands; the good page must be archived; the daemon goes on.
 */

let main: FaultServer;
let limited: FaultServer;
let busy: FaultServer;
let slow: FaultServer;
let failingFeeds: FaultServer;
let closedPort = 0;

// Newest first is the order pages are captured in: the 429 is fetched before its host's other pages.
const items = () => {
  const at = (minutes: number) => new Date(Date.UTC(2026, 10, 20, 12, minutes)).toUTCString();
  const entries: Array<[string, string, number]> = [
    ['good', `${main.url}/good`, 1],
    ['refused', `http://127.0.0.3:${closedPort}/page`, 2],
    ['reset', `${main.url}/reset-mid-body`, 3],
    ['drip', `${slow.url}/drip`, 4],
    ['never', `${slow.url}/never`, 5],
    ['e500', `${main.url}/500`, 6],
    ['e502', `${main.url}/502`, 7],
    ['loop', `${main.url}/loop`, 8],
    ['private', `${main.url}/to-loopback`, 9],
    ['bad-gzip', `${main.url}/bad-gzip`, 10],
    ['truncated-gzip', `${main.url}/truncated-gzip`, 11],
    ['wrong-length', `${main.url}/wrong-length`, 12],
    ['huge-header', `${main.url}/huge-header`, 13],
    ['lying-charset', `${main.url}/lying-charset`, 14],
    ['e503', `${busy.url}/503`, 15],
    ['limited-other', `${limited.url}/good`, 16],
    ['e429', `${limited.url}/429`, 59],
  ];
  return entries.map(([guid, link, minute]) => `<item><title>${guid}</title><link>${link}</link><guid>${guid}</guid><pubDate>${at(minute)}</pubDate></item>`).join('\n');
};

before(async () => {
  closedPort = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.3', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
  limited = await startFaultServer('127.0.0.4');
  busy = await startFaultServer('127.0.0.5');
  slow = await startFaultServer('127.0.0.6');
  failingFeeds = await startFaultServer('127.0.0.7');
  main = await startFaultServer('127.0.0.3', () => `<?xml version="1.0"?><rss version="2.0"><channel><title>Faults</title><link>${main.url}/</link>\n${items()}\n</channel></rss>`);
});
after(async () => {
  await Promise.all([main, limited, busy, slow, failingFeeds].map((server) => server.close()));
});

test('every fault is recorded against its item or feed with a clear reason; the good page is archived; the daemon goes on', async () => {
  const ws = workspace([
    { url: `${main.url}/feed.xml` },
    { url: `${failingFeeds.url}/500`, title: 'a feed that answers 500' },
    { url: `${failingFeeds.url}/reset-mid-body`, title: 'a feed cut mid-body' },
    { url: `${failingFeeds.url}/never`, title: 'a feed that never answers' },
  ], {
    // Only the fault hosts: a redirect to 127.0.0.1 must be refused.
    http: { perHostDelay: '10ms', timeout: '1s', maxRedirects: 5, allowPrivateNetworks: ['127.0.0.3/32', '127.0.0.4/32', '127.0.0.5/32', '127.0.0.6/32', '127.0.0.7/32'] },
    capture: { retryDelay: '1s', maxAttempts: 2 },
    revisit: { enabled: false, after: ['1h'] },
  });
  const run = await forest([...ws.args, 'run', '--exit-after', '14s']);
  assert.equal(run.code, 0, run.stderr);

  const rows = new Map(query<{ guid: string; page_state: string; page_error: string | null; page_attempts: number }>(ws.db, 'SELECT guid, page_state, page_error, page_attempts FROM items').map((row) => [row.guid, row]));
  const expected: Record<string, RegExp> = {
    refused: /connection failed \(ECONNREFUSED\)/,
    reset: /the connection was cut after \d+ bytes of the body of the 20000 promised by Content-Length \(ECONNRESET\)/,
    drip: /timed out: no complete response within the request timeout \(http\.timeout\)/,
    never: /timed out: no complete response within the request timeout/,
    e500: /^HTTP 500$/,
    e502: /^HTTP 502$/,
    e503: /^HTTP 503$/,
    loop: /Redirected 5 times/,
    private: /^blocked: redirect to 127\.0\.0\.1 is a loopback address$/,
    'bad-gzip': /the body is not valid compressed data \(incorrect header check\)/,
    'truncated-gzip': /the body is not valid compressed data \(unexpected end of file\)/,
    'wrong-length': /the connection was cut after \d+ bytes of the body of the 50000 promised/,
    'huge-header': /response headers larger than the 16384-byte limit/,
    e429: /^HTTP 429$/,
  };
  for (const [guid, reason] of Object.entries(expected)) {
    const row = rows.get(guid);
    assert.ok(row, `item ${guid} recorded`);
    assert.match(row.page_error ?? '(no error)', reason, guid);
    if (guid !== 'e429' && guid !== 'e503') assert.equal(row.page_state, 'failed', `${guid}: given up after its attempts (${row.page_attempts})`);
  }
  // A 503 without Retry-After pauses its host for a minute: the item waits, it is not given up.
  assert.deepEqual([rows.get('e503')!.page_state, rows.get('e503')!.page_attempts, busy.requests.length], ['pending', 1, 1]);
  // Retry-After: 120 on the 429 holds the whole host: no request to it after that answer.
  const answered = limited.requests.find((request) => request.path === '/429')!;
  assert.ok(answered, 'the 429 was asked');
  assert.deepEqual(limited.requests.filter((request) => request.at > answered.at).map((request) => request.path), [], 'nothing asked of the host inside the Retry-After window');
  assert.equal(rows.get('e429')!.page_state, 'pending', 'the 429 is retried after its window, not given up');
  assert.equal(rows.get('e429')!.page_attempts, 1);

  // The good page, and the page whose charset lied, are archived.
  for (const guid of ['good', 'lying-charset']) assert.equal(rows.get(guid)?.page_state, 'captured', guid);
  const titles = query<{ title: string }>(ws.db, 'SELECT title FROM articles').map((row) => row.title);
  assert.ok(titles.includes('A good page'), titles.join(' | '));
  assert.ok(titles.some((title) => /^Caf.* soci.*t.* r.*sum.*$/.test(title)), `the page read despite its charset: ${titles.join(' | ')}`);

  // The failing feeds are recorded on their feeds.
  const feeds = new Map(query<{ url: string; last_result: string; last_error: string | null }>(ws.db, 'SELECT url, last_result, last_error FROM feeds').map((row) => [row.url, row]));
  assert.equal(feeds.get(`${main.url}/feed.xml`)!.last_result, 'ok');
  assert.match(feeds.get(`${failingFeeds.url}/500`)!.last_error ?? '', /^HTTP 500$/);
  assert.match(feeds.get(`${failingFeeds.url}/reset-mid-body`)!.last_error ?? '', /connection was cut/);
  assert.match(feeds.get(`${failingFeeds.url}/never`)!.last_error ?? '', /timed out/);
  assert.equal(scalar<string>(ws.db, 'PRAGMA integrity_check'), 'ok');
});
