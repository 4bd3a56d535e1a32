import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { encodeBody, loadCodec, type EncodedBody, type StoredBody } from '../../src/archive/codec.js';
import { normalizeArticle, objectHash } from '../../src/archive/normalize.js';
import { learningDue, relearnGap, retiresWrapper } from '../../src/daemon/extraction.js';
import { createPool, type CpuPool } from '../../src/daemon/pool.js';
import { extractTask, type PageInput } from '../../src/daemon/tasks.js';
import { DAEMON_OPTIONS } from '../../src/daemon/options.js';
import { EXTRACTOR_VERSION } from '../../src/extract/extract.js';
import { extractArticle } from '../../src/extract/extract.js';
import { learnFromSamples } from '../../src/extract/learn.js';
import { requisitesOfCss, requisitesOfHtml } from '../../src/requisites/discover.js';
import { SyntheticWeb } from '../../src/synthetic/server.js';

/**
 * The worker pool gives exactly the objects single-threaded extraction gave: the synthetic web's
 * pages always, and the shared datasets' pages when ../shared is beside the project.
 */

const web = new SyntheticWeb();
let pool: CpuPool;
before(async () => {
  await web.start();
  await loadCodec();
  pool = createPool(2);
});
after(async () => {
  await pool.close();
  await web.stop();
});

async function syntheticPages(): Promise<Array<{ group: string; bytes: Buffer; url: string }>> {
  const pages: Array<{ group: string; bytes: Buffer; url: string }> = [];
  for (const site of web.sites.values()) {
    const feed = await (await fetch(site.feedUrl)).text();
    const links = [...feed.matchAll(/https?:\/\/[^"<\s]+\/(?:articles|r)\/[^"<\s]+/g)].map((match) => match[0]).slice(0, 5);
    for (const link of new Set(links)) {
      const response = await fetch(link);
      pages.push({ group: site.definition.slug, bytes: Buffer.from(await response.arrayBuffer()), url: response.url });
    }
  }
  return pages;
}

function sharedPages(): Array<{ group: string; bytes: Buffer; url: string }> {
  const dir = join(import.meta.dirname, '..', '..', '..', 'shared', 'datasets', 'same-template', 'news-2009');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).flatMap((site) =>
    readdirSync(join(dir, site.name)).filter((file) => file.endsWith('.html')).slice(0, 4)
      .map((file) => ({ group: site.name, bytes: readFileSync(join(dir, site.name, file)), url: `https://${site.name}.example/${file}` })));
}

const stored = ({ encoding, data }: EncodedBody): StoredBody => ({ encoding, data });

const input = (page: { bytes: Buffer; url: string }): PageInput => ({
  body: stored(encodeBody(page.bytes)), contentType: 'text/html', url: page.url, feed: { title: null, summary: null, published: null, updated: null, author: null },
});

test('pooled extraction and learning give exactly the single-threaded objects (golden check)', async () => {
  const synthetic = await syntheticPages();
  assert.ok(synthetic.length >= 12, `${synthetic.length} synthetic pages`);
  const pages = [...synthetic, ...sharedPages()];
  const pooled = await Promise.all(pages.map((page) => pool.extract({ page: input(page), maxBytes: 8 << 20, templates: [], compare: null })));
  pages.forEach((page, i) => {
    const expected = extractArticle(page.bytes, { url: page.url, contentType: 'text/html' });
    assert.deepEqual(pooled[i]!.article, expected, page.url);
    assert.equal(pooled[i]!.hash, expected.method === 'none' ? null : objectHash(normalizeArticle(expected)));
  });
  // Learning: per group, the wrapper the pool learns is the one learned on this thread.
  const groups = new Map<string, typeof pages>();
  for (const page of pages) groups.set(page.group, [...(groups.get(page.group) ?? []), page]);
  for (const [group, members] of groups) {
    if (members.length < 3) continue;
    const samples = members.map((page, i) => ({ ...input(page), snapshotId: i }));
    const learned = await pool.learn({ samples, pages: [], maxBytes: 8 << 20, current: null, routine: false });
    const local = learnFromSamples(members.map((page) => ({ input: page.bytes, url: page.url, contentType: 'text/html' })));
    assert.deepEqual(learned.wrapper, local.wrapper, group);
  }
});

