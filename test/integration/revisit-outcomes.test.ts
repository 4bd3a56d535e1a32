import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { WARCParser } from 'warcio';
import { makeArticle } from '../../src/synthetic/articles.js';
import { SyntheticWeb } from '../../src/synthetic/server.js';
import { finished, forest, startForest, waitFor } from '../helpers/cli.js';
import { query, workspace } from '../helpers/setup.js';

/*
 * What a revisit finds when the article is no longer there: taken down (404), sent to the home
 * page or to another story, hidden behind a paywall. Each is a check with its result and reason,
 * never a new version; an article that comes back is recorded as back.
 */

const web = new SyntheticWeb();
before(() => web.start());
after(() => web.stop());

interface CheckLine { article_id: number; result: string; reason: string | null; snapshot_id: number | null; status: number | null }

test('404 is gone (and coming back is recorded), a redirect home or to another article and a paywall are unavailable: no version, the capture kept', async () => {
  const site = web.site('ledger');
  const ws = workspace([{ url: site.feedUrl }], { revisit: { after: Array.from({ length: 60 }, () => '1s') } });
  const slugOf = (index: number) => makeArticle('ledger', index, 0).slug;
  const articleId = (index: number) => query<{ id: number }>(ws.db, 'SELECT id FROM articles WHERE url LIKE ?', `%/articles/${slugOf(index)}`)[0]?.id;
  const checks = (index: number) => query<CheckLine>(ws.db, 'SELECT * FROM checks WHERE article_id = ? ORDER BY id', articleId(index));
  const daemon = startForest([...ws.args, 'run']);
  try {
    await waitFor(() => [4, 5, 6, 7].every((index) => articleId(index) !== undefined), 20_000, 'the articles archived');
    web.set('ledger', { fates: { [slugOf(7)]: 'deleted', [slugOf(6)]: 'to-home', [slugOf(4)]: 'to-other', [slugOf(5)]: 'paywalled' } });
    await waitFor(() => checks(7).some((check) => check.result === 'gone')
      && [4, 5, 6].every((index) => checks(index).some((check) => check.result === 'unavailable')), 20_000, 'gone and unavailable checks');
    // The article is put back up.
    web.set('ledger', { fates: { [slugOf(6)]: 'to-home', [slugOf(4)]: 'to-other', [slugOf(5)]: 'paywalled' } });
    await waitFor(() => checks(7).some((check) => /^back \(gone since /.test(check.reason ?? '')), 15_000, 'the article back');
  } finally {
    daemon.kill('SIGTERM');
    assert.equal((await finished(daemon)).code, 0, daemon.output.stderr);
  }

  const gone = checks(7).filter((check) => check.result === 'gone');
  assert.equal(gone[0]!.reason, 'HTTP 404');
  assert.equal(gone[0]!.status, 404);
  assert.ok(gone[0]!.snapshot_id !== null, 'the 404 response is kept');
  const unavailable = (index: number) => checks(index).find((check) => check.result === 'unavailable')!;
  assert.match(unavailable(6).reason ?? '', /^redirected to the home page /);
  assert.match(unavailable(4).reason ?? '', /^redirected to another article \(#\d+\)/);
  assert.match(unavailable(5).reason ?? '', /characters of text where the article had \d+ \(paywall/);
  for (const index of [4, 5, 6]) assert.ok(unavailable(index).snapshot_id !== null, `article ${index}: the capture is kept`);
  const versions = query<{ versions: number; gone_since: string | null }>(ws.db, 'SELECT versions, gone_since FROM articles WHERE id IN (?, ?, ?, ?)', articleId(4), articleId(5), articleId(6), articleId(7));
  assert.ok(versions.every((row) => row.versions === 1), `no version from a page without the article: ${JSON.stringify(versions)}`);
  assert.ok(versions.every((row) => row.gone_since === null), 'the article that came back is no longer marked gone');

  // history, --json and the WARC export carry the results.
  const history = await forest([...ws.args, 'history', String(articleId(7)), '--json']);
  assert.equal(history.code, 0, history.stderr);
  const results = (JSON.parse(history.stdout) as { checks: Array<{ result: string; reason: string | null }> }).checks;
  assert.ok(results.some((check) => check.result === 'gone' && check.reason === 'HTTP 404'));
  assert.ok(results.some((check) => /^back/.test(check.reason ?? '')));
  const text = await forest([...ws.args, 'history', String(articleId(5))]);
  assert.match(text.stdout, /\d+ unavailable \(last: the page has \d+ characters/);
  const warc = join(ws.dir, 'outcomes.warc.gz');
  assert.equal((await forest([...ws.args, 'export', '--format', 'warc', '--out', warc])).code, 0);
  const metadata: Array<{ check: string; reason?: string }> = [];
  for await (const record of new WARCParser(createReadStream(warc))) {
    if (record.warcType === 'metadata') metadata.push(JSON.parse(await record.contentText()) as { check: string; reason?: string });
  }
  assert.ok(metadata.some((entry) => entry.check === 'gone' && entry.reason === 'HTTP 404'), 'a gone check in the WARC');
  assert.ok(metadata.some((entry) => entry.check === 'unavailable' && /home page/.test(entry.reason ?? '')), 'an unavailable check in the WARC');
});
