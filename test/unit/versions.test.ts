import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextCheck, retryCheck, scheduleRevisit } from '../../src/schedule/revisit.js';
import { alignBlocks, diffObjects } from '../../src/archive/diff.js';
import { normalizeArticle, normalizeText, normalizeUrl, objectHash, type NormalizedObject } from '../../src/archive/normalize.js';

const article = (html: string, extra: Partial<{ title: string; byline: string; published: string }> = {}) =>
  normalizeArticle({ title: extra.title ?? 'Harbour Bridge Reopens', byline: extra.byline ?? 'Ada Okafor', published: extra.published ?? '2026-11-02T10:00:00Z', html });

const BODY = `<p>The harbour bridge reopened this morning after a long repair.</p>
<figure><img src="https://news.example/img/bridge.jpg?utm_source=feed"><figcaption>The bridge at dawn.</figcaption></figure>
<p>Engineers said the work came in under budget, to the council’s relief.</p>
<ul><li>Traffic resumes at noon</li><li>Ferries keep their winter timetable</li></ul>`;

test('text normalization: whitespace, typographic quotes, relative times and dangling separators', () => {
  assert.equal(normalizeText('  “Quoted”\u00a0text — it’s   fine…  '), '"Quoted" text — it\'s fine...');
  assert.equal(normalizeText('By Ada Okafor · Updated 12 minutes ago'), 'By Ada Okafor');
  assert.equal(normalizeText('Posted 3 hours ago'), '');
  assert.equal(normalizeText('He left two minutes later.'), 'He left two minutes later.');
});

test('URL normalization drops tracking parameters and keeps the rest', () => {
  assert.equal(normalizeUrl('https://x.example/a?id=4&utm_source=rss&utm_medium=feed&fbclid=abc'), 'https://x.example/a?id=4');
  assert.equal(normalizeUrl('https://x.example/a?b=2&a=1'), 'https://x.example/a?a=1&b=2');
});

test('blocks: paragraphs, captions, list items and media are read from the extracted HTML', () => {
  const object = article(BODY);
  assert.deepEqual(object.blocks.map((block) => block.kind), ['paragraph', 'caption', 'paragraph', 'item', 'item']);
  assert.deepEqual(object.media, ['https://news.example/img/bridge.jpg']);
  assert.equal(object.blocks[2]!.text, "Engineers said the work came in under budget, to the council's relief.");
});

test('blocks of the HTML extraction writes: a table without tbody, paragraphs inside list items, loose text around breaks, entities', () => {
  const object = article(`<p>Intro &amp; summary</p>
<table><tr><th>Year</th><td>2026</td></tr></table>
<ul><li><p>First point</p><p>Second &lt;point&gt;</p></li><li>Plain <a href="https://x.example/a?utm_medium=rss">item</a></li></ul>
Loose text<br>after a break
<blockquote><p>Quoted words</p></blockquote>`);
  assert.deepEqual(object.blocks, [
    { kind: 'paragraph', text: 'Intro & summary' },
    { kind: 'cell', text: 'Year' },
    { kind: 'cell', text: '2026' },
    { kind: 'paragraph', text: 'First point' },
    { kind: 'paragraph', text: 'Second <point>' },
    { kind: 'item', text: 'Plain item', links: ['https://x.example/a'] },
    { kind: 'paragraph', text: 'Loose text' },
    { kind: 'paragraph', text: 'after a break' },
    { kind: 'paragraph', text: 'Quoted words' },
  ]);
});

test('the object hash ignores what is not the article and sees every real edit', () => {
  const base = objectHash(article(BODY));
  // Same article, different presentation: whitespace, quotes, tracking parameters, a counter.
  const noisy = BODY.replace('council’s', "council's").replace('utm_source=feed', 'utm_source=mail&utm_campaign=x').replace('</ul>', '</ul><p>42 comments</p>').replace(/\n/g, '\n\n  ');
  assert.equal(objectHash(article(noisy)), base);
  assert.equal(objectHash(article(BODY, { byline: 'Ada Okafor · Updated 3 minutes ago' })), base);
  // Real edits.
  assert.notEqual(objectHash(article(BODY.replace('long repair', 'lengthy repair'))), base);
  assert.notEqual(objectHash(article(BODY, { title: 'Harbour Bridge Reopens Early' })), base);
  assert.notEqual(objectHash(article(BODY.replace(/<figure>.*<\/figure>/, ''))), base);
  assert.notEqual(objectHash(article(`${BODY}<p>A new paragraph.</p>`)), base);
  assert.notEqual(objectHash(article(BODY, { published: '2026-11-03T10:00:00Z' })), base);
});

const diffOf = (a: NormalizedObject, b: NormalizedObject) => diffObjects(a, b);

