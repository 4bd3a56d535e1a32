import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scorePage, summarize } from '../../bench/extract/metric.js';
import { maximumSubsequence } from '../../src/extract/fallback.js';
import { informativeness, jeffreysDensity, relevance, unexpectedness } from '../../src/extract/scores.js';
import { tfidfSignifiers, feedSignifiers, trigramsOf } from '../../src/extract/signifiers.js';
import { countWordRuns, terms, words } from '../../src/extract/terms.js';
import { seededRandom } from '../../src/util/random.js';
import { renderXPath, tolerantForm } from '../../src/extract/wrapper.js';

test('J: Jeffreys density, the worked examples of FOREST §3.3', () => {
  // x = 1, y = 0: J ≈ 0.32, far below the naive density of 1.
  assert.ok(Math.abs(jeffreysDensity(1, 0) - 0.3165) < 0.005, `${jeffreysDensity(1, 0)}`);
  // x = 8, y = 20 is comparable to x = 3, y = 5.
  assert.ok(Math.abs(jeffreysDensity(8, 20) - jeffreysDensity(3, 5)) < 0.05);
  assert.equal(jeffreysDensity(0, 10), 0, 'clamped at 0');
  assert.equal(jeffreysDensity(0, 0), 0);
});

test('U: unexpectedness (nats), the worked examples of FOREST §3.3', () => {
  // A page of 20 signifiers and 100 others: a node with 10 and 26 → ≈ 23 bits; 3 and 1 → ≈ 6 bits.
  assert.ok(Math.abs(unexpectedness(10, 26, 20, 100) - 23) < 1.5, `${unexpectedness(10, 26, 20, 100)}`);
  assert.ok(Math.abs(unexpectedness(3, 1, 20, 100) - 6) < 1, `${unexpectedness(3, 1, 20, 100)}`);
  assert.equal(unexpectedness(0, 0, 20, 100), 0);
});

test('I = J × U and R = Σ I × p × level', () => {
  assert.equal(informativeness(10, 26, 20, 100), jeffreysDensity(10, 26) * unexpectedness(10, 26, 20, 100));
  // Two pages with I = 2 and 3, at level 4: (2 + 3) × 2 × 4.
  assert.equal(relevance([2, 3], 4), 40);
  assert.equal(relevance([], 4), 0);
});

test('tolerant form: first token, digits removed', () => {
  assert.equal(tolerantForm('post wrapper-09'), 'post');
  assert.equal(tolerantForm('story-body-12'), 'story-body');
  assert.equal(tolerantForm('item42'), 'item');
  // No made-up attribute (issue #68, 9): the position in document order is said in words, counted from 1.
  assert.equal(renderXPath('td[class=story]/div', [78, 82]), "//td[contains(@class,'story')]/div (element 79 or 83 in document order)");
});

test('signifiers: 3-grams and stemmed keywords from a feed item; tf-idf top-k skips shared terms', () => {
  const signifiers = feedSignifiers('Harbour bridge reopens', '<p>The old <b>harbour bridge</b> reopened today.</p>');
  assert.ok(signifiers.trigrams.has('harbour bridge reopens'));
  assert.ok(signifiers.trigrams.has('the old harbour'));
  assert.ok(signifiers.keywords.has('harbour') && signifiers.keywords.has('reopen'));
  assert.ok(!signifiers.keywords.has('the'), 'stop words removed');
  assert.deepEqual(trigramsOf(['a', 'b', 'c', 'd']), ['a b c', 'b c d']);
  const pages = [terms('menu home contact budget budget council vote'), terms('menu home contact ferry ferry timetable'), terms('menu home contact festival music')];
  const top = tfidfSignifiers(pages, 2);
  assert.deepEqual([...top[0]!.keywords], ['budget', 'council']);
  assert.ok(![...top[1]!.keywords].includes('menu'), 'a term on every page has idf 0');
});

test('maximum subsequence: the best-scoring contiguous run', () => {
  assert.deepEqual(maximumSubsequence([-3.25, 1, 1, -3.25, 1, 1, 1, 1, 1, -3.25]), { start: 4, end: 8, sum: 5 });
  assert.deepEqual(maximumSubsequence([1, 1, 1, -1, 1, 1]), { start: 0, end: 5, sum: 4 }, 'a small dip inside the article is crossed');
  assert.deepEqual(maximumSubsequence([-1, -2]), { start: 0, end: -1, sum: 0 });
});

test('the benchmark metric: 4-token shingles, multiset tp/fp/fn, means of per-page precision and recall', () => {
  const score = scorePage('one two three four five', 'one two three four six');
  assert.deepEqual(score, { tp: 1, fp: 1, fn: 1 });
  const perfect = scorePage('a b c d', 'a b c d');
  const empty = scorePage('', '');
  const summary = summarize([score, perfect, empty]);
  assert.equal(summary.precision, (0.5 + 1 + 1) / 3);
  assert.equal(summary.recall, (0.5 + 1 + 1) / 3);
  assert.deepEqual(scorePage('x y z w x y z w', 'x y z w'), { tp: 1, fp: 4, fn: 0 }, 'multisets: repeated shingles count');
});

test('words, and counting them without making them: the runs the word pattern matches, on any text', () => {
  const random = seededRandom(7);
  // Letters, digits and _ of several scripts (an astral letter and digit among them), combining
  // marks, spaces, punctuation and a lone surrogate: the pattern's edges.
  const alphabet = ['a', 'Z', '7', '_', 'é', 'İ', 'ß', 'я', '中', '٣', '\u0301', ' ', '\n', '\t', '-', '.', '’', '😀', '𝒜', '𝟙', '\ud800', '\u00a0'];
  const texts = ['', ' ', 'word', '  two words  ', 'İstanbul'];
  for (let i = 0; i < 2000; i++) {
    let text = '';
    const length = Math.floor(random() * 40);
    for (let j = 0; j < length; j++) text += alphabet[Math.floor(random() * alphabet.length)];
    texts.push(text);
  }
  for (const text of texts) {
    assert.equal(countWordRuns(text), text.match(/[\p{L}\p{N}_]+/gu)?.length ?? 0, JSON.stringify(text));
    assert.deepEqual(words(text), text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [], JSON.stringify(text));
  }
});
