import assert from 'node:assert/strict';
import { test } from 'node:test';
import { replayableCss, replayableHtml } from '../../src/requisites/rewrite.js';
import { compresses, fitsKind, sniffedType } from '../../src/requisites/sniff.js';

const link = (url: string, kind: string) => `/memento/20261201120000${kind === 'style' ? 'cs' : 'im'}_/${url}`;

test('bytes are what their first bytes say: an "image" that is an HTML error page is not an image', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  assert.equal(sniffedType(png, 'text/html'), 'image/png', 'the signature wins over the header');
  assert.equal(sniffedType(Buffer.from([0xff, 0xd8, 0xff, 0xe0]), null), 'image/jpeg');
  assert.equal(sniffedType(Buffer.from('RIFF\u0010\u0000\u0000\u0000WEBPVP8 ', 'latin1'), 'application/octet-stream'), 'image/webp');
  assert.equal(sniffedType(Buffer.from('\u0000\u0000\u0000\u001cftypavif', 'latin1'), null), 'image/avif');
  assert.equal(sniffedType(Buffer.from('wOF2\u0000\u0001', 'latin1'), 'application/octet-stream'), 'font/woff2');
  const errorPage = Buffer.from('\n  <!DOCTYPE html><html><body>Not found</body></html>');
  assert.equal(sniffedType(errorPage, 'image/jpeg'), 'text/html');
  assert.equal(fitsKind('image', sniffedType(errorPage, 'image/jpeg')), false);
  assert.equal(sniffedType(Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml'), 'image/svg+xml');
  assert.equal(sniffedType(Buffer.from('body { color: red }'), 'text/css'), 'text/css');
  assert.equal(fitsKind('style', sniffedType(Buffer.from('<html><body>login</body></html>'), 'text/css')), false, 'a stylesheet that is HTML is refused');
  assert.equal(fitsKind('font', 'font/woff2'), true);
  assert.equal(fitsKind('icon', 'image/x-icon'), true);
  assert.ok(compresses('text/css') && compresses('image/svg+xml') && !compresses('image/jpeg') && !compresses('image/webp') && !compresses('video/mp4'));
});

test('a capture is replayed with every requisite URL pointing to the archive, lazy images made real, and <base> removed', () => {
  const html = `<html><head><base href="https://static.example/a/"><link rel="stylesheet" href="site.css"><link rel="icon" href="/i.ico">
    <style>.x { background: url(bg.png) } @font-face { font-family: F; src: url(f.woff2) }</style></head>
    <body><img src="data:image/gif;base64,R0lGOD" data-src="photo.jpg" data-srcset="photo-2x.jpg 2x, photo.jpg 1x" loading="lazy">
    <img srcset="https://cdn.example/w_400,h_300/p.jpg 400w, https://cdn.example/w_800,h_600/p.jpg 800w" src="p.jpg">
    <div style="background-image:url('/q.png')"></div><video poster="v.jpg"><source src="v.mp4"></video><a href="next.html">next</a></body></html>`;
  const out = replayableHtml(html, 'https://news.example/story', link);
  assert.ok(!out.includes('<base'), 'no <base>');
  for (const expected of [
    'href="/memento/20261201120000cs_/https://static.example/a/site.css"', 'href="/memento/20261201120000im_/https://static.example/i.ico"',
    'src="/memento/20261201120000im_/https://static.example/a/photo.jpg"',
    '/memento/20261201120000im_/https://static.example/a/photo-2x.jpg 2x, /memento/20261201120000im_/https://static.example/a/photo.jpg 1x',
    '/memento/20261201120000im_/https://cdn.example/w_400,h_300/p.jpg 400w, /memento/20261201120000im_/https://cdn.example/w_800,h_600/p.jpg 800w',
    'url(/memento/20261201120000im_/https://static.example/a/bg.png)', 'url(/memento/20261201120000im_/https://static.example/a/f.woff2)',
    'url(/memento/20261201120000im_/https://static.example/q.png)', 'poster="/memento/20261201120000im_/https://static.example/a/v.jpg"',
    'src="/memento/20261201120000im_/https://static.example/a/v.mp4"',
  ]) assert.ok(out.includes(expected), `replay has ${expected}\n${out}`);
  assert.ok(!out.includes('loading="lazy"'), 'no lazy loading left to a script that will not run');
  assert.ok(out.includes('href="next.html"'), 'links between pages are left alone');
  assert.ok(!/(src|href|poster)="https?:/.test(out) && !/url\(['"]?https?:/.test(out), 'no requisite URL left pointing at the live web');
});

test('a stylesheet is replayed with its imports as stylesheets and its fonts and backgrounds as the archive\'s', () => {
  const css = replayableCss('@import "theme.css"; @font-face { src: url(../f/a.woff2) } body { background: url("/bg.jpg") }', 'https://cdn.example/css/site.css', link);
  assert.ok(css.includes('/memento/20261201120000cs_/https://cdn.example/css/theme.css'), css);
  assert.ok(css.includes('url(/memento/20261201120000im_/https://cdn.example/f/a.woff2)'), css);
  assert.ok(css.includes('url(/memento/20261201120000im_/https://cdn.example/bg.jpg)'), css);
});

test('a srcset offers at replay only the candidates the capture kept, and falls back to src when it kept none', () => {
  const html = '<img id="a" src="s.jpg" srcset="w400.jpg 400w, w800.jpg 800w, w1600.jpg 1600w, w3200.jpg 3200w"><img id="b" src="t.jpg" srcset="u1.jpg 1x, u2.jpg 2x">';
  const kept = new Set(['https://news.example/w800.jpg', 'https://news.example/w1600.jpg', 'https://news.example/s.jpg', 'https://news.example/t.jpg']);
  const out = replayableHtml(html, 'https://news.example/story', link, { kept });
  assert.ok(out.includes('srcset="/memento/20261201120000im_/https://news.example/w800.jpg 800w, /memento/20261201120000im_/https://news.example/w1600.jpg 1600w"'), out);
  assert.ok(!out.includes('w400') && !out.includes('w3200'), 'candidates not kept are not offered');
  assert.ok(/<img id="b" src="\/memento\/20261201120000im_\/https:\/\/news\.example\/t\.jpg">/.test(out), `a srcset with nothing kept is dropped: ${out}`);
  assert.ok(replayableHtml(html, 'https://news.example/story', link).includes('w400.jpg 400w'), 'a capture that lists no requisites keeps its srcset whole');
});
