import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import { SyntheticWeb } from '../../src/synthetic/server.js';
import { finished, forest, runUntil, startForest, waitFor } from '../helpers/cli.js';
import { query, scalar, workspace } from '../helpers/setup.js';

const web = new SyntheticWeb();
before(() => web.start());
after(() => web.stop());

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const count = (db: string, sql: string, ...params: unknown[]) => scalar<number>(db, sql, ...params);

test('subscribe with the CLI, run: every item and the page behind it are archived; a second poll gets 304', async () => {
  const ws = workspace();
  const ledger = web.site('ledger');
  const orbit = web.site('orbit');
  // The ledger's feed says <ttl>15</ttl>, a floor on its interval: a cron schedule overrides it.
  let result = await forest([...ws.args, 'feeds', 'add', ledger.feedUrl, '--title', 'Ledger', '--tag', 'news', '--tag', 'local', '--schedule', '*/2 * * * * *']);
  assert.equal(result.code, 0, result.stderr);
  result = await forest([...ws.args, 'feeds', 'add', orbit.feedUrl]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(readFileSync(ws.feeds, 'utf8'), /Ledger/);

  const startRequests = web.requests.length;
  // Run until each feed has been polled twice and every page captured with its requisites, then
  // stop it as a service manager would: a fixed run length (6 s) was too short on a loaded
  // machine for the second poll (CI, 2026-12-02).
  const expected = web.published('ledger').slice(0, ledger.definition.window).length + web.published('orbit').slice(0, orbit.definition.window).length;
  const pollsOf = (url: string) => count(ws.db, 'SELECT COUNT(*) FROM polls JOIN feeds ON feeds.id = polls.feed_id WHERE feeds.url = ?', url);
  result = await runUntil(ws.args, () => pollsOf(ledger.feedUrl) >= 2 && pollsOf(orbit.feedUrl) >= 2 && count(ws.db, "SELECT COUNT(*) FROM items WHERE page_state = 'captured'") === expected
    && count(ws.db, `SELECT COUNT(DISTINCT feeds.id) FROM requisites JOIN snapshots ON snapshots.id = requisites.snapshot_id JOIN items ON items.id = snapshots.item_id
      JOIN feeds ON feeds.id = items.feed_id WHERE requisites.url = ?`, `${web.cdn!.url}/fonts.css`) === 2, 60_000, 'both feeds polled twice, every page and its requisites captured');
  assert.equal(result.code, 0, result.stderr);
  const logLines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { msg: string; ms?: number });
  assert.ok(logLines.some((line) => line.msg === 'polled' && typeof line.ms === 'number'), 'a log line per poll, with its duration');
  assert.ok(logLines.some((line) => line.msg === 'captured' && typeof line.ms === 'number'), 'a log line per capture, with its duration');

  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM items'), expected);
  assert.equal(count(ws.db, "SELECT COUNT(*) FROM items WHERE page_state = 'captured'"), expected);
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM snapshots'), expected, 'one snapshot per item');
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM items WHERE published IS NULL OR first_seen IS NULL OR last_seen IS NULL'), 0);

  // The ledger links through a tracking redirect; the page is fetched at feedburner:origLink.
  const ledgerSnapshot = query<{ url: string; final_url: string; canonical_url: string; status: number; headers: string }>(ws.db,
    'SELECT snapshots.* FROM snapshots JOIN items ON items.id = snapshots.item_id JOIN feeds ON feeds.id = items.feed_id WHERE feeds.url = ? LIMIT 1', ledger.feedUrl)[0]!;
  assert.match(ledgerSnapshot.url, /\/articles\//);
  assert.equal(ledgerSnapshot.status, 200);
  assert.equal(ledgerSnapshot.canonical_url, ledgerSnapshot.final_url);
  assert.match(JSON.parse(ledgerSnapshot.headers)['content-type'], /text\/html/);
  // Bodies are stored once per sha256 and decompress to the page.
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM blobs'), count(ws.db, 'SELECT COUNT(DISTINCT sha256) FROM (SELECT sha256 FROM snapshots UNION SELECT sha256 FROM requisites WHERE sha256 IS NOT NULL)'));
  // Every page's image is kept with it, once for all (the synthetic sites serve one GIF for every image).
  assert.equal(count(ws.db, "SELECT COUNT(DISTINCT sha256) FROM requisites WHERE url LIKE '%/images/%'"), 1);
  assert.ok(count(ws.db, "SELECT COUNT(*) FROM requisites WHERE url LIKE '%/images/%' AND sha256 IS NOT NULL") >= 1);
  // Each site's stylesheet is stored once however many of its pages list it, and the CDN's font
  // stylesheet once for every site (issue #67).
  for (const slug of ['ledger', 'orbit']) {
    const sheet = `${web.site(slug).url}assets/site.css`;
    assert.ok(count(ws.db, 'SELECT COUNT(*) FROM requisites WHERE url = ?', sheet) >= 2, `${slug}'s pages list its stylesheet`);
    assert.equal(count(ws.db, 'SELECT COUNT(DISTINCT sha256) FROM requisites WHERE url = ?', sheet), 1, `${slug}'s stylesheet is one body`);
  }
  const fonts = `${web.cdn!.url}/fonts.css`;
  assert.equal(count(ws.db, 'SELECT COUNT(DISTINCT sha256) FROM requisites WHERE url = ?', fonts), 1);
  assert.equal(count(ws.db, `SELECT COUNT(DISTINCT feeds.id) FROM requisites JOIN snapshots ON snapshots.id = requisites.snapshot_id JOIN items ON items.id = snapshots.item_id
    JOIN feeds ON feeds.id = items.feed_id WHERE requisites.url = ?`, fonts), 2, 'the CDN\'s stylesheet is listed by both sites\' pages');
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM blobs WHERE sha256 IN (SELECT sha256 FROM requisites WHERE url LIKE ?)', '%/assets/site.css'), 2, 'two sites, two stylesheets stored');

  const polls = query<{ result: string; status: number }>(ws.db, 'SELECT polls.result, polls.status FROM polls JOIN feeds ON feeds.id = polls.feed_id WHERE feeds.url = ? ORDER BY polls.id', ledger.feedUrl);
  assert.ok(polls.length >= 2, `ledger polled ${polls.length} times`);
  assert.equal(polls[0]!.result, 'ok');
  assert.ok(polls.slice(1).every((poll) => poll.result === 'not-modified' && poll.status === 304), JSON.stringify(polls));
  assert.ok(web.requests.slice(startRequests).some((r) => r.site === 'ledger' && r.status === 304 && r.conditional));

  const orbitPolls = query<{ result: string }>(ws.db, 'SELECT polls.result FROM polls JOIN feeds ON feeds.id = polls.feed_id WHERE feeds.url = ?', orbit.feedUrl);
  assert.ok(orbitPolls.length >= 2 && orbitPolls.slice(1).every((poll) => poll.result === 'not-modified'), JSON.stringify(orbitPolls));

  const feed = query<{ cron: string; tags: string; next_poll_at: string; schedule_reason: string }>(ws.db, 'SELECT * FROM feeds WHERE url = ?', ledger.feedUrl)[0]!;
  assert.equal(feed.cron, '*/2 * * * * *');
  assert.match(feed.schedule_reason, /cron/);
  assert.equal(new Date(feed.next_poll_at).getUTCSeconds() % 2, 0);

  const status = await forest([...ws.args, 'status', '--json']);
  const rows = status.stdout.trim().split('\n').map((line) => JSON.parse(line) as { url: string; items: number; pages: number; result: string; nextPoll: string; scheduleReason: string; window: number; ratePerHour: number | null });
  assert.equal(rows.length, 2);
  assert.ok(rows.every((row) => row.items > 0 && row.pages === row.items && row.nextPoll && row.window === row.items));
  const adaptive = rows.find((row) => row.url === orbit.feedUrl)!;
  assert.match(adaptive.scheduleReason, /λ≈.*\/h \(dates\), W=\d+, overflow risk/);
  assert.ok(adaptive.ratePerHour! > 0);
  const human = await forest([...ws.args, 'status']);
  // The schedule in words (issue #68, 9); the scheduler's figures only in --json.
  assert.match(human.stdout, /about [\d.]+ new items? an? (hour|day|week): polled every [\d.]+ (s|min|h|days?) · the feed lists \d+ items/);
  assert.doesNotMatch(human.stdout, /λ|W=|overflow risk/);

  const list = await forest([...ws.args, 'feeds', 'list', '--json']);
  const feeds = list.stdout.trim().split('\n').map((line) => JSON.parse(line) as { url: string; tags: string[]; title: string });
  assert.deepEqual(feeds.find((f) => f.url === ledger.feedUrl)!.tags, ['news', 'local']);
});

test('a failing host, a redirecting feed and a malformed feed are recorded against their feeds; the others go on', async () => {
  const dead = `http://127.0.0.1:${await closedPort()}/feed.xml`;
  const parish = web.site('parish');
  const orbit = web.site('orbit');
  const ws = workspace([
    { url: dead },
    { url: `${parish.url}_test/moved-permanently` },
    { url: `${orbit.url}_test/moved-temporarily` },
    { url: `${orbit.url}_test/malformed-feed.xml` },
    { url: `${orbit.url}_test/status/503` },
  ]);
  const result = await forest([...ws.args, 'run', '--exit-after', '4s']);
  assert.equal(result.code, 0, result.stderr);

  const byUrl = new Map(query<{ subscribed_url: string; url: string; last_result: string; last_error: string | null; error_count: number; next_poll_at: string; retry_after_until: string | null }>(ws.db, 'SELECT * FROM feeds').map((row) => [row.subscribed_url, row]));
  const deadFeed = byUrl.get(dead)!;
  assert.equal(deadFeed.last_result, 'error');
  assert.match(deadFeed.last_error ?? '', /connection failed/);
  assert.ok(deadFeed.error_count >= 1);
  assert.ok(deadFeed.next_poll_at, 'a failing feed is still scheduled');

  const moved = byUrl.get(`${parish.url}_test/moved-permanently`)!;
  assert.equal(moved.url, parish.feedUrl, 'a permanent redirect updates the stored feed URL');
  assert.notEqual(moved.last_result, 'error');
  const temporary = byUrl.get(`${orbit.url}_test/moved-temporarily`)!;
  assert.equal(temporary.url, `${orbit.url}_test/moved-temporarily`, 'a temporary redirect does not');

  const malformed = byUrl.get(`${orbit.url}_test/malformed-feed.xml`)!;
  assert.equal(malformed.last_result, 'ok');
  const warnings = scalar<string>(ws.db, 'SELECT warnings FROM polls JOIN feeds ON feeds.id = polls.feed_id WHERE feeds.subscribed_url = ? LIMIT 1', `${orbit.url}_test/malformed-feed.xml`);
  assert.ok((JSON.parse(warnings) as string[]).length > 0);
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM items JOIN feeds ON feeds.id = items.feed_id WHERE feeds.subscribed_url = ?', `${orbit.url}_test/malformed-feed.xml`), 2);

  const unavailable = byUrl.get(`${orbit.url}_test/status/503`)!;
  assert.match(unavailable.last_error ?? '', /HTTP 503.*Retry-After 120s/);
  assert.ok(Date.parse(unavailable.next_poll_at) - Date.now() > 100_000, 'Retry-After is honoured');

  const status = await forest([...ws.args, 'status']);
  assert.match(status.stdout, /FAILING/);
  assert.match(status.stdout, /connection failed/);
});

test('SIGTERM in the middle of work, then a restart: nothing lost, nothing duplicated', async () => {
  const ledger = web.site('ledger');
  const fieldnotes = web.site('fieldnotes');
  const ws = workspace([{ url: ledger.feedUrl }, { url: fieldnotes.feedUrl }], { http: { perHostDelay: '300ms', timeout: '10s' }, shutdown: { deadline: '3s' } });
  web.set('fieldnotes', { slowMs: 400 });
  try {
    const first = startForest([...ws.args, 'run']);
    await waitFor(() => existsSync(ws.db) && count(ws.db, 'SELECT COUNT(*) FROM snapshots') >= 3, 20_000, 'first captures');
    first.kill('SIGTERM');
    const stopped = await finished(first);
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stdout, /"msg":"stopped"/);
    const capturedBefore = count(ws.db, 'SELECT COUNT(*) FROM snapshots');
    const pendingBefore = count(ws.db, "SELECT COUNT(*) FROM items WHERE page_state = 'pending'");
    assert.ok(pendingBefore > 0, 'the stop came in the middle of the work');

    // The restart runs until every page is captured (each page's image shares its host's pace: 300 ms), or 60 s.
    const expected = web.published('ledger').slice(0, ledger.definition.window).length + web.published('fieldnotes').slice(0, fieldnotes.definition.window).length;
    const restarted = startForest([...ws.args, 'run']);
    try {
      await waitFor(() => count(ws.db, "SELECT COUNT(*) FROM items WHERE page_state = 'captured'") >= expected, 60_000, 'every page captured after the restart');
    } finally {
      restarted.kill('SIGINT');
    }
    const second = await finished(restarted);
    assert.equal(second.code, 0, second.stderr);
    const items = count(ws.db, 'SELECT COUNT(*) FROM items');
    assert.equal(items, web.published('ledger').slice(0, ledger.definition.window).length + web.published('fieldnotes').slice(0, fieldnotes.definition.window).length);
    assert.equal(count(ws.db, "SELECT COUNT(*) FROM items WHERE page_state = 'captured'"), items, 'every page captured after the restart');
    assert.equal(count(ws.db, 'SELECT COUNT(*) FROM snapshots'), items, 'no page captured twice');
    assert.ok(capturedBefore < items);
    assert.equal(scalar<string>(ws.db, 'PRAGMA integrity_check'), 'ok');
  } finally {
    web.set('fieldnotes', { slowMs: 0 });
  }
});

