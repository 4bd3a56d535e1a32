import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { makeArticle } from '../../src/synthetic/articles.js';
import { SyntheticWeb } from '../../src/synthetic/server.js';
import { finished, forest, startForest, waitFor } from '../helpers/cli.js';
import { query, workspace } from '../helpers/setup.js';

/*
 * A site down when an article's check is due (issue #68, 1): the check is retried within
 * seconds here (minutes by default), the step is not spent, and an edit made meanwhile is found
 * by the retry once the site answers — not a whole step (weeks, by default) later.
 */

const EDITED = 3;
const web = new SyntheticWeb({ edits: [{ site: 'ledger', index: EDITED, after: 0, kind: 'add-paragraph' }], holdEdits: true });
before(() => web.start());
after(() => web.stop());

interface ArticleLine { id: number; versions: number; revisit_step: number; failed_checks: number; next_check_at: string | null }
interface CheckLine { result: string; status: number | null; reason: string | null; at: string }

test('a check that gets no answer is retried soon, keeps its step, and the retry finds the edit made while the site was down', async () => {
  const site = web.site('ledger');
  // The first check 10 s after the capture, the next an hour later: a spent step would be an
  // hour's wait. Retries back off from 0.5 s, and spend the step once the wait reaches 10 s.
  const ws = workspace([{ url: site.feedUrl }], { revisit: { after: ['10s', '1h'], retryDelay: '500ms' } });
  const slug = makeArticle('ledger', EDITED, 0).slug;
  const columns = 'SELECT id, versions, revisit_step, failed_checks, next_check_at FROM articles';
  const edited = () => query<ArticleLine>(ws.db, `${columns} WHERE url LIKE ?`, `%/articles/${slug}`)[0];
  // The first of the site's articles to fail: while it is retried, the host's other articles wait with it (host-trouble.ts).
  const failing = () => query<ArticleLine>(ws.db, `${columns} WHERE failed_checks >= 2 ORDER BY id LIMIT 1`)[0];
  const checks = (id: number) => query<CheckLine>(ws.db, 'SELECT result, status, reason, at FROM checks WHERE article_id = ? ORDER BY id', id);
  const daemon = startForest([...ws.args, 'run']);
  try {
    await waitFor(() => edited() !== undefined, 20_000, 'the article archived');
    // The site goes down (every connection reset) and the article is edited meanwhile.
    web.set('ledger', { down: true });
    web.releaseEdits();
    await waitFor(() => failing() !== undefined, 30_000, 'two failed checks in a row');
    const down = failing()!;
    assert.equal(down.revisit_step, 1, 'a check without an answer spends no step');
    assert.ok(Date.parse(down.next_check_at!) - Date.now() < 60_000, `the retry is soon, not a step later: ${down.next_check_at}`);
    assert.equal(edited()!.revisit_step, 1, 'the edited article has not spent its step either');

    // history and status say the check failed and when it is retried.
    const history = await forest([...ws.args, 'history', String(down.id)]);
    assert.match(history.stdout, /next check \S+ \(a retry: the last \d+ checks got no answer, the last at \S+: connection failed/);
    assert.match((await forest([...ws.args, 'history', String(down.id), '--json'])).stdout, /"failedChecks":\s*[1-9]/);
    assert.match((await forest([...ws.args, 'status'])).stdout, /\d+ articles? whose last check got no answer: retried (in|\d)/);
    assert.ok(checks(down.id).filter((check) => check.result === 'failed').every((check) => check.status === null && /ECONNRESET/.test(check.reason ?? '')), 'each failed check says why');

    web.set('ledger', { down: false });
    await waitFor(() => edited()!.versions === 2, 30_000, 'the edit found by a retry');
  } finally {
    daemon.kill('SIGTERM');
    assert.equal((await finished(daemon)).code, 0, daemon.output.stderr);
  }
  const found = edited()!;
  assert.equal(found.failed_checks, 0, 'an answer resets the count');
  // The check that found the edit repeats its step's delay (schedule/revisit.ts): the next check
  // is 10 s away, not an hour as it would be had the failures spent the step.
  assert.equal(found.revisit_step, 1);
  assert.ok(Date.parse(found.next_check_at!) - Date.now() < 60_000, `the next check follows the step's own delay: ${found.next_check_at}`);
});