test('a parse error in a worker fails its task alone; the pool goes on', async () => {
  const broken = { page: { ...input({ bytes: Buffer.from('<p>x</p>'), url: 'https://x.example/' }), body: { encoding: 'gzip', data: new Uint8Array([1, 2, 3]) } }, maxBytes: 1 << 20, templates: [], compare: null };
  await assert.rejects(pool.extract(broken));
  const ok = await pool.encode({ body: Buffer.from('still here'), reference: null });
  assert.equal(ok.size, 10);
});

test('a wrapper that keeps failing is re-learned less and less often, and at once after a redesign', () => {
  assert.equal(relearnGap(0), 3, 'the first failure (a redesign) is re-learned after three pages');
  const gaps = [1, 2, 3, 4, 5, 6].map(relearnGap);
  assert.deepEqual(gaps, [6, 12, 24, 48, 48, 48], 'doubling, then capped');
});

test('a wrapper whose drift was re-learned twice in vain is retired; one odd page, or a routine learning that found nothing, does not retire it', () => {
  assert.deepEqual([1, 2, 3].map((failed) => retiresWrapper(failed, false)), [false, true, true]);
  assert.equal(retiresWrapper(5, true), false, 'a routine learning that found nothing better leaves the wrapper in place');
});

test('a busy template is re-learned at 3, 5 and 10 pages, then ever further apart up to every 100 pages', () => {
  const due = Array.from({ length: 1000 }, (_, i) => i + 1).filter((pages) => learningDue(pages, 3));
  assert.deepEqual(due.slice(0, 9), [3, 5, 10, 20, 40, 80, 160, 260, 360]);
  // A feed publishing every minute has 1,440 pages a day: every 10 pages was 144 learnings a
  // day, each parsing ten pages and usually storing a new wrapper version.
  assert.equal(due.length, 15, 'learnings in the first 1,000 pages');
  assert.ok(learningDue(100_160, 3) && !learningDue(100_150, 3), 'the gap stays 100 pages');
});

test('a routine re-learning whose wrapper changes none of the template\'s pages keeps the active wrapper; drift stores the new one', async () => {
  const synthetic = await syntheticPages();
  const group = synthetic.filter((page) => page.group === synthetic[0]!.group);
  assert.ok(group.length >= 4, `${group.length} pages of one site`);
  const samples = group.map((page, i) => ({ ...input(page), snapshotId: i + 1 }));
  const first = await pool.learn({ samples, pages: [], maxBytes: 8 << 20, current: null, routine: false });
  assert.ok(first.wrapper);
  // The active wrapper, as an earlier learning left it: the same selector, with one template
  // line more that none of these pages shows — learning again gives another wrapper, not
  // another object.
  const active = { ...first.wrapper, templateBlocks: [...first.wrapper.templateBlocks, 'a line no page of this site shows'] };
  const pages = samples.map((sample) => {
    const { title, byline, published, modified, leadImage, language, text } = extractArticle(group[sample.snapshotId - 1]!.bytes, { url: sample.url, contentType: 'text/html', wrapper: active });
    return { ...sample, extracted: { title, byline, published, modified, leadImage, language, text } };
  });
  const routine = await pool.learn({ samples, pages, maxBytes: 8 << 20, current: JSON.stringify(active), routine: true });
  assert.equal(routine.unchanged, true, 'routine: the active wrapper stays');
  assert.deepEqual(routine.changed, []);
  const drift = await pool.learn({ samples, pages, maxBytes: 8 << 20, current: JSON.stringify(active), routine: false });
  assert.equal(drift.unchanged, false, 'drift: the new wrapper is stored');
  // Re-extraction changes a page when any field of its object differs, not its text alone: an
  // extraction that held another byline (or none) is re-extracted, and the learning is news.
  const stale = pages.map((page, i) => (i === 0 ? { ...page, extracted: { ...page.extracted, byline: `${page.extracted.byline ?? ''} (earlier)` } } : page));
  const bylineOnly = await pool.learn({ samples, pages: stale, maxBytes: 8 << 20, current: JSON.stringify(active), routine: true });
  assert.equal(bylineOnly.unchanged, false, 'a changed byline is a change');
  assert.deepEqual(bylineOnly.changed.map((page) => page.snapshotId), [pages[0]!.snapshotId]);
});

