import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalVerdict, redirectVerdict, textVerdict } from '../../src/daemon/availability.js';
import { DAEMON_OPTIONS } from '../../src/daemon/options.js';

const article = 'https://news.example/2026/11/city-council-votes';

test('a redirect to the home page or to another archived article is unavailable', () => {
  assert.match(redirectVerdict(article, 'https://news.example/', null) ?? '', /home page/);
  assert.match(redirectVerdict(article, 'https://www.news.example', null) ?? '', /home page/);
  assert.match(redirectVerdict(article, 'https://news.example/2026/11/other-story', { id: 12 }) ?? '', /another article \(#12\)/);
});

test('a redirect that may well be the article is left to extraction', () => {
  // A new slug after a headline edit, https, www, a trailing slash, a new path: not judged here.
  assert.equal(redirectVerdict(article, 'https://news.example/2026/11/city-council-votes-yes', null), null);
  assert.equal(redirectVerdict('http://news.example/2026/11/city-council-votes', article, null), null);
  assert.equal(redirectVerdict(article, 'https://www.news.example/2026/11/city-council-votes/', { id: 3 }), null, 'the same page, even if listed under another item');
  // A home page that redirects to itself is not a soft 404.
  assert.equal(redirectVerdict('https://news.example/', 'https://www.news.example/', null), null);
  // A query string is a page of its own, not the home page.
  assert.equal(redirectVerdict(article, 'https://news.example/?p=123', null), null);
});

test('a canonical URL that moved to the home page is unavailable; a new slug is not', () => {
  assert.match(canonicalVerdict(article, article, 'https://news.example/') ?? '', /canonical URL is now the home page/);
  assert.match(canonicalVerdict(article, null, 'https://news.example/') ?? '', /home page/);
  assert.equal(canonicalVerdict(article, article, `${article}-updated`), null);
  assert.equal(canonicalVerdict(article, article, article), null);
  assert.equal(canonicalVerdict(article, article, null), null, 'a page without a canonical says nothing');
});

test('text under a fifth of a real article is unavailable; a cut or a short piece is not', () => {
  assert.match(textVerdict(2000, 150) ?? '', /150 characters of text where the article had 2000/);
  assert.equal(textVerdict(2000, 450), null, 'a heavy cut keeps more than a fifth');
  assert.equal(textVerdict(2000, 2400), null);
  assert.equal(textVerdict(DAEMON_OPTIONS.availability.unavailableMinPreviousChars - 1, 10), null, 'too short before to judge');
});
