import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { forest, runUntil } from '../helpers/cli.js';
import { scalar, workspace } from '../helpers/setup.js';

/*
 * Issue #52, item 2: a daemon down for hours while a feed publishes 100 items loses none where
 * the feed keeps its older items reachable — an RFC 5005 archive (`prev-archive`), a paged feed
 * (`next`), a WordPress feed (`?paged=N`) — and records the gap where it does not.
 */

type Kind = 'archive' | 'paged' | 'wordpress' | 'none';
const WINDOW = 10;

interface Site {
  kind: Kind;
  url: string;
  /** Item numbers, oldest first; item n is dated `dates[n]`. */
  items: number[];
  dates: Map<number, number>;
  requests: string[];
  server: Server;
}

const sites: Site[] = [];

function publish(site: Site, count: number, from: number, spacing: number): void {
  for (let i = 0; i < count; i++) {
    const n = site.items.length + 1;
    site.items.push(n);
    site.dates.set(n, from + i * spacing);
  }
}

/** The items of document `page` (1 = the feed's own), newest first. */
const pageOf = (site: Site, page: number) => [...site.items].reverse().slice((page - 1) * WINDOW, page * WINDOW);

function render(site: Site, page: number): { type: string; body: string } {
  const items = pageOf(site, page);
  const more = site.items.length > page * WINDOW;
  if (site.kind === 'wordpress') {
    return {
      type: 'application/rss+xml',
      body: `<?xml version="1.0"?><rss version="2.0"><channel><title>WP</title><link>${site.url}/</link><generator>https://wordpress.org/?v=6.5</generator>
${items.map((n) => `<item><title>Post ${n}</title><link>${site.url}/post/${n}</link><guid>${site.url}/?p=${n}</guid><pubDate>${new Date(site.dates.get(n)!).toUTCString()}</pubDate></item>`).join('\n')}
</channel></rss>`,
    };
  }
  const link = site.kind === 'archive' && more ? `<link rel="prev-archive" href="${site.url}/archive/${page + 1}.xml"/>`
    : site.kind === 'paged' && more ? `<link rel="next" href="${site.url}/feed.xml?page=${page + 1}"/>` : '';
  return {
    type: 'application/atom+xml',
    body: `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>${site.kind}</title><id>${site.url}/</id><updated>${new Date(site.dates.get(site.items.at(-1)!)!).toISOString()}</updated>${link}
${items.map((n) => `<entry><title>Post ${n}</title><id>${site.url}/post/${n}</id><link href="${site.url}/post/${n}"/><updated>${new Date(site.dates.get(n)!).toISOString()}</updated></entry>`).join('\n')}
</feed>`,
  };
}