test('a revisit is judged before it is stored: the same object on a known template keeps no body; an edit, the same bytes or a new layout are encoded for storage', async () => {
  const [page] = await syntheticPages();
  const withAd = (bytes: Buffer, ad: string) => Buffer.from(bytes.toString('utf8').replace('</body>', `<div class="promo">${ad}</div></body>`));
  const first = await pool.extract({ page: input(page!), maxBytes: 8 << 20, templates: [], compare: null });
  assert.ok(first.object && first.hash && first.template && 'signature' in first.template, 'a first capture on a new layout');
  const templates = [{ id: 7, signature: JSON.stringify(first.template.signature), wrapperId: null, wrapper: null }];
  const compare = { hash: first.hash, method: first.article.method, wrapperId: null, object: JSON.stringify(first.object), extractor: EXTRACTOR_VERSION, source: first.article.source };
  const revisit = (bytes: Buffer, choices = templates) => pool.revisit({
    page: { body: bytes, contentType: 'text/html', url: page!.url, feed: { title: null, summary: null, published: null, updated: null, author: null } },
    maxBytes: 8 << 20, templates: choices, compare, previousDigest: encodeBody(page!.bytes).sha256, reference: null,
  });

  const same = await revisit(withAd(page!.bytes, 'Sponsored: offer 41'));
  assert.equal(same.kind, 'same');
  assert.ok(same.kind === 'same' && same.extracted.template.id === 7 && same.extracted.hash === first.hash && same.sha256 === encodeBody(withAd(page!.bytes, 'Sponsored: offer 41')).sha256);

  const edited = withAd(Buffer.from(page!.bytes.toString('utf8').replace(/(<p[^>]*>)([^<]{20,})/, '$1Correction: $2')), 'Sponsored: offer 42');
  const stored = await revisit(edited);
  assert.equal(stored.kind, 'store', 'an edit is stored, for its queued extraction to make a version');
  assert.ok(stored.kind === 'store' && stored.body.size === edited.length && stored.body.sha256 === encodeBody(edited).sha256);

  assert.equal((await revisit(page!.bytes)).kind, 'store', 'the same bytes are recorded as an identical payload, the usual way');
  assert.equal((await revisit(withAd(page!.bytes, 'x'), [])).kind, 'store', 'a page of no known template is stored, so that its extraction adds the template');
});

test('a learning holds at most its HTML budget of samples, newest first, and never fewer than two', async () => {
  // Pages of one template whose article text alone weighs `kb` kilobytes.
  const page = (n: number, kb: number) => {
    const paragraph = (i: number) => `<p>Paragraph ${i} of story ${n}: the council met again on Tuesday to weigh the harbour plan, and residents spoke for an hour.</p>`;
    const body = Array.from({ length: Math.ceil((kb * 1024) / 130) }, (_, i) => paragraph(i)).join('\n');
    return Buffer.from(`<html><head><title>Story ${n}</title></head><body><div class="nav"><a href="/">Home</a></div><div class="story"><h1>Story ${n}</h1>${body}</div></body></html>`);
  };
  const learn = (kb: number) => pool.learn({
    samples: [1, 2, 3, 4].map((n, i) => ({ ...input({ bytes: page(n, kb), url: `https://large.example/${n}` }), snapshotId: i + 1 })),
    pages: [], maxBytes: 8 << 20, current: null, routine: false,
  });
  assert.equal((await learn(40)).samples, 4, 'small pages: every sample');
  const large = await learn(1200);
  assert.ok(4 * 1200 * 1024 > DAEMON_OPTIONS.learning.htmlBytes && 2 * 1200 * 1024 <= DAEMON_OPTIONS.learning.htmlBytes, 'the pages are sized around the budget');
  assert.equal(large.samples, 2, 'pages of 1.2 MB: the two newest fit the budget');
  assert.equal((await learn(4000)).samples, 2, 'pages larger than the budget: still two');
});