test('kill -9 mid-write leaves a consistent database and the next start resumes', async () => {
  const ws = workspace([{ url: web.site('parish').feedUrl }, { url: web.site('orbit').feedUrl }], { http: { perHostDelay: '150ms' } });
  const first = startForest([...ws.args, 'run']);
  await waitFor(() => existsSync(ws.db) && count(ws.db, 'SELECT COUNT(*) FROM snapshots') >= 4, 20_000, 'first captures');
  first.kill('SIGKILL');
  await finished(first);
  assert.equal(scalar<string>(ws.db, 'PRAGMA integrity_check'), 'ok');
  // Every item marked captured has its snapshot and blob: no half-written capture.
  assert.equal(count(ws.db, "SELECT COUNT(*) FROM items WHERE page_state = 'captured' AND id NOT IN (SELECT item_id FROM snapshots)"), 0);
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM snapshots WHERE sha256 NOT IN (SELECT sha256 FROM blobs)'), 0);

  const second = await runUntil(ws.args, () => count(ws.db, 'SELECT COUNT(*) FROM items WHERE id NOT IN (SELECT item_id FROM snapshots)') === 0, 60_000, 'every item captured after the restart');
  assert.equal(second.code, 0, second.stderr);
  const items = count(ws.db, 'SELECT COUNT(*) FROM items');
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM snapshots'), items);
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM (SELECT item_id FROM snapshots GROUP BY item_id HAVING COUNT(*) > 1)'), 0);
});

