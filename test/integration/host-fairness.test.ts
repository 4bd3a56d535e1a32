import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openArchive } from '../../src/archive/open-archive.js';
import { forest } from '../helpers/cli.js';
import { startFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { workspace } from '../helpers/setup.js';

/*
 * Issue #52, item 3: a host whose feed lists good pages beside faulty ones stays fair. One feed on
 * one host, every item with the same date, in this document order: two pages that vanish or
 * redirect home after their first capture, four good pages, then nine faulty ones (a reset, a
 * trickle, a page that never answers, 500 and 502, a redirect loop, bad gzip, a wrong length, a
 * huge header). Retries come 1 s after a failure, at most two attempts, a 2 s timeout (the issue's
 * 2 s, 2 and 10 s, scaled to keep the test short).
 */

const FAULTY = ['/reset-mid-body', '/drip', '/never', '/500', '/502', '/loop', '/bad-gzip', '/wrong-length', '/huge-header'];
const GOOD = ['/good/1', '/good/2', '/good/3', '/good/4'];
const LATER_GONE = ['/vanish/1', '/moves/1'];
const TIMEOUT_MS = 2000;
let host: FaultServer;

before(async () => {
  const date = new Date(Date.UTC(2026, 10, 27, 9, 0)).toUTCString();
  host = await startFaultServer('127.0.0.8', (base) => `<?xml version="1.0"?><rss version="2.0"><channel><title>Mixed</title><link>${base}/</link>\n${
    [...LATER_GONE, ...GOOD, ...FAULTY].map((path) => `<item><title>${path}</title><link>${base}${path}</link><guid>${path}</guid><pubDate>${date}</pubDate></item>`).join('\n')
  }\n</channel></rss>`);
});
after(() => host.close());

test('first attempts in document order, before retries; revisits before retries; a failed page delays a good one by one timeout at most', async () => {
  const ws = workspace([{ url: `${host.url}/feed.xml` }], {
    http: { perHostDelay: '10ms', timeout: `${TIMEOUT_MS}ms`, connectTimeout: '1s', maxRedirects: 3, allowPrivateNetworks: ['127.0.0.8/32'] },
    capture: { retryDelay: '1s', maxAttempts: 2 },
    revisit: { enabled: true, after: ['3s'] },
    schedule: { defaultInterval: '30s', minInterval: '30s', maxInterval: '30s', jitter: 0 },
  });
  const run = await forest([...ws.args, 'run', '--exit-after', '16s']);
  assert.equal(run.code, 0, run.stderr);

  // One attempt per page: a redirect loop's requests follow each other and count once.
  const pages = host.requests.filter((request) => request.path !== '/feed.xml' && request.path !== '/')
    .filter((request, index, all) => index === 0 || all[index - 1]!.path !== request.path || request.path !== '/loop');
  const firstAsked = new Map<string, number>();
  pages.forEach((request, index) => firstAsked.has(request.path) || firstAsked.set(request.path, index));
  const order = [...firstAsked.keys()];
  assert.deepEqual(order, [...LATER_GONE, ...GOOD, ...FAULTY], 'every page asked, first in the feed\'s own order (all items have one date)');

  // Every first attempt is made before any retry of a failed page.
  const lastFirstAttempt = Math.max(...firstAsked.values());
  const firstRetry = pages.findIndex((request, index) => FAULTY.includes(request.path) && firstAsked.get(request.path)! < index);
  assert.ok(firstRetry < 0 || firstRetry > lastFirstAttempt, `a retry (request ${firstRetry}) came before a first attempt (request ${lastFirstAttempt}): ${pages.map((request) => request.path).join(' ')}`);

  // The revisits of the two pages that changed are made, and before the failed pages' retries.
  const revisits = LATER_GONE.map((path) => pages.findIndex((request, index) => request.path === path && index > firstAsked.get(path)!));
  assert.ok(revisits.every((index) => index >= 0), `both revisited: ${pages.map((request) => request.path).join(' ')}`);
  if (firstRetry >= 0) assert.ok(revisits.every((index) => index < firstRetry), `revisits (${revisits}) before the first retry (${firstRetry})`);

  // Each good page was asked before any faulty page: no failure delayed it at all.
  const start = pages[0]!.at;
  for (const path of GOOD) assert.ok(pages[firstAsked.get(path)!]!.at - start < TIMEOUT_MS, `${path} asked ${pages[firstAsked.get(path)!]!.at - start} ms after the first page`);

  const store = await openArchive({ path: ws.db, maxSize: 'unlimited' });
  try {
    const articles = await store.versionCounts();
    for (const path of [...GOOD, ...LATER_GONE]) assert.ok(articles.some((article) => article.url.endsWith(path)), `${path} archived`);
    const results = await Promise.all(articles.filter((article) => LATER_GONE.some((path) => article.url.endsWith(path))).map(async (article) => (await store.checks(article.id)).map((check) => check.result)));
    assert.deepEqual(results.map((checks) => checks.some((result) => result === 'gone' || result === 'unavailable')), [true, true], `the vanished page is gone and the moved one unavailable: ${JSON.stringify(results)}`);
  } finally {
    await store.close();
  }
});
