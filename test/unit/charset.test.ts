import assert from 'node:assert/strict';
import { test } from 'node:test';
import { charsetOf, decodeBody } from '../../src/net/charset.js';

const latin1 = (text: string) => Buffer.from(text, 'latin1');

test('charset comes from the HTTP header', () => {
  const out = decodeBody(latin1('<p>caf\xe9</p>'), 'text/html; charset=ISO-8859-1');
  assert.equal(out.text, '<p>café</p>');
  assert.equal(out.encoding, 'windows-1252'); // WHATWG maps latin1 labels to windows-1252
});

test('a byte-order mark wins over the header', () => {
  const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<p>café</p>')]);
  assert.equal(decodeBody(bytes, 'text/html; charset=windows-1252').text, '<p>café</p>');
});

test('charset comes from the XML prolog', () => {
  const bytes = Buffer.concat([Buffer.from('<?xml version="1.0" encoding="windows-1251"?><t>'), Buffer.from([0xcf, 0xf0, 0xe8]), Buffer.from('</t>')]);
  const out = decodeBody(bytes, 'application/rss+xml');
  assert.equal(out.encoding, 'windows-1251');
  assert.equal(out.text, '<?xml version="1.0" encoding="windows-1251"?><t>При</t>');
});

test('charset comes from an HTML meta tag', () => {
  const out = decodeBody(latin1('<html><head><meta charset="windows-1252"></head><body>na\xefve \x93quoted\x94</body></html>'), 'text/html');
  assert.match(out.text, /naïve “quoted”/);
});

test('UTF-16 with a BOM', () => {
  const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<rss>é</rss>', 'utf16le')]);
  assert.equal(decodeBody(bytes).text, '<rss>é</rss>');
});

test('undeclared bytes: valid UTF-8 stays UTF-8, anything else is windows-1252', () => {
  assert.equal(decodeBody(Buffer.from('<p>naïve</p>')).text, '<p>naïve</p>');
  assert.equal(decodeBody(latin1('<p>na\xefve</p>')).text, '<p>naïve</p>');
});

test('an unknown declared charset falls back to UTF-8 with a warning', () => {
  const out = decodeBody(Buffer.from('<p>x</p>'), 'text/html; charset=x-no-such-thing');
  assert.equal(out.text, '<p>x</p>');
});

test('charsetOf reads quoted and unquoted parameters', () => {
  assert.equal(charsetOf('text/xml; charset="utf-8"'), 'utf-8');
  assert.equal(charsetOf('text/xml;charset=KOI8-R'), 'KOI8-R');
  assert.equal(charsetOf('text/xml'), undefined);
});

test('an undeclared body cut mid-character at the sniffing limit does not change how the next body is read', () => {
  // 65,535 ASCII bytes then "é" (two bytes): the check of the first 64 KiB ends inside it.
  const cut = Buffer.from(`${'a'.repeat(65_535)}é and more`);
  assert.equal(decodeBody(cut, 'text/html').encoding, 'utf-8');
  const next = Buffer.from(`${'b'.repeat(70_000)}\xe9`, 'latin1'); // valid for 64 KiB, windows-1252 after
  assert.equal(decodeBody(next, 'text/html').encoding, 'utf-8', 'what the first 64 KiB say decides');
  assert.equal(decodeBody(cut, 'text/html').text.slice(65_535), 'é and more');
  assert.equal(decodeBody(Buffer.from('<p>plain ascii</p>'), 'text/html').text, '<p>plain ascii</p>');
});