test('a comparison key made by an older extractor is rebased before comparing: an upgrade is not an edit', async () => {
  const [page] = await syntheticPages();
  const first = extractTask({ page: input(page!), maxBytes: 8 << 20, templates: [], compare: null });
  assert.ok(first.object && first.hash);
  // The same page as an older extractor saw it: its byline missed, say.
  const older = { ...first.object, byline: '' };
  const key = { hash: 'made-by-an-older-extractor', method: first.article.method, wrapperId: null, object: JSON.stringify(older), source: null };
  assert.equal(extractTask({ page: input(page!), maxBytes: 8 << 20, templates: [], compare: { ...key, extractor: EXTRACTOR_VERSION - 1 } }).comparison.kind, 'rebase');
  assert.equal(extractTask({ page: input(page!), maxBytes: 8 << 20, templates: [], compare: { ...key, extractor: EXTRACTOR_VERSION } }).comparison.kind, 'edited',
    'the same key made by this extractor is compared: the byline differs');
});

test('an extraction made from what the comparison key was made from is the key\'s object: it is neither sanitized nor normalized again', async () => {
  const [page] = await syntheticPages();
  const withAd = (bytes: Buffer, ad: string) => Buffer.from(bytes.toString('utf8').replace('</body>', `<div class="promo">${ad}</div></body>`));
  const extract = (bytes: Buffer, compare: Parameters<typeof extractTask>[0]['compare']) => extractTask({ page: input({ bytes, url: page!.url }), maxBytes: 8 << 20, templates: [], compare });
  const first = extract(page!.bytes, null);
  assert.ok(first.object && first.hash && first.article.source && first.article.html, 'a first extraction says what its object is made from');
  // A key whose hash no normalizing of this page gives: only an extraction that takes the key's object returns it.
  const key = { hash: 'the-key', method: first.article.method, wrapperId: null, object: JSON.stringify(first.object), extractor: EXTRACTOR_VERSION, source: first.article.source };

  const again = extract(withAd(page!.bytes, 'Sponsored: offer 12'), key);
  assert.equal(again.article.source, first.article.source, 'an ad outside the article changes nothing the object is made from');
  assert.equal(again.hash, 'the-key');
  assert.equal(again.comparison.kind, 'same');
  assert.deepEqual(again.object, first.object);
  assert.equal(again.article.html, '', 'not sanitized');

  const edited = extract(Buffer.from(page!.bytes.toString('utf8').replace(/(<p[^>]*>)([^<]{20,})/, '$1Correction: $2')), key);
  assert.notEqual(edited.article.source, first.article.source);
  assert.ok(edited.object && edited.hash === objectHash(normalizeArticle(edited.article)) && edited.article.html, 'made from something else: sanitized, normalized and hashed');
  assert.equal(edited.comparison.kind, 'edited');

  assert.equal(extract(page!.bytes, { ...key, source: null }).hash, first.hash, 'a key that does not say what it was made from: normalized as usual');
});

test('the pool reads a captured page and a stylesheet for their requisites as discover.ts does on the main thread, the page decoded by its charset', async () => {
  const url = 'https://news.example/2026/caf\u00e9.html';
  const html = '<html><head><link rel="stylesheet" href="/site.css"></head><body><p>Caf\u00e9 cr\u00e8me</p><img src="/photos/cr\u00e8me.jpg" srcset="/a-400.jpg 400w, /a-800.jpg 800w"></body></html>';
  const bytes = Buffer.from(html, 'latin1');
  const page = await pool.discover({ kind: 'page', body: bytes, contentType: 'text/html; charset=windows-1252', url });
  assert.deepEqual(page, requisitesOfHtml(html, url));
  assert.ok(page.some((found) => found.url === 'https://news.example/photos/cr%C3%A8me.jpg'), 'the image\'s name read as windows-1252, not as broken UTF-8');
  const css = '@import url("print.css"); @font-face { src: url(/fonts/serif.woff2) } .hero { background: url(/img/bg.png) }';
  const sheet = await pool.discover({ kind: 'sheet', css, url: 'https://cdn.example/css/site.css' });
  assert.deepEqual(sheet, requisitesOfCss(css, 'https://cdn.example/css/site.css'));
  assert.deepEqual(sheet.map((found) => found.kind).sort(), ['font', 'image', 'style']);
});
