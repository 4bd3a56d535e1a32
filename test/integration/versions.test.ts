import assert from 'node:assert/strict';
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { WARCParser } from 'warcio';
import { makeArticle, type ScriptedEdit } from '../../src/synthetic/articles.js';
import { SyntheticWeb } from '../../src/synthetic/server.js';
import { finished, forest, runUntil, startForest, waitFor } from '../helpers/cli.js';
import { query, scalar, workspace } from '../helpers/setup.js';

/*
 * The object-level archive end to end. Article pages change on every request (rotating ads,
 * inline "read more" and related boxes, "updated N minutes ago", comment counts), and some
 * articles are edited at scripted times. Forest must store one version per real edit and not one
 * more.
 */

const SECOND = 1000;
// Articles 0–7 are out when the clock starts; the newest ones are edited, counting from their
// first captures (held until then: on a loaded machine the daemon's start alone can take seconds).
const EDITS: ScriptedEdit[] = [
  { site: 'ledger', index: 7, after: 3 * SECOND, kind: 'correct-word' },
  { site: 'ledger', index: 6, after: 4 * SECOND, kind: 'change-headline' },
  { site: 'ledger', index: 7, after: 6.5 * SECOND, kind: 'add-paragraph' },
  { site: 'orbit', index: 7, after: 3.5 * SECOND, kind: 'remove-image' },
  { site: 'orbit', index: 6, after: 5 * SECOND, kind: 'add-paragraph' },
  { site: 'orbit', index: 7, after: 8 * SECOND, kind: 'correct-word' },
];

const web = new SyntheticWeb({ edits: EDITS, holdEdits: 'until-fetched' });
before(() => web.start());
after(() => web.stop());

// Revisits every second for the length of the run (the default schedule is hours and days).
const revisitSettings = { revisit: { after: Array.from({ length: 40 }, () => '1s') } };

function setUp() {
  const sites = [web.site('ledger'), web.site('orbit')];
  return workspace(sites.map((site) => ({ url: site.feedUrl, title: site.definition.name })), revisitSettings);
}

interface ArticleLine { id: number; url: string; title: string; versions: number; feed: string; guid: string; firstCaptured: string; lastChecked: string }

