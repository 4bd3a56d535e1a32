import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractArticle } from '../../src/extract/extract.js';
import { EXTRACTOR_OPTIONS, extractorOptions } from '../../src/extract/options.js';

const paragraph = (n: number) => `<p>Paragraph ${n} of the council's budget story says what the committee decided about the new library and why the vote was close.</p>`;
const page = `<html lang="en"><head><title>Council passes budget</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<article><h1>Council passes budget</h1>${[1, 2, 3].map(paragraph).join('')}</article>
</body></html>`;

test('the thresholds are one object: a caller can change one, and extraction follows it', () => {
  const usual = extractArticle(page, { feedTitle: 'Council passes budget' });
  assert.notEqual(usual.method, 'none');
  // The article has about 70 words: with 500 required, no block is an article.
  const strict = extractArticle(page, { feedTitle: 'Council passes budget', thresholds: extractorOptions({ minWords: 500 }) });
  assert.equal(strict.method, 'none');
  assert.match(strict.reason ?? '', /too little text/);
});

test('extractorOptions checks what it is given and names the option', () => {
  assert.deepEqual(extractorOptions(), { ...EXTRACTOR_OPTIONS });
  assert.throws(() => extractorOptions({ guardCoverage: 1.5 }), /guardCoverage: expected a share between 0 and 1, got 1.5/);
  assert.throws(() => extractorOptions({ minWords: 2.5 }), /minWords: expected a whole number/);
  assert.throws(() => extractorOptions({ minWords: Number.NaN }), /minWords: expected a number/);
  assert.throws(() => extractorOptions({ minWrods: 3 } as never), /unknown extractor option: minWrods/);
  assert.equal(extractorOptions({ mssTag: -2 }).mssTag, -2);
});
