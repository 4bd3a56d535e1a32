import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { z } from 'zod';
import { extractArticle } from '../../src/extract/extract.js';
import { wordCount } from '../../src/extract/guard.js';
import { PROJECT_ROOT } from '../../src/util/project-root.js';

/**
 * The regression corpus (issues #10 and #54): one page per failure class that made whole sites
 * collapse, written for this project (not copied from any site), in `test/pages/<case>/`:
 * `page.html` and `expected.json` — what the class is, what the object must hold and must not.
 * Single-page extraction, without a feed item unless the case gives one: the page's own
 * metadata its only signifiers, the hardest setting.
 */
const Expected = z.object({
  /** The failure class, in words. */
  failure: z.string().min(1),
  url: z.string().url(),
  feed: z.object({ title: z.string().optional(), summary: z.string().optional() }).optional(),
  /** Texts the object's text must hold, each as written. */
  include: z.array(z.string().min(1)).min(1),
  /** Texts it must not. */
  exclude: z.array(z.string().min(1)),
  /** At least this many words. */
  minWords: z.number().int().positive().optional(),
  /** The object's title. */
  title: z.string().optional(),
  /** The lead image the object must have (null: none). */
  leadImage: z.string().nullable().optional(),
}).strict();

const corpus = join(PROJECT_ROOT, 'test', 'pages');
const cases = readdirSync(corpus, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();

test('the regression corpus holds its cases', () => {
  assert.ok(cases.length >= 10, `only ${cases.length} cases in ${corpus}`);
});

for (const name of cases) {
  test(`regression page: ${name}`, () => {
    const expected = Expected.parse(JSON.parse(readFileSync(join(corpus, name, 'expected.json'), 'utf8')));
    const article = extractArticle(readFileSync(join(corpus, name, 'page.html')), { url: expected.url, feedTitle: expected.feed?.title ?? null, feedSummary: expected.feed?.summary ?? null });
    assert.notEqual(article.method, 'none', article.reason ?? '');
    const shown = `${expected.failure}\n--- object (${article.method}, ${wordCount(article.text)} words):\n${article.text.slice(0, 400)}`;
    for (const text of expected.include) assert.ok(article.text.includes(text), `missing: ${text.slice(0, 60)}…\n${shown}`);
    for (const text of expected.exclude) assert.ok(!article.text.includes(text), `kept: ${text}\n${shown}`);
    if (expected.minWords !== undefined) assert.ok(wordCount(article.text) >= expected.minWords, `fewer than ${expected.minWords} words\n${shown}`);
    if (expected.title !== undefined) assert.equal(article.title, expected.title);
    if (expected.leadImage !== undefined) assert.equal(article.leadImage, expected.leadImage);
  });
}