test('one version per real edit and not one more; history, diff and search show the edits', async () => {
  const ws = setUp();
  // Until every page was served four times, every edit kept and fifty revisits found the same
  // object — not a fixed time: a loaded machine served a page three times in 16 s (2026-12-04).
  // The versions are counted here only to know when to stop; each article's are checked below.
  const run = await runUntil(ws.args, () => {
    const items = scalar<number>(ws.db, 'SELECT COUNT(*) FROM items');
    const served = [...web.servedRevisions().values()];
    return items >= 16 && served.length >= items && served.every((revisions) => revisions.length >= 4)
      && scalar<number>(ws.db, 'SELECT COUNT(*) FROM versions') >= items + EDITS.length
      && scalar<number>(ws.db, "SELECT COUNT(*) FROM checks WHERE result = 'unchanged'") >= 50;
  }, 90_000, 'four requests of every page, every edit a version, fifty unchanged revisits');
  assert.equal(run.code, 0, run.stderr);

  const listed = await forest([...ws.args, 'articles', '--json']);
  assert.equal(listed.code, 0, listed.stderr);
  const articles = listed.stdout.trim().split('\n').map((line) => JSON.parse(line) as ArticleLine);
  const items = scalar<number>(ws.db, 'SELECT COUNT(*) FROM items');
  assert.ok(items >= 16);
  assert.equal(articles.length, items, 'one article per item of the two feeds');
  for (const field of ['id', 'feed', 'guid', 'url', 'title', 'versions', 'firstCaptured', 'lastChecked'] as const) assert.ok(articles.every((a) => a[field] !== undefined && a[field] !== null), field);

  // What the server showed of each article page (site + path): revisions in the order served.
  const servedRevisions = web.servedRevisions();
  const site = (feed: string) => (feed === web.site('ledger').feedUrl ? 'ledger' : 'orbit');
  let checked = 0;
  for (const article of articles) {
    const path = `${site(article.feed)}${new URL(article.url).pathname.replace(/^\/r\//, '/articles/')}`;
    const revisions = servedRevisions.get(path) ?? [];
    assert.ok(revisions.length >= 4, `${path} was checked ${revisions.length} times`);
    // Versions expected: one for every revision the server actually showed.
    const distinct = revisions.filter((revision, i) => i === 0 || revision !== revisions[i - 1]).length;
    assert.equal(article.versions, distinct, `${article.title}: ${article.versions} versions for revisions ${revisions.join(',')}`);
    checked++;
  }
  assert.equal(checked, items);
  // Every scripted edit was served and found: the edited articles end at their last revision.
  for (const edit of EDITS) {
    const slug = makeArticle(edit.site, edit.index, 0).slug;
    const article = articles.find((a) => site(a.feed) === edit.site && a.url.endsWith(slug))!;
    assert.ok(article, `article ${edit.site}#${edit.index}`);
    const total = EDITS.filter((other) => other.site === edit.site && other.index === edit.index).length;
    assert.equal(article.versions, total + 1, `${edit.site}#${edit.index}: every edit is a version`);
  }
  const unedited = articles.filter((a) => !EDITS.some((edit) => site(a.feed) === edit.site && a.url.endsWith(makeArticle(edit.site, edit.index, 0).slug)));
  assert.ok(unedited.every((a) => a.versions === 1), 'no false version on pages whose template changed on every request');
  const unchanged = scalar<number>(ws.db, "SELECT COUNT(*) FROM checks WHERE result = 'unchanged'");
  assert.ok(unchanged >= 50, `${unchanged} unchanged checks`);
  // The template changed on every request, so those pages differed byte for byte: each was
  // judged in the pool before being stored, and its check keeps the payload's digest, headers
  // and extraction, not its bytes.
  const judged = (run.stdout + run.stderr).split('\n').filter((line) => line.includes('revisited: same object')).length;
  const bodiless = scalar<number>(ws.db, `SELECT COUNT(*) FROM checks JOIN snapshots ON snapshots.id = checks.snapshot_id
    WHERE checks.result = 'unchanged' AND snapshots.sha256 IS NULL AND snapshots.payload_digest IS NOT NULL
      AND EXISTS (SELECT 1 FROM extractions WHERE extractions.snapshot_id = snapshots.id)`);
  assert.ok(judged >= 50 && bodiless >= judged, `${judged} revisits judged before storing, ${bodiless} unchanged checks without a body`);

  // A change of extraction method is not an edit (issue #68, 2): pages captured before the site's
  // wrapper was learned were first extracted from the single page, their edits with the wrapper;
  // their earlier versions are made again the wrapper's way, so that every version of an article
  // — what diff, search, history and the exports compare — is made one way, and says it was.
  let redone = 0;
  for (const article of articles.filter((a) => a.versions > 1)) {
    const { versions } = JSON.parse((await forest([...ws.args, 'history', String(article.id), '--json'])).stdout) as { versions: Array<{ n: number; method: string; wrapper: number | null; reextracted: { firstMethod: string } | null }> };
    assert.equal(new Set(versions.map((v) => `${v.method}/${v.wrapper}`)).size, 1, `article ${article.id}: ${JSON.stringify(versions)}`);
    redone += versions.filter((v) => v.reextracted?.firstMethod === 'sigfeed').length;
  }
  assert.ok(redone > 0, 'some first versions were made from the single page, and re-extracted with the wrapper');
  // Their search entries followed them (the archive's own check reads the index against the versions).
  const check = await forest([...ws.args, 'check']);
  assert.equal(check.code, 0, check.stdout);

  // history: the versions with their change kinds.
  const ledgerSeven = articles.find((a) => site(a.feed) === 'ledger' && a.url.endsWith(makeArticle('ledger', 7, 0).slug))!;
  const history = await forest([...ws.args, 'history', String(ledgerSeven.id), '--json']);
  assert.equal(history.code, 0, history.stderr);
  const record = JSON.parse(history.stdout) as { id: number; versions: Array<{ n: number; capturedAt: string; method: string; title: string; hash: string; change: string[] }>; checks: Array<{ at: string; status: number; result: string }> };
  assert.deepEqual(record.versions.map((v) => v.n), [1, 2, 3]);
  assert.deepEqual(record.versions.map((v) => v.change), [[], ['body-edit'], ['paragraphs-added']]);
  assert.ok(record.checks.filter((c) => c.result === 'unchanged').length >= 3);
  assert.ok(record.checks.every((c) => /^\d{4}-\d\d-\d\dT.*Z$/.test(c.at)));
  const humanHistory = await forest([...ws.args, 'history', String(ledgerSeven.id)]);
  assert.match(humanHistory.stdout, /v2 .*\n( {5}re-extracted .*\n)? {5}body edit: 1 block edited\b/, 'the change said once, in words');

  const headline = articles.find((a) => site(a.feed) === 'ledger' && a.url.endsWith(makeArticle('ledger', 6, 0).slug))!;
  const headlineHistory = JSON.parse((await forest([...ws.args, 'history', String(headline.id), '--json'])).stdout) as typeof record;
  assert.deepEqual(headlineHistory.versions.at(-1)!.change, ['title']);
  const image = articles.find((a) => site(a.feed) === 'orbit' && a.url.endsWith(makeArticle('orbit', 7, 0).slug))!;
  const imageHistory = JSON.parse((await forest([...ws.args, 'history', String(image.id), '--json'])).stdout) as typeof record;
  assert.deepEqual(imageHistory.versions.map((v) => v.change), [[], ['media-removed'], ['body-edit']]);

  // diff: the corrected word, as a word diff.
  const original = makeArticle('ledger', 7, 0).paragraphs[1]!.split(' ');
  const diff = await forest([...ws.args, 'diff', String(ledgerSeven.id), '1', '2']);
  assert.equal(diff.code, 0, diff.stderr);
  assert.ok(diff.stdout.includes(`[-${original[3]}-]`), diff.stdout);
  const diffJson = JSON.parse((await forest([...ws.args, 'diff', String(ledgerSeven.id), '--json'])).stdout) as { a: number; b: number; kinds: string[] };
  assert.deepEqual([diffJson.a, diffJson.b, diffJson.kinds], [2, 3, ['paragraphs-added']]);
  const unified = await forest([...ws.args, 'diff', String(ledgerSeven.id), '1', '3', '--format', 'unified']);
  assert.match(unified.stdout, /^\+Update: /m);

  // search: the phrase the correction removed is found, in version 1 only.
  const phrase = original.slice(2, 5).join(' ').replace(/[.,]/g, '');
  const found = await forest([...ws.args, 'search', `"${phrase}"`, '--json']);
  assert.equal(found.code, 0, found.stderr);
  const hits = found.stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { article: number; versions: number[]; inLatest: boolean });
  const hit = hits.find((h) => h.article === ledgerSeven.id);
  assert.ok(hit, `search for "${phrase}" finds the article: ${found.stdout}`);
  assert.deepEqual([hit.versions, hit.inLatest], [[1], false]);
  const human = await forest([...ws.args, 'search', `"${phrase}"`]);
  assert.match(human.stdout, /only in v1: removed by a later edit/);
  // Any text is searched (an open quote runs to the end); a query with nothing to find says why.
  assert.equal((await forest([...ws.args, 'search', '"unbalanced AND ('])).code, 0);
  const nothing = await forest([...ws.args, 'search', 'NOT ledger']);
  assert.equal(nothing.code, 2);
  assert.match(nothing.stderr, /^forest: nothing to search for: every word of "ledger" is excluded/);
  assert.doesNotMatch(nothing.stderr, /\n\s+at /, 'no stack trace');

  // Export round trip: every capture is in the WARC, every version in the JSONL.
  const warc = join(ws.dir, 'out.warc.gz');
  const exported = await forest([...ws.args, 'export', '--format', 'warc', '--out', warc, '--json']);
  assert.equal(exported.code, 0, exported.stderr);
  const snapshots = query<{ id: number; final_url: string; sha256: string | null }>(ws.db, 'SELECT id, final_url, sha256 FROM snapshots ORDER BY id');
  const records: Array<{ type: string; url: string | null | undefined; refersTo: string | null | undefined; id: string | null | undefined; body: string }> = [];
  for await (const warcRecord of WARCParser.iterRecords(createReadStream(warc))) {
    const body = warcRecord.warcType === 'metadata' || warcRecord.warcType === 'warcinfo' ? await warcRecord.contentText() : '';
    records.push({ type: warcRecord.warcType, url: warcRecord.warcTargetURI, refersTo: warcRecord.warcHeader('WARC-Refers-To'), id: warcRecord.warcHeader('WARC-Record-ID'), body });
  }
  assert.equal(records[0]!.type, 'warcinfo');
  // The pages' records, apart from their requisites' (each page's image, issue #67).
  const requisiteUrls = new Set(query<{ url: string }>(ws.db, 'SELECT DISTINCT url FROM requisites').map((row) => row.url));
  const pageRecords = records.filter((r) => !requisiteUrls.has(r.url ?? ''));
  const captures = pageRecords.filter((r) => r.type === 'response' || r.type === 'revisit');
  assert.equal(captures.length, snapshots.length, 'every capture is a response or revisit record');
  const keptImages = query<{ sha256: string }>(ws.db, 'SELECT DISTINCT sha256 FROM requisites WHERE sha256 IS NOT NULL');
  assert.equal(records.filter((r) => r.type === 'response' && requisiteUrls.has(r.url ?? '')).length, keptImages.length, 'one response per distinct requisite payload, the rest revisits');
  // Revisits whose object did not change keep no body (sha256 NULL): they are revisit records.
  const stored = snapshots.filter((s) => s.sha256 !== null);
  assert.ok(stored.length < snapshots.length, 'unchanged revisits dropped their bodies');
  assert.equal(pageRecords.filter((r) => r.type === 'response').length, new Set(stored.map((s) => s.sha256)).size, 'one response per distinct stored payload');
  assert.equal(records.filter((r) => r.type === 'request').length, snapshots.length);
  const metadata = records.filter((r) => r.type === 'metadata');
  assert.equal(metadata.length, snapshots.length);
  const captureIds = new Set(captures.map((r) => r.id));
  assert.ok(metadata.every((r) => captureIds.has(r.refersTo)), 'each metadata record refers to its capture');
  const versionsInWarc = metadata.map((r) => JSON.parse(r.body) as { text?: string }).filter((m) => m.text !== undefined).length;
  const totalVersions = scalar<number>(ws.db, 'SELECT COUNT(*) FROM versions');
  assert.equal(versionsInWarc, totalVersions);

  const jsonl = join(ws.dir, 'out.jsonl');
  assert.equal((await forest([...ws.args, 'export', '--format', 'jsonl', '--out', jsonl])).code, 0);
  const lines = readFileSync(jsonl, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { id: number; versions: Array<{ n: number; text: string }> });
  assert.equal(lines.length, items);
  assert.equal(lines.reduce((sum, line) => sum + line.versions.length, 0), totalVersions);

  // Storage: an unchanged revisit costs a row, not a page; version text is stored once per hash.
  // (A re-extracted version keeps its first object too.)
  assert.equal(scalar<number>(ws.db, 'SELECT COUNT(*) FROM contents'),
    scalar<number>(ws.db, 'SELECT COUNT(*) FROM (SELECT hash FROM versions UNION SELECT first_hash FROM versions WHERE first_hash IS NOT NULL)'));
});