test('SIGHUP re-reads the subscription list', async () => {
  const ws = workspace([{ url: web.site('orbit').feedUrl }]);
  const daemon = startForest([...ws.args, 'run']);
  try {
    await waitFor(() => existsSync(ws.db) && count(ws.db, 'SELECT COUNT(*) FROM polls') >= 1, 15_000, 'first poll');
    writeFileSync(ws.feeds, stringify([{ url: web.site('orbit').feedUrl }, { url: web.site('parish').feedUrl, title: 'Parish' }]));
    daemon.kill('SIGHUP');
    await waitFor(() => count(ws.db, 'SELECT COUNT(*) FROM polls JOIN feeds ON feeds.id = polls.feed_id WHERE feeds.title = ?', 'Parish') >= 1, 15_000, 'the new feed polled');
  } finally {
    daemon.kill('SIGTERM');
    await finished(daemon);
  }
});

test('a broken settings file or subscription list stops the start with file, line and field; the database is untouched', async () => {
  const ws = workspace([{ url: web.site('orbit').feedUrl }]);
  const ok = await forest([...ws.args, 'feeds', 'list', '--json']);
  assert.equal(ok.code, 0, ok.stderr);
  const before = query(ws.db, 'SELECT * FROM feeds');

  writeFileSync(ws.feeds, `- url: ${web.site('orbit').feedUrl}\n- url: not-a-url\n  title: Broken\n`);
  const badList = await forest([...ws.args, 'run', '--exit-after', '1s']);
  assert.equal(badList.code, 2);
  assert.match(badList.stderr, new RegExp(`${ws.feeds.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: \\[1\\]\\.url: must be an absolute`));
  assert.deepEqual(query(ws.db, 'SELECT * FROM feeds'), before);

  const badSettings = workspace([], { http: { concurrency: 'lots' } });
  const result = await forest([...badSettings.args, 'status']);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /settings\.yaml:\d+: http\.concurrency: /);
  assert.equal(existsSync(badSettings.db), false);
});

