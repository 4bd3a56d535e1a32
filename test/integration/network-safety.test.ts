import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type LookupFunction } from 'node:net';
import { after, before, test } from 'node:test';
import { FetchError, Fetcher, hostPauseMs, HOST_PAUSE_FIRST_MS, HOST_PAUSE_MAX_MS, type FetcherOptions } from '../../src/net/fetcher.js';

// Two hosts on loopback: `inside` (127.0.0.1) stands for an internal service that must never be
// reached; `outside` (127.0.0.2) stands for the public web. Each server logs what it was asked.
const seen: Array<{ host: 'inside' | 'outside'; path: string; at: number }> = [];
let insidePort = 0;
let outsidePort = 0;
let headerBombPort = 0;
let dripPort = 0;
const servers: Array<{ close: () => void }> = [];

function listen(server: Server | ReturnType<typeof createTcpServer>, address: string): Promise<number> {
  servers.push(server);
  return new Promise((resolve) => server.listen(0, address, () => resolve((server.address() as { port: number }).port)));
}

before(async () => {
  insidePort = await listen(createHttpServer((request, response) => {
    seen.push({ host: 'inside', path: request.url ?? '', at: Date.now() });
    response.end('secret');
  }), '127.0.0.1');
  outsidePort = await listen(createHttpServer((request, response) => {
    const path = request.url ?? '';
    seen.push({ host: 'outside', path, at: Date.now() });
    const redirect = (to: string) => response.writeHead(302, { location: to }).end();
    if (path === '/to-literal') return redirect(`http://127.0.0.1:${insidePort}/secret`);
    if (path === '/to-name') return redirect(`http://localhost:${insidePort}/secret`);
    if (path === '/to-mapped') return redirect(`http://[::ffff:127.0.0.1]:${insidePort}/secret`);
    if (path === '/to-file') return redirect('file:///etc/passwd');
    if (path === '/busy') return response.writeHead(503, { 'retry-after': '1' }).end();
    if (path === '/busy-no-hint') return response.writeHead(429).end();
    response.end('ok');
  }), '127.0.0.2');
  headerBombPort = await listen(createTcpServer((socket) => {
    socket.on('error', () => {});
    socket.end(`HTTP/1.1 200 OK\r\nx-padding: ${'a'.repeat(1024 * 1024)}\r\ncontent-length: 2\r\n\r\nok`);
  }), '127.0.0.2');
  dripPort = await listen(createTcpServer((socket) => {
    socket.on('error', () => {});
    socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 100000\r\n\r\n');
    const timer = setInterval(() => socket.write('x'), 50);
    socket.on('close', () => clearInterval(timer));
  }), '127.0.0.2');
});
after(() => servers.forEach((server) => server.close()));

const base: FetcherOptions = { userAgent: 'ForestTest/1', connectTimeout: 2000, timeout: 3000, maxBodySize: 1e6, maxRedirects: 5, concurrency: 4, perHostDelay: 0, allowPrivateNetworks: false };
const outside = (path: string) => `http://127.0.0.2:${outsidePort}${path}`;
const insideHits = () => seen.filter((request) => request.host === 'inside').length;
const blocked = (pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof FetchError, String(error));
  assert.equal(error.kind, 'blocked', error.message);
  assert.match(error.message, pattern);
  return true;
};

test('by default a loopback or private address is refused before any request is sent', async () => {
  const strict = new Fetcher(base);
  const before = seen.length;
  await assert.rejects(strict.fetch(outside('/feed')), blocked(/^blocked: 127\.0\.0\.2 is a loopback address$/));
  await assert.rejects(strict.fetch(`http://localhost:${insidePort}/`), blocked(/^blocked: localhost resolves to .*, a loopback address$/));
  await assert.rejects(strict.fetch('http://169.254.169.254/latest/meta-data/'), blocked(/link-local/));
  await assert.rejects(strict.fetch('http://[::ffff:10.0.0.5]/'), blocked(/private address/));
  assert.equal(seen.length, before, 'no server was asked anything');
});

test('an allowed host cannot redirect to a refused one, by literal, by name or by a mapped IPv6 form', async () => {
  const fetcher = new Fetcher({ ...base, allowPrivateNetworks: ['127.0.0.2/32'] });
  assert.equal((await fetcher.fetch(outside('/feed'))).status, 200);
  await assert.rejects(fetcher.fetch(outside('/to-literal')), blocked(/redirect to 127\.0\.0\.1 is a loopback address/));
  await assert.rejects(fetcher.fetch(outside('/to-name')), blocked(/localhost resolves to .*loopback/));
  await assert.rejects(fetcher.fetch(outside('/to-mapped')), blocked(/loopback address \(as 127\.0\.0\.1 inside an IPv6 address\)/));
  await assert.rejects(fetcher.fetch(outside('/to-file')), blocked(/unsupported scheme file:/));
  assert.equal(insideHits(), 0, 'the internal host was never reached');
});