async function startSite(kind: Kind, address: string): Promise<Site> {
  const site: Site = { kind, url: '', items: [], dates: new Map(), requests: [], server: createServer() };
  site.server.on('request', (request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    site.requests.push(url.pathname + url.search);
    const archive = /^\/archive\/(\d+)\.xml$/.exec(url.pathname);
    const page = archive && kind === 'archive' ? Number(archive[1])
      : url.pathname === '/feed.xml' ? Number(url.searchParams.get(kind === 'wordpress' ? 'paged' : kind === 'paged' ? 'page' : '-') ?? 1) : null;
    if (page !== null && page >= 1 && (page === 1 || pageOf(site, page).length > 0)) {
      const document = render(site, page);
      response.writeHead(200, { 'content-type': document.type }).end(document.body);
    } else if (url.pathname.startsWith('/post/')) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>Post ${url.pathname.slice(6)}</title></head><body><article><h1>Post ${url.pathname.slice(6)}</h1><p>The council met on Tuesday about post ${url.pathname.slice(6)} and agreed to repair the bridge before winter.</p></article></body></html>`);
    } else {
      response.writeHead(404).end('not here');
    }
  });
  await new Promise<void>((resolve) => site.server.listen(0, address, resolve));
  const address_ = site.server.address();
  site.url = `http://${address}:${typeof address_ === 'object' && address_ ? address_.port : 0}`;
  return site;
}

before(async () => {
  sites.push(await startSite('archive', '127.0.0.12'), await startSite('paged', '127.0.0.13'), await startSite('wordpress', '127.0.0.14'), await startSite('none', '127.0.0.15'));
});
after(() => Promise.all(sites.map((site) => new Promise((resolve) => site.server.close(resolve)))));

const statusOf = async (args: string[]) => {
  const result = await forest([...args, 'status', '--json']);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { url: string; items: number; lastGap: { complete: boolean; recovered: number; pages: number; missing: number | null; since: string; until: string } | null });
};

test('a 3-hour outage while 100 items are published: none lost where the feed has an archive, the gap recorded where it has none', async () => {
  const hour = 3_600_000;
  const start = Date.now() - 5 * hour;
  // Twenty items six minutes apart, until three hours ago; the daemon runs and sees the newest ten.
  for (const site of sites) publish(site, 20, start, 6 * 60_000);
  const ws = workspace(sites.map((site) => ({ url: `${site.url}/feed.xml`, title: site.kind })), {
    http: { perHostDelay: '5ms', allowPrivateNetworks: ['127.0.0.0/8'] },
    capture: { enabled: false },
    revisit: { enabled: false, after: ['1h'] },
  });
  const first = await runUntil(ws.args, () => scalar<number>(ws.db, 'SELECT COUNT(*) FROM items') === WINDOW * sites.length, 60_000, 'every feed\'s first document read');
  assert.equal(first.code, 0, first.stderr);
  for (const feed of await statusOf(ws.args)) assert.deepEqual([feed.items, feed.lastGap], [WINDOW, null], feed.url);

  // The daemon is down while each feed publishes 100 items over three hours.
  for (const site of sites) publish(site, 100, Date.now() - 3 * hour, (3 * hour) / 100);
  // Until the poll after the outage has recorded every feed's gap (a fixed 4 s was too short on a loaded machine).
  const second = await runUntil(ws.args, () => scalar<number>(ws.db, 'SELECT COUNT(*) FROM feeds WHERE last_gap IS NULL') === 0, 60_000, 'every feed\'s gap recorded');
  assert.equal(second.code, 0, second.stderr);

  const statuses = new Map((await statusOf(ws.args)).map((feed) => [feed.url, feed]));
  for (const site of sites.filter((candidate) => candidate.kind !== 'none')) {
    const feed = statuses.get(`${site.url}/feed.xml`)!;
    assert.equal(feed.items, WINDOW + 100, `${site.kind}: every item published during the outage is archived (${site.requests.join(' ')})`);
    assert.deepEqual([feed.lastGap?.complete, feed.lastGap?.recovered, feed.lastGap?.missing], [true, 90, 0], `${site.kind}: the gap is recorded as recovered`);
    assert.equal(feed.lastGap?.pages, 10, `${site.kind}: followed back ten documents, to the one holding known items`);
  }
  const bare = statuses.get(`${sites.find((site) => site.kind === 'none')!.url}/feed.xml`)!;
  assert.equal(bare.items, WINDOW + WINDOW, 'without an archive, the document alone');
  assert.equal(bare.lastGap?.complete, false);
  assert.equal(bare.lastGap?.recovered, 0);
  assert.ok(bare.lastGap?.missing !== null && bare.lastGap!.missing! >= 60 && bare.lastGap!.missing! <= 200, `an estimate of the 90 missed items: ${bare.lastGap?.missing}`);

  // The gap is shown to a person, and a poll that found the feed again records no new gap nor any item twice.
  const human = await forest([...ws.args, 'status', '--all']);
  assert.match(human.stdout, /GAP: up to \d+ items may be missing between \S+ \S+ and \S+ \S+ \(the feed has no archive to recover them from\)/);
  assert.match(human.stdout, /last gap: a gap between .* 90 items recovered from the feed's archive, none missing/);
  const third = await forest([...ws.args, 'run', '--exit-after', '3s']);
  assert.equal(third.code, 0, third.stderr);
  const again = new Map((await statusOf(ws.args)).map((feed) => [feed.url, feed]));
  for (const [url, feed] of statuses) {
    assert.equal(again.get(url)!.items, feed.items, `${url}: no item twice`);
    assert.deepEqual(again.get(url)!.lastGap, feed.lastGap, `${url}: no new gap`);
  }
});