test('OPML import and export round-trip through the CLI; a bad OPML changes nothing', async () => {
  const ws = workspace();
  const opml = `${ws.dir}/subs.opml`;
  writeFileSync(opml, `<?xml version="1.0"?><opml version="2.0"><head/><body><outline text="Local">
<outline type="rss" text="Ledger" xmlUrl="${web.site('ledger').feedUrl}" htmlUrl="${web.site('ledger').url}" category="town"/></outline>
<outline type="rss" text="Orbit" xmlUrl="${web.site('orbit').feedUrl}"/></body></opml>`);
  const imported = await forest([...ws.args, 'feeds', 'import', opml]);
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(imported.stdout, /imported 2 new feeds/);
  const exported = await forest([...ws.args, 'feeds', 'export']);
  assert.match(exported.stdout, /<outline type="rss" text="Ledger" title="Ledger" xmlUrl="[^"]+" htmlUrl="[^"]+" category="Local,town"/);

  const before = query(ws.db, 'SELECT * FROM feeds');
  const broken = `${ws.dir}/broken.opml`;
  writeFileSync(broken, `<opml version="2.0"><body>\n<outline type="rss" text="New" xmlUrl="${web.site('parish').feedUrl}"/>\n<outline type="rss" text="Bad"/>\n</body></opml>`);
  const failed = await forest([...ws.args, 'feeds', 'import', broken]);
  assert.notEqual(failed.code, 0);
  assert.match(failed.stderr, /broken\.opml:3: outline\.xmlUrl: feed outline "Bad" has no xmlUrl/);
  assert.deepEqual(query(ws.db, 'SELECT * FROM feeds'), before);

  const removed = await forest([...ws.args, 'feeds', 'remove', web.site('orbit').feedUrl]);
  assert.equal(removed.code, 0, removed.stderr);
  const disabled = await forest([...ws.args, 'feeds', 'disable', web.site('ledger').feedUrl]);
  assert.equal(disabled.code, 0, disabled.stderr);
  const rows = query<{ subscribed_url: string; subscribed: number; enabled: number }>(ws.db, 'SELECT subscribed_url, subscribed, enabled FROM feeds ORDER BY id');
  assert.deepEqual(rows.map((row) => [row.subscribed, row.enabled]), [[1, 0], [0, 0]]);
});