test('the check is on the address a name resolves to, each time (DNS rebinding does not pass)', async () => {
  const answers = new Map<string, string[]>([
    ['rebound.example', ['127.0.0.1']],
    ['mixed.example', ['127.0.0.1', '127.0.0.2']],
  ]);
  const resolve: LookupFunction = (hostname, options, callback) => {
    const addresses = answers.get(hostname);
    if (!addresses) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
    if (options.all) return callback(null, addresses.map((address) => ({ address, family: 4 })));
    callback(null, addresses[0]!, 4);
  };
  const fetcher = new Fetcher({ ...base, allowPrivateNetworks: ['127.0.0.2/32'], resolve });
  await assert.rejects(fetcher.fetch(`http://rebound.example:${insidePort}/secret`), blocked(/^blocked: rebound\.example resolves to 127\.0\.0\.1, a loopback address$/));
  // Of several addresses, only the allowed one is connected to.
  const mixed = await fetcher.fetch(`http://mixed.example:${outsidePort}/feed`);
  assert.equal(mixed.body.toString(), 'ok');
  // The same name, now answering with the internal address: refused this time.
  answers.set('mixed.example', ['127.0.0.1']);
  await assert.rejects(fetcher.fetch(`http://mixed.example:${insidePort}/secret`), blocked(/mixed\.example resolves to 127\.0\.0\.1/));
  assert.equal(insideHits(), 0);
});

test('a host the DNS says does not exist is believed for a while: its next URLs fail at once, with no lookup and no turn in its queue', async () => {
  let lookups = 0;
  const resolve: LookupFunction = (hostname, _options, callback) => {
    lookups++;
    callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
  };
  const fetcher = new Fetcher({ ...base, perHostDelay: 1000, allowPrivateNetworks: ['127.0.0.0/8'], resolve });
  for (const path of ['/a.png', '/b.png', '/c.png']) await assert.rejects(fetcher.fetch(`http://gone.example${path}`), (error: unknown) => error instanceof FetchError && error.message === 'host not found: gone.example');
  assert.equal(lookups, 1, 'one lookup for the three: the others were not sent (nor queued behind the host\'s second of politeness)');
  // Asked for at once, before any answer: those queued behind the first are not sent either.
  const all = ['/d.png', '/e.png', '/f.png'].map((path) => fetcher.fetch(`http://also-gone.example${path}`));
  for (const each of all) await assert.rejects(each, /host not found: also-gone\.example/);
  assert.equal(lookups, 2);
});

test('429/503 pause the whole host, for its Retry-After; other hosts go on', async () => {
  const fetcher = new Fetcher({ ...base, allowPrivateNetworks: ['127.0.0.0/8'] });
  const busy = await fetcher.fetch(outside('/busy'));
  assert.equal(busy.status, 503);
  const answeredAt = Date.now();
  assert.ok(fetcher.readyAt(`127.0.0.2:${outsidePort}`) >= answeredAt + 800, 'the host is paused');
  // Another host is not.
  assert.equal(fetcher.readyAt(`127.0.0.1:${insidePort}`), 0);
  // A different URL on the paused host waits for the end of the pause.
  await fetcher.fetch(outside('/other-page'));
  const next = seen.filter((request) => request.path === '/other-page').at(-1)!;
  assert.ok(next.at - answeredAt >= 900, `asked ${next.at - answeredAt} ms after the 503 with Retry-After: 1`);
  // Without Retry-After, the pause starts at a minute and doubles while the host keeps refusing.
  await fetcher.fetch(outside('/busy-no-hint'));
  assert.ok(fetcher.readyAt(`127.0.0.2:${outsidePort}`) >= Date.now() + HOST_PAUSE_FIRST_MS - 1000);
  assert.deepEqual([1, 2, 3].map((inRow) => hostPauseMs(inRow, null)), [HOST_PAUSE_FIRST_MS, 2 * HOST_PAUSE_FIRST_MS, 4 * HOST_PAUSE_FIRST_MS]);
  assert.equal(hostPauseMs(40, null), HOST_PAUSE_MAX_MS);
  assert.equal(hostPauseMs(1, 10 * 24 * 3_600_000), HOST_PAUSE_MAX_MS, 'an absurd Retry-After is capped');
});

test('a 1 MB header is refused; a body that trickles in is cut at the request timeout', async () => {
  const fetcher = new Fetcher({ ...base, allowPrivateNetworks: ['127.0.0.2'], timeout: 600 });
  await assert.rejects(fetcher.fetch(`http://127.0.0.2:${headerBombPort}/`), (error: unknown) => error instanceof FetchError && error.kind === 'too-large' && /headers/.test(error.message));
  await assert.rejects(fetcher.fetch(`http://127.0.0.2:${dripPort}/`), (error: unknown) => error instanceof FetchError && error.kind === 'timeout');
});
