import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadCodec } from '../../src/archive/codec.js';
import { joinWordMarks, parseSearchQuery, toFts5 } from '../../src/archive/search-query.js';
import { dateInWords } from '../../src/util/units.js';
import { SearchQueryError } from '../../src/archive/store.js';
import { smallArchive } from '../helpers/small-archive.js';
import { tempDir } from '../helpers/temp.js';

const fts = (query: string) => toFts5(parseSearchQuery(query));

test('the search language: words, phrases, OR, exclusion, prefixes, the title field and groups', () => {
  assert.equal(fts('mayor said'), '("mayor" AND "said")');
  assert.equal(fts('mayor AND said'), '("mayor" AND "said")');
  assert.equal(fts('"the mayor said"'), '"the mayor said"');
  assert.equal(fts('mayor OR council'), '("mayor" OR "council")');
  assert.equal(fts('mayor -council'), '("mayor" NOT "council")');
  assert.equal(fts('mayor NOT council'), '("mayor" NOT "council")');
  assert.equal(fts('may*'), '"may"*');
  assert.equal(fts('title:mayor'), '(title : "mayor")');
  assert.equal(fts('title:"city hall" budget'), '((title : "city hall") AND "budget")');
  assert.equal(fts('(mayor OR council) vote'), '(("mayor" OR "council") AND "vote")');
  assert.equal(fts('title:(mayor OR council)'), '((title : "mayor") OR (title : "council"))');
  assert.equal(fts('-(a OR b) c'), '("c" NOT ("a" OR "b"))');
  assert.equal(fts('or and not'), '("or" AND "and" AND "not")', 'keywords are upper case; lower case they are words');
});

test('what a user types is searched as the index holds it: punctuation splits words into a phrase', () => {
  assert.equal(fts('harbour-bridge'), '"harbour bridge"');
  assert.equal(fts("it's"), '"it s"');
  assert.equal(fts('harbour-bri*'), '"harbour bri"*');
  assert.equal(fts('"unclosed phrase'), '"unclosed phrase"');
  assert.equal(fts('(mayor OR council'), '("mayor" OR "council")', 'an open parenthesis closes at the end');
  assert.equal(fts('mayor) council'), '("mayor" AND "council")', 'a stray one is passed over');
  assert.equal(fts('NEAR(a b) c:d {title}:e ^f'), '("NEAR" AND ("a" AND "b") AND "c d" AND "title e" AND "f")');
  assert.equal(fts('café 東京'), '("café" AND "東京")');
});

test('a query with nothing to search for says why in one line', () => {
  for (const [query, reason] of [['', /empty query/], ['   ', /empty query/], ['*', /no word to search for/], ['"" () - title:', /no word to search for/], ['-mayor', /every word .* is excluded/], ['NOT mayor', /excluded/], ['a OR -b', /excluded/]] as const) {
    assert.throws(() => parseSearchQuery(query), (error: unknown) => error instanceof SearchQueryError && reason.test(error.message) && !error.message.includes('\n'), query);
  }
});

test('through the archive, any text is searched or refused with a reason, never an engine error', async () => {
  await loadCodec();
  const store = smallArchive(join(tempDir(), 'search.db'), ['Harbour-bridge opens', 'It\'s done', 'Three']);
  try {
    assert.deepEqual((await store.search('harbour-bridge', {})).map((hit) => hit.article), [1]);
    assert.deepEqual((await store.search("it's", {})).map((hit) => hit.article), [2]);
    assert.deepEqual((await store.search('title:three', {})).map((hit) => hit.article), [3]);
    assert.deepEqual((await store.search('mayor -title:three', {})).map((hit) => hit.article).sort(), [1, 2]);
    assert.deepEqual((await store.search('"mayor said no', { allVersions: true })).map((hit) => `${hit.article}.${hit.versions[0]}`).sort(), ['1.1', '2.1', '3.1']);
    assert.deepEqual((await store.search('harb*', {})).map((hit) => hit.article), [1]);
    const hostile = ['*', '"', '(', ')', '-', 'AND', 'OR OR', 'NOT', 'a AND', 'NEAR(', 'title:', ':', '^', '{', '}', '+', 'x:y', "'", '\\', '\u0000', '😀', 'a'.repeat(5000), '"a" "b', '((((((a'];
    for (const query of hostile) {
      try {
        await store.search(query, {});
      } catch (error) {
        assert.ok(error instanceof SearchQueryError, `${JSON.stringify(query).slice(0, 40)}: ${String(error)}`);
      }
    }
  } finally {
    await store.close();
  }
});

test("a PostgreSQL snippet's marks are joined across a word's inner punctuation, as SQLite marks it (issue #68, 9)", () => {
  assert.equal(joinWordMarks('the [harbour]-[bridge] reopened'), 'the [harbour-bridge] reopened');
  assert.equal(joinWordMarks("[it]'[s] open, [it]’[s] late"), "[it's] open, [it’s] late");
  assert.equal(joinWordMarks('[harbour] [bridge]'), '[harbour] [bridge]', 'two words stay two');
  assert.equal(joinWordMarks('[harbour]bridge'), '[harbour]bridge');
});

test('dates in words, for bylines and show (issue #68, 9)', () => {
  assert.equal(dateInWords('2026-11-02T10:00:00.000Z'), '2 November 2026 at 10:00 UTC');
  assert.equal(dateInWords('yesterday'), 'yesterday', 'what is no date stays as given');
});