test('every captured page is extracted; wrappers are learned per feed and template, and re-learned after a redesign', async () => {
  const ledger = web.site('ledger');
  const ws = workspace([{ url: ledger.feedUrl }], { http: { perHostDelay: '10ms' } });
  const first = await runUntil(ws.args, () => count(ws.db, 'SELECT COUNT(*) FROM snapshots') >= 8
    && count(ws.db, 'SELECT COUNT(*) FROM extractions') === count(ws.db, 'SELECT COUNT(*) FROM snapshots'), 60_000, 'eight pages captured and extracted');
  assert.equal(first.code, 0, first.stderr);
  const snapshots = count(ws.db, 'SELECT COUNT(*) FROM snapshots');
  assert.ok(snapshots >= 8);
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM extractions'), snapshots, 'every captured page extracted');
  const rows = query<{ text: string; method: string; title: string; wrapper_id: number | null; guid: string }>(ws.db,
    `SELECT extractions.*, COALESCE(contents.text, extractions.text) AS text, items.guid FROM extractions JOIN items ON items.id = extractions.item_id
      LEFT JOIN contents ON contents.hash = extractions.content_hash`);
  const published = new Map(web.published('ledger').map((article) => [article.index, article]));
  for (const row of rows) {
    const article = published.get(Number(row.guid.split('#')[1]))!;
    assert.equal(row.title, article.title);
    for (const paragraph of article.paragraphs) assert.ok(row.text.includes(paragraph), `${row.method}: paragraph missing`);
    for (const boilerplate of ['Most read', 'Advertisement', 'All rights reserved']) assert.ok(!row.text.includes(boilerplate), `${row.method}: kept ${boilerplate}`);
  }
  assert.ok(rows.some((row) => row.method === 'forest' && row.wrapper_id !== null), 'pages after the first wrapper use it');
  const wrappers = query<{ xpath: string; samples: number; active: number; reason: string }>(ws.db, 'SELECT * FROM wrappers ORDER BY id');
  // Learned at 3 pages and re-learned at 5: a new wrapper, or the same one confirmed (kept, so
  // that articles extracted with it need no rebasing).
  const history = wrappers.map((w) => w.reason).join(' | ');
  assert.match(history, /^3 pages(; re-learned unchanged at 5 pages)?( \| 5 pages)?/, history);
  assert.match(history, /5 pages/, 'learned at 3 pages, re-learned at 5');
  assert.equal(wrappers.filter((w) => w.active === 1).length, 1);
  assert.equal(wrappers.at(-1)!.xpath, "//div[contains(@class,'story-body')]");

  // The site is redesigned: new articles come in another layout.
  web.set('ledger', { redesign: (await import('../../src/synthetic/templates.js')).magazine });
  web.clock.advance(4 * ledger.definition.interval);
  const redesigned = new Map(web.published('ledger').slice(0, 4).map((article) => [article.index, article]));
  // The redesigned articles' extractions, the latest first (a revisit of an older page may come between them).
  const extractedAfter = () => query<{ method: string; text: string; template_id: number; guid: string }>(ws.db,
    `SELECT extractions.*, COALESCE(contents.text, extractions.text) AS text, items.guid FROM extractions JOIN items ON items.id = extractions.item_id
      LEFT JOIN contents ON contents.hash = extractions.content_hash ORDER BY snapshot_id DESC`).filter((row) => redesigned.has(Number(row.guid.split('#')[1])));
  try {
    // Until the four new pages are extracted and the new layout has a wrapper (a fixed 5 s run fell
    // short on a loaded machine, 2026-12-02); what they hold is asserted below.
    const second = await runUntil(ws.args, () => new Set(extractedAfter().map((row) => row.guid)).size === redesigned.size
      && count(ws.db, 'SELECT COUNT(*) FROM wrappers WHERE active = 1 AND template_id <> (SELECT MIN(template_id) FROM extractions)') > 0, 60_000, 'the redesigned pages extracted, a wrapper for their layout');
    assert.equal(second.code, 0, second.stderr);
  } finally {
    web.set('ledger', { redesign: null });
  }
  const after = extractedAfter();
  for (const row of after) {
    const article = redesigned.get(Number(row.guid.split('#')[1]));
    assert.ok(article, `${row.guid} is one of the redesigned articles`);
    assert.ok(row.text.includes(article.paragraphs[0]!), `${row.method}: redesigned page extracted`);
    assert.ok(!row.text.includes('You might also like'), `${row.method}: kept the new template's related box`);
  }
  assert.equal(count(ws.db, 'SELECT COUNT(DISTINCT template_id) FROM extractions'), 2, 'the new layout is a new template');
  const newTemplate = after[0]!.template_id;
  const redesignWrapper = query<{ xpath: string }>(ws.db, 'SELECT xpath FROM wrappers WHERE template_id = ? AND active = 1', newTemplate)[0]?.xpath;
  assert.match(redesignWrapper ?? '', /post-/, 'a wrapper learned for the new layout');
});