test('kill -9 during revisits loses nothing and duplicates nothing after a restart', async () => {
  const ws = setUp();
  const child = startForest([...ws.args, 'run']);
  await waitFor(() => scalar<number>(ws.db, "SELECT COUNT(*) FROM checks WHERE result = 'unchanged'") >= 20, 20_000, 'revisits under way');
  child.kill('SIGKILL');
  await finished(child);
  assert.equal(scalar<string>(ws.db, 'PRAGMA integrity_check'), 'ok');
  const restarted = await forest([...ws.args, 'run', '--exit-after', '4s']);
  assert.equal(restarted.code, 0, restarted.stderr);
  // Every extracted snapshot of a page was compared exactly once (a page fetched as the daemon
  // stopped waits, unextracted, for the next start), and each article's version numbers run
  // 1..n with no gap and no repeat.
  assert.equal(scalar<number>(ws.db, `SELECT COUNT(*) FROM extractions WHERE snapshot_id NOT IN (SELECT snapshot_id FROM checks WHERE snapshot_id IS NOT NULL)
    AND method != 'none'`), 0);
  assert.equal(scalar<number>(ws.db, 'SELECT COUNT(*) FROM (SELECT snapshot_id FROM checks WHERE snapshot_id IS NOT NULL GROUP BY snapshot_id HAVING COUNT(*) > 1)'), 0);
  assert.equal(scalar<number>(ws.db, 'SELECT COUNT(*) FROM articles WHERE versions != (SELECT COUNT(*) FROM versions WHERE versions.article_id = articles.id)'), 0);
  assert.equal(scalar<number>(ws.db, 'SELECT COUNT(*) FROM articles WHERE versions != (SELECT MAX(n) FROM versions WHERE versions.article_id = articles.id)'), 0);
  // Nothing is stranded: an article without a next check has a fetched page waiting for extraction.
  assert.equal(scalar<number>(ws.db, `SELECT COUNT(*) FROM articles WHERE next_check_at IS NULL AND NOT EXISTS (
    SELECT 1 FROM snapshots LEFT JOIN extractions ON extractions.snapshot_id = snapshots.id
    WHERE snapshots.item_id = articles.item_id AND extractions.snapshot_id IS NULL)`), 0);
  assert.equal(scalar<number>(ws.db, 'SELECT COUNT(*) FROM version_search'), scalar<number>(ws.db, 'SELECT COUNT(*) FROM versions'));
});
