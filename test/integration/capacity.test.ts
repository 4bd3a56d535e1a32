import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { finished, forest, startForest, startServe, waitFor } from '../helpers/cli.js';
import { listenOn } from '../helpers/listen.js';
import { workspace } from '../helpers/setup.js';

/*
 * A daemon whose request slots, not its work, hold it back says so, and names the setting
 * (issue #70: at 100,000 feeds the polls alone outgrow 8 slots). Thirty feeds on thirty hosts,
 * each answer taking 100 ms, polled every 2 s: one slot turns over ten requests a second, a
 * round of polls wants fifteen; sixty-four slots take the round at once.
 */

const HOSTS = 30;
const servers: Server[] = [];
const feeds: string[] = [];

before(async () => {
  for (let n = 1; n <= HOSTS; n++) {
    let base = '';
    const server = createServer((request, response) => {
      setTimeout(() => {
        if (request.url === '/feed.xml') {
          response.writeHead(200, { 'content-type': 'application/rss+xml' }).end(`<?xml version="1.0"?><rss version="2.0"><channel><title>Feed ${n}</title><link>${base}/</link><description>d</description>
<item><guid>${base}/a</guid><title>Story ${n}</title><link>${base}/a</link></item></channel></rss>`);
        } else {
          response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><head><title>Story ${n}</title></head><body><article><h1>Story ${n}</h1><p>${'A sentence of the story, long enough to be one. '.repeat(20)}</p></article></body></html>`);
        }
      }, 100);
    });
    base = await listenOn(server, `127.0.61.${n}`);
    servers.push(server);
    feeds.push(`${base}/feed.xml`);
  }
});
after(() => servers.forEach((server) => server.close()));

test('a daemon at capacity says so in forest status and on the dashboard, naming http.concurrency; one with slots to spare does not', async () => {
  const subscriptions = feeds.map((url) => ({ url }));
  const few = workspace(subscriptions, { http: { concurrency: 1 } });
  const many = workspace(subscriptions, { http: { concurrency: 64 } });
  const daemons = [startForest([...few.args, 'run']), startForest([...many.args, 'run'])];
  try {
    // The heartbeat (every 10 s) writes the period so far into the lease, which status reads.
    let shown = '';
    await waitFor(async () => /AT CAPACITY/.test(shown = (await forest([...few.args, 'status'])).stdout), 30_000, 'the one-slot daemon at capacity');
    assert.match(shown, /AT CAPACITY: due work waited for a request slot in \d+ of \d+ scheduler passes: raise http\.concurrency \(now 1\)/);
    const { server, base } = await startServe([...few.args, '--host', '127.0.0.1']);
    try {
      assert.match(await (await fetch(`${base}/`)).text(), /at capacity: due work waited for a request slot in \d+ of \d+ scheduler passes: raise http\.concurrency \(now 1\)/);
    } finally {
      server.kill('SIGTERM');
    }
    let spare = '';
    await waitFor(async () => /last minute: [1-9]\d* polls/.test(spare = (await forest([...many.args, 'status'])).stdout), 30_000, 'the 64-slot daemon\'s report');
    assert.doesNotMatch(spare, /AT CAPACITY/);
  } finally {
    for (const daemon of daemons) daemon.kill('SIGTERM');
  }
  const [slow] = await Promise.all(daemons.map((daemon) => finished(daemon)));
  assert.equal(slow!.code, 0);
});