test('a gzip bomb, a 50 MB page, a dead link and a link to the cloud metadata address are recorded against their items; the good page is archived', async () => {
  const site = web.site('parish');
  const ws = workspace([{ url: `${site.url}_test/hostile-feed.xml` }], { http: { perHostDelay: '10ms', maxBodySize: '5MB' }, capture: { retryDelay: '1s', maxAttempts: 2 } });
  // Until every page has its end (a fixed 8 s run left a retry pending on a loaded machine, 2026-12-02).
  const result = await runUntil(ws.args, () => count(ws.db, "SELECT COUNT(*) FROM items WHERE page_state IN ('failed', 'captured')") === 5, 60_000, 'every page captured or given up');
  assert.equal(result.code, 0, result.stderr);
  const items = new Map(query<{ guid: string; page_state: string; page_error: string | null; page_attempts: number }>(ws.db, 'SELECT * FROM items').map((row) => [row.guid, row]));
  assert.match(items.get('bomb')!.page_error ?? '', /larger than the \d+-byte limit once decompressed/);
  assert.match(items.get('huge')!.page_error ?? '', /larger than/);
  assert.match(items.get('gone')!.page_error ?? '', /HTTP 404/);
  assert.equal(items.get('metadata')!.page_error, 'blocked: 169.254.169.254 is a link-local address');
  for (const guid of ['bomb', 'huge', 'gone', 'metadata']) {
    assert.equal(items.get(guid)!.page_state, 'failed', `${guid} given up after its attempts`);
    assert.equal(items.get(guid)!.page_attempts, 2);
  }
  assert.equal(items.get('fine')!.page_state, 'captured');
  assert.equal(count(ws.db, 'SELECT COUNT(*) FROM blobs WHERE size > 5 * 1024 * 1024'), 0, 'nothing over the cap was stored');
  const status = await forest([...ws.args, 'status', '--json']);
  const row = JSON.parse(status.stdout.trim()) as { failedPages: number; pages: number; lastPageError: string };
  assert.equal(row.failedPages, 4);
  assert.equal(row.pages, 1);
  assert.ok(row.lastPageError);
});

test('by default a feed on a private address is refused: recorded on the feed, shown in status, backed off like a failure, never fetched', async () => {
  const site = web.site('fieldnotes');
  const ws = workspace([{ url: site.feedUrl }], { http: { allowPrivateNetworks: false } });
  const before = web.requests.filter((request) => request.site === 'fieldnotes').length;
  const result = await forest([...ws.args, 'run', '--exit-after', '4s']);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(web.requests.filter((request) => request.site === 'fieldnotes').length, before, 'the host was never asked');
  const host = new URL(site.feedUrl).hostname;
  const polls = query<{ result: string; error: string }>(ws.db, 'SELECT result, error FROM polls');
  assert.ok(polls.length >= 1 && polls.every((poll) => poll.result === 'error' && poll.error === `blocked: ${host} is a loopback address`), JSON.stringify(polls));
  // minInterval is 1 s in tests: a refused feed is backed off like any failure, not polled every second.
  assert.ok(polls.length <= 3, `${polls.length} polls in 4 s`);
  const status = await forest([...ws.args, 'status']);
  assert.match(status.stdout, new RegExp(`last error: blocked: ${host.replace(/\./g, '\\.')} is a loopback address`));
});
