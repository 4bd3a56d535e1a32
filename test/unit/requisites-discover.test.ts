import assert from 'node:assert/strict';
import { test } from 'node:test';
import { largestCandidates, requisitesOfCss, requisitesOfHtml } from '../../src/requisites/discover.js';

const PAGE = 'https://news.example/2026/12/story.html';

const html = `<!doctype html><html><head>
  <link rel="stylesheet" href="/css/site.css">
  <link rel="preload" as="font" href="https://cdn.example/fonts/serif.woff2" crossorigin>
  <link rel="apple-touch-icon" href="/touch.png">
  <meta property="og:image" content="https://cdn.example/social/story.jpg">
  <meta name="twitter:image" content="https://cdn.example/social/story-card.jpg">
  <script src="/js/app.js"></script>
  <style>@import url("print.css") print; .hero { background: url('/img/hero-bg.jpg') no-repeat; }</style>
</head><body>
  <article>
    <img src="lead.jpg" srcset="lead-400.jpg 400w, lead-800.jpg 800w, lead-1600.jpg 1600w, lead-3200.jpg 3200w" sizes="100vw" alt="">
    <picture><source srcset="chart.avif 1x, chart@2x.avif 2x" type="image/avif"><img src="chart.png" loading="lazy"></picture>
    <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="/photos/lazy.jpg" data-srcset="/photos/lazy-2x.jpg 2x, /photos/lazy-1x.jpg 1x" class="lazyload">
    <img data-original="/photos/old-plugin.jpg">
    <noscript><img src="/photos/noscript.jpg"></noscript>
    <div style="background-image: url(/img/quote-bg.png)">quote</div>
    <video poster="/video/poster.jpg" src="/video/clip.mp4"><source src="/video/clip.webm"><track src="/video/captions.vtt"></video>
    <a href="/next.html">next</a>
    <img src="javascript:alert(1)"><img src="#top">
  </article>
</body></html>`;

test('every kind of requisite a page names is found, resolved against the page, each once; scripts and links are not requisites', () => {
  const found = requisitesOfHtml(html, PAGE);
  const urls = (kind: string) => found.filter((item) => item.kind === kind).map((item) => item.url);
  assert.deepEqual(urls('style'), ['https://news.example/css/site.css', 'https://news.example/2026/12/print.css']);
  assert.deepEqual(urls('font'), ['https://cdn.example/fonts/serif.woff2']);
  assert.deepEqual(urls('icon'), ['https://news.example/touch.png']);
  const images = urls('image');
  for (const expected of [
    'https://cdn.example/social/story.jpg', 'https://cdn.example/social/story-card.jpg', 'https://news.example/img/hero-bg.jpg',
    'https://news.example/2026/12/lead.jpg', 'https://news.example/2026/12/lead-3200.jpg', 'https://news.example/2026/12/lead-1600.jpg', 'https://news.example/2026/12/lead-800.jpg',
    'https://news.example/2026/12/chart@2x.avif', 'https://news.example/2026/12/chart.avif', 'https://news.example/2026/12/chart.png',
    'https://news.example/photos/lazy.jpg', 'https://news.example/photos/lazy-2x.jpg', 'https://news.example/photos/lazy-1x.jpg', 'https://news.example/photos/old-plugin.jpg',
    'https://news.example/photos/noscript.jpg', 'https://news.example/img/quote-bg.png', 'https://news.example/video/poster.jpg',
  ]) assert.ok(images.includes(expected), `${expected} is found (found: ${images.join(' ')})`);
  assert.ok(!images.includes('https://news.example/2026/12/lead-400.jpg'), 'a srcset keeps its three largest candidates');
  assert.deepEqual(urls('media'), ['https://news.example/video/clip.mp4', 'https://news.example/video/clip.webm', 'https://news.example/video/captions.vtt']);
  assert.ok(!found.some((item) => /app\.js|next\.html|javascript:|data:/.test(item.url)), 'no script, link, javascript: or data: URL');
  assert.equal(new Set(found.map((item) => item.url)).size, found.length, 'each URL once');
  assert.ok(!found.some((item) => item.url.endsWith('#top')), 'fragments are dropped');
});

test('media found inside video and audio: the source, the track and the src', () => {
  const found = requisitesOfHtml('<video src="/v.mp4" poster="/p.jpg"><source src="/v.webm"><track src="/c.vtt"></video><audio src="/a.mp3"></audio>', PAGE);
  assert.deepEqual(found.filter((item) => item.kind === 'media').map((item) => item.url), [
    'https://news.example/v.mp4', 'https://news.example/v.webm', 'https://news.example/c.vtt', 'https://news.example/a.mp3',
  ]);
});

test('<base href> moves every relative URL; a page that names no icon is given none (the site\'s /favicon.ico is not the page\'s)', () => {
  const found = requisitesOfHtml('<head><base href="https://static.example/assets/"></head><body><img src="a.png"></body>', PAGE);
  assert.deepEqual(found.map((item) => [item.url, item.kind]), [['https://static.example/assets/a.png', 'image']]);
});

test('CSS: @import in both forms, fonts inside @font-face, every other url() an image; relative to the sheet; a broken rule does not lose the rest', () => {
  const css = `@import "base.css"; @import url(theme.css) screen;
    @font-face { font-family: Serif; src: url(../fonts/serif.woff2) format("woff2"), url("../fonts/serif.woff") format("woff"); }
    .a { background: url(../img/a.png) } .b { color: ; } .c { list-style-image: url("data:image/png;base64,AAAA"); cursor: url(/cursor.cur), auto }`;
  const found = requisitesOfCss(css, 'https://cdn.example/css/site.css');
  assert.deepEqual(found.map((item) => [item.url, item.kind]), [
    ['https://cdn.example/css/base.css', 'style'], ['https://cdn.example/css/theme.css', 'style'],
    ['https://cdn.example/fonts/serif.woff2', 'font'], ['https://cdn.example/fonts/serif.woff', 'font'],
    ['https://cdn.example/img/a.png', 'image'], ['https://cdn.example/cursor.cur', 'image'],
  ]);
});

test('srcset: the largest first by width or density, URLs with commas kept whole, at most the limit', () => {
  assert.deepEqual(largestCandidates('a.jpg 100w, b.jpg 300w, c.jpg 200w', 2), ['b.jpg', 'c.jpg']);
  assert.deepEqual(largestCandidates('x.jpg, y.jpg 2x', 5), ['y.jpg', 'x.jpg']);
  assert.deepEqual(largestCandidates('https://img.example/w_400,h_300/p.jpg 400w,https://img.example/w_800,h_600/p.jpg 800w', 5),
    ['https://img.example/w_800,h_600/p.jpg', 'https://img.example/w_400,h_300/p.jpg']);
});

test('a gallery stops at the cap per document', () => {
  const gallery = Array.from({ length: 500 }, (_, i) => `<img src="/g/${i}.jpg">`).join('');
  assert.equal(requisitesOfHtml(gallery, PAGE, { srcsetCandidates: 3, maxPerDocument: 50 }).length, 50);
});