test('diff: a corrected word is a body edit with a word diff inside its block', () => {
  const diff = diffOf(article(BODY), article(BODY.replace('long repair', 'lengthy repair')));
  assert.deepEqual(diff.kinds, ['body-edit']);
  const changed = diff.blocks.filter((block) => block.op === 'changed');
  assert.equal(changed.length, 1);
  assert.ok(changed[0]!.op === 'changed');
  assert.deepEqual(changed[0]!.words.filter((part) => part.op !== 'equal').map((part) => [part.op, part.text]), [['removed', 'long'], ['added', 'lengthy']]);
  assert.ok(diff.editedShare > 0 && diff.editedShare < 0.1, String(diff.editedShare));
});

test('diff: paragraphs added and removed, title, media and dates each get their kind', () => {
  const before = article(BODY);
  const after = article(`${BODY.replace(/<figure>.*<\/figure>/, '').replace('<p>The harbour', '<p>Council statement follows below for readers.</p><p>The harbour').replace('<li>Ferries keep their winter timetable</li>', '')}`,
    { title: 'Harbour Bridge Reopens Early', published: '2026-11-03T10:00:00Z' });
  const diff = diffOf(before, after);
  assert.deepEqual(diff.kinds.sort(), ['dates', 'media-removed', 'paragraphs-added', 'paragraphs-removed', 'title'].sort());
  assert.deepEqual(diff.media.removed, ['https://news.example/img/bridge.jpg']);
  assert.match(diff.summary, /title “Harbour Bridge Reopens” → “Harbour Bridge Reopens Early”/);
  // The caption went with its image: a media change, not a removed paragraph.
  assert.match(diff.summary, /1 block added; 1 block removed; 1 media item and 1 caption removed/);
});

test('alignment pairs an edited block with its new text, not with an unrelated neighbour', () => {
  const block = (text: string) => ({ kind: 'paragraph' as const, text });
  const changes = alignBlocks(
    [block('one two three four five'), block('alpha beta gamma delta')],
    [block('a wholly new paragraph here'), block('one two three four six'), block('alpha beta gamma delta')],
  );
  assert.deepEqual(changes.map((change) => change.op), ['added', 'changed', 'equal']);
});

test('identical objects have an empty diff', () => {
  const diff = diffOf(article(BODY), article(BODY));
  assert.deepEqual(diff.kinds, []);
  assert.equal(diff.summary, 'no change');
});

test('revisit schedule: the delays in turn, one more step for every edit found, then none', () => {
  const after = [10, 60, 600];
  let state = scheduleRevisit(0, false, after, 0); // the first capture
  assert.deepEqual(state, { step: 1, at: 10 });
  state = scheduleRevisit(state.step, false, after, 10); // unchanged
  assert.deepEqual(state, { step: 2, at: 70 });
  state = scheduleRevisit(state.step, true, after, 70); // an edit: the same delay once more
  assert.deepEqual(state, { step: 2, at: 130 });
  state = scheduleRevisit(state.step, false, after, 130);
  assert.deepEqual(state, { step: 3, at: 730 });
  assert.equal(scheduleRevisit(state.step, false, after, 730).at, null, 'the schedule has run out');
});

test('a check without an answer is retried within its step, backing off, honouring Retry-After; the step is spent once the back-off reaches its gap', () => {
  const minute = 60_000;
  const revisit = { enabled: true, after: [60 * minute, 7 * 24 * 60 * minute, 30 * 24 * 60 * minute], retryDelay: 5 * minute };
  const at = '2026-11-02T00:00:00.000Z';
  const plus = (ms: number) => new Date(Date.parse(at) + ms).toISOString();
  // The 7-day check (step 2) fails: retried in 5 minutes, then 10, 20, …, still at step 2.
  assert.deepEqual(retryCheck(revisit, 2, 0, at, null), { step: 2, at: plus(5 * minute), failures: 1 });
  assert.deepEqual(retryCheck(revisit, 2, 1, at, null), { step: 2, at: plus(10 * minute), failures: 2 });
  assert.deepEqual(retryCheck(revisit, 2, 3, at, null), { step: 2, at: plus(40 * minute), failures: 4 });
  // Retry-After is honoured when longer than the back-off, ignored when shorter.
  assert.deepEqual(retryCheck(revisit, 2, 0, at, 2 * 60 * minute), { step: 2, at: plus(2 * 60 * minute), failures: 1 });
  assert.deepEqual(retryCheck(revisit, 2, 2, at, minute), { step: 2, at: plus(20 * minute), failures: 3 });
  // The last step (30 days) is not ended by a failure: it is retried too.
  assert.deepEqual(retryCheck(revisit, 3, 0, at, null), { step: 3, at: plus(5 * minute), failures: 1 });
  // Once the back-off has grown to the step's gap (5 min × 2^4 = 80 min ≥ 1 h), the step is spent.
  assert.deepEqual(retryCheck(revisit, 1, 4, at, null), { step: 2, at: plus(7 * 24 * 60 * minute), failures: 0 });
  assert.deepEqual(retryCheck(revisit, 3, 14, at, null), { step: 3, at: null, failures: 0 }, 'the last step spent: revisits end');
  // An answered check resets the count.
  assert.equal(nextCheck(revisit, 2, false, at).failures, 0);
});
