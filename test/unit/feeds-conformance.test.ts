import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFeed } from '../../src/feeds/parse.js';
import type { ParsedFeed } from '../../src/feeds/model.js';

/*
 * Conformance by failure class, written from the RSS 0.90/1.0/2.0 specifications, RFC 4287 (Atom
 * 1.0), the Atom 0.3 draft and Dublin Core: each case is a small document and the values a reader
 * must get from it. Each class failed before the namespace-resolved reading (xml-fields.ts).
 */

const URL = 'http://feed.example/feeds/main.xml';
const parse = (xml: string): Promise<ParsedFeed> => parseFeed(Buffer.from(xml), { url: URL, contentType: 'application/xml' });
const atom10 = (entry: string, head = '<title>t</title>') => `<feed xmlns="http://www.w3.org/2005/Atom">${head}<entry><id>urn:e1</id>${entry}</entry></feed>`;
const atom03 = (entry: string, head = '<title>t</title>') => `<feed version="0.3" xmlns="http://purl.org/atom/ns#">${head}<entry><id>urn:e1</id>${entry}</entry></feed>`;
const rss20 = (item: string, channel = '<title>t</title>', namespaces = '') => `<rss version="2.0"${namespaces}><channel>${channel}<item>${item}</item></channel></rss>`;

test('Atom 1.0 text constructs: text, html and xhtml titles, summaries and contents', async () => {
  const xhtml = await parse(atom10(`<title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">An <em>xhtml</em> title</div></title>
    <summary type="xhtml"><xh:div xmlns:xh="http://www.w3.org/1999/xhtml"><xh:p>A <xh:b>summary</xh:b></xh:p></xh:div></summary>
    <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Body with <a href="/x">a link</a></p></div></content>`,
  '<title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">Feed <b>title</b></div></title><subtitle type="html">A &lt;i&gt;sub&lt;/i&gt;title</subtitle>'));
  assert.equal(xhtml.feed.title, 'Feed title');
  assert.equal(xhtml.feed.description, 'A <i>sub</i>title');
  const [entry] = xhtml.items;
  assert.equal(entry!.title, 'An xhtml title');
  assert.equal(entry!.summary, '<p>A <b>summary</b></p>', 'the wrapping div is not part of the value (RFC 4287 §3.1.1.3), under any prefix');
  assert.equal(entry!.content, '<p>Body with <a href="http://feed.example/x">a link</a></p>');

  const text = await parse(atom10('<title type="text">Less &lt;than&gt; &amp; more</title><content type="text">1 &lt; 2</content>'));
  assert.equal(text.items[0]!.title, 'Less <than> & more', 'a text title keeps markup characters as text');
  assert.equal(text.items[0]!.content, '1 &lt; 2', 'text content is shown as text');
  const html = await parse(atom10('<title type="html">An &lt;b&gt;html&lt;/b&gt; title &amp;amp; more</title>'));
  assert.equal(html.items[0]!.title, 'An html title & more');
});

test('Atom 0.3 modes: escaped, base64 and xml, with MIME types', async () => {
  const feed = await parse(atom03(`<title mode="base64" type="text/html">QW4gPGI+ZW5jb2RlZDwvYj4gdGl0bGU=</title>
    <summary type="application/xhtml+xml" mode="xml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Inline <b>XHTML</b></p></div></summary>
    <content type="text/html" mode="base64">PHA+RGVjb2RlZCA8Yj5ib2R5PC9iPjwvcD4=</content>`,
  '<title mode="escaped" type="text/html">Escaped &lt;b&gt;title&lt;/b&gt;</title><tagline type="application/xhtml+xml" mode="xml"><span xmlns="http://www.w3.org/1999/xhtml">Tag <i>line</i></span></tagline>'));
  assert.equal(feed.format, 'atom0.3');
  assert.equal(feed.feed.title, 'Escaped title');
  assert.equal(feed.feed.description, '<span>Tag <i>line</i></span>');
  assert.equal(feed.items[0]!.title, 'An encoded title');
  assert.equal(feed.items[0]!.summary, '<p>Inline <b>XHTML</b></p>');
  assert.equal(feed.items[0]!.content, '<p>Decoded <b>body</b></p>');
});

test('RSS titles: escaped markup that is not HTML stays text; HTML is reduced to its text', async () => {
  const blink = await parse(rss20('<title>Use &lt;blink&gt; wisely</title><link>http://e.example/1</link>'));
  assert.equal(blink.items[0]!.title, 'Use <blink> wisely');
  const bold = await parse(rss20('<title>A &lt;b&gt;bold&lt;/b&gt; claim</title><link>http://e.example/1</link>'));
  assert.equal(bold.items[0]!.title, 'A bold claim');
  const amp = await parse(rss20('<title>Fish &amp; chips</title><link>http://e.example/1</link>'));
  assert.equal(amp.items[0]!.title, 'Fish & chips');
});

test('Dublin Core and dcterms at channel and item level', async () => {
  const ns = ' xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/"';
  const feed = await parse(rss20(
    '<dc:title>An item by DC</dc:title><dc:creator>Jane Roe</dc:creator><dc:description>What it says</dc:description><dcterms:modified>2012-02-13T10:00:00Z</dcterms:modified><link>http://e.example/1</link>',
    '<dc:title>A channel by DC</dc:title><dc:description>About the channel</dc:description>', ns,
  ));
  assert.equal(feed.feed.title, 'A channel by DC');
  assert.equal(feed.feed.description, 'About the channel');
  const [item] = feed.items;
  assert.equal(item!.title, 'An item by DC');
  assert.equal(item!.author, 'Jane Roe');
  assert.equal(item!.summary, 'What it says');
  assert.equal(item!.updated, '2012-02-13T10:00:00.000Z');
  const otherPrefix = await parse(rss20('<meta:author>John Doe</meta:author><link>http://e.example/2</link>', '<title>t</title>', ' xmlns:meta="http://purl.org/dc/elements/1.1/"'));
  assert.equal(otherPrefix.items[0]!.author, 'John Doe', 'namespaces are matched by URI, not by the prefix a document picks');
});

test('full-content elements: content:encoded and xhtml:body, beside the description', async () => {
  const encoded = await parse(rss20('<description>Short</description><content:encoded>&lt;p&gt;Long &lt;b&gt;body&lt;/b&gt;&lt;/p&gt;</content:encoded><link>http://e.example/1</link>', '<title>t</title>', ' xmlns:content="http://purl.org/rss/1.0/modules/content/"'));
  assert.equal(encoded.items[0]!.summary, 'Short');
  assert.equal(encoded.items[0]!.content, '<p>Long <b>body</b></p>');
  const body = await parse(rss20('<link>http://e.example/1</link><xhtml:body><xhtml:p>Full <xhtml:em>text</xhtml:em></xhtml:p><xhtml:script>alert(1)</xhtml:script></xhtml:body>', '<title>t</title>', ' xmlns:xhtml="http://www.w3.org/1999/xhtml"'));
  assert.equal(body.items[0]!.content, '<p>Full <em>text</em></p>', 'kept, and sanitized like any HTML');
});

test('RSS 1.0 items are named by rdf:about; RSS 0.90 is a format of its own', async () => {
  const rdf = await parse(`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
    <channel rdf:about="http://e.example/"><title>t</title><link>http://e.example/</link></channel>
    <item rdf:about="http://e.example/id/1"><title>one</title><link>http://e.example/1?utm=x</link></item></rdf:RDF>`);
  assert.equal(rdf.format, 'rss1.0');
  assert.equal(rdf.items[0]!.guid, 'http://e.example/id/1');
  const old = await parse(`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://my.netscape.com/rdf/simple/0.9/">
    <channel><title>Old</title><link>http://e.example/</link><description>d</description></channel><item><title>i</title><link>http://e.example/1</link></item></rdf:RDF>`);
  assert.equal(old.format, 'rss0.90');
  assert.equal(old.feed.title, 'Old');
  assert.equal(old.items[0]!.title, 'i');
});

test('xml:base on the feed, the entry and the content resolves the links inside content', async () => {
  const feed = await parse(`<feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://e.example/base/"><title>t</title>
    <entry xml:base="entries/"><id>urn:1</id><title>x</title><link href="one.html"/>
      <summary type="html">&lt;a href="s.html"&gt;s&lt;/a&gt;</summary>
      <content type="html" xml:base="/other/">&lt;a href="c.html"&gt;c&lt;/a&gt;&lt;img src="i.png"&gt;</content></entry></feed>`);
  const [entry] = feed.items;
  assert.equal(entry!.link, 'http://e.example/base/entries/one.html');
  assert.equal(entry!.summary, '<a href="http://e.example/base/entries/s.html">s</a>');
  assert.equal(entry!.content, '<a href="http://e.example/other/c.html">c</a><img src="http://e.example/other/i.png" />');
});

test('an Atom entry without an author has its feed\'s; dangerous HTML does not survive any mode', async () => {
  const feed = await parse(atom10(`<content type="html">&lt;p onclick="x()"&gt;hi&lt;/p&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;a href="javascript:alert(1)"&gt;l&lt;/a&gt;</content>
    <summary type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p style="x" onmouseover="y()">s</p><iframe src="http://evil.example/"/></div></summary>`,
  '<title>t</title><author><name>Feed Author</name></author>'));
  assert.equal(feed.items[0]!.author, 'Feed Author');
  const html = `${feed.items[0]!.content} ${feed.items[0]!.summary}`;
  assert.doesNotMatch(html, /script|onclick|onmouseover|javascript:|iframe|style=/i);
  const base64 = await parse(atom03('<content type="text/html" mode="base64">PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0PjxwPm9rPC9wPg==</content>'));
  assert.equal(base64.items[0]!.content, '<p>ok</p>');
});

test('CDF channels (Microsoft\'s Channel Definition Format, W3C NOTE-CDFsubmit and CDF 0.4): channel, sub-channels and items', async () => {
  const cdf = await parse(`<?xml version="1.0"?>
<CHANNEL HREF="http://cdf.example/" LASTMOD="2004-01-01T12:00" BASE="http://cdf.example/news/">
  <TITLE>A channel</TITLE>
  <ABSTRACT>What it &amp; its items are</ABSTRACT>
  <ITEM HREF="one.html" LASTMOD="2004-01-02T10:30"><TITLE>Item one</TITLE><ABSTRACT>The first &lt;one&gt;</ABSTRACT></ITEM>
  <CHANNEL HREF="http://cdf.example/sports/">
    <TITLE VALUE="Sports"/>
    <ITEM HREF="http://cdf.example/sports/two.html"><TITLE VALUE="Item two"/><ABSTRACT VALUE="The second"/></ITEM>
  </CHANNEL>
  <item href="three.html"><a href="ignored.html"/><title>Item three</title></item>
</CHANNEL>`);
  assert.equal(cdf.format, 'cdf');
  assert.deepEqual([cdf.feed.title, cdf.feed.link, cdf.feed.description, cdf.feed.updated], ['A channel', 'http://cdf.example/', 'What it &amp; its items are', '2004-01-01T12:00:00.000Z']);
  assert.deepEqual(cdf.items.map((item) => [item.title, item.link, item.summary, item.updated]), [
    ['Item one', 'http://cdf.example/news/one.html', 'The first &lt;one&gt;', '2004-01-02T10:30:00.000Z'],
    ['Item two', 'http://cdf.example/sports/two.html', 'The second', null],
    ['Item three', 'http://cdf.example/news/three.html', null, null],
  ]);
  assert.equal(new Set(cdf.items.map((item) => item.guid)).size, 3, 'each item its own identity (its link)');
  await assert.rejects(parse('<?xml version="1.0"?><channels><title>not CDF</title></channels>'), /not a feed/);
});

test('Atom 1.0 content of a media type that is neither text nor XML is base64 (RFC 4287 §4.1.3.3), in every text construct', async () => {
  const encoded = (text: string) => Buffer.from(text).toString('base64');
  const feed = await parse(atom10(`<title type="application/octet-stream">${encoded('A <i>coded</i> title')}</title>
    <summary type="application/octet-stream">
      ${encoded('<p>Coded summary</p>')}
    </summary><content type="image/svg+xml"><svg xmlns="http://www.w3.org/2000/svg"/></content>`,
  `<title type="application/octet-stream">${encoded('Feed & title')}</title><subtitle type="text/plain">${encoded('not decoded')}</subtitle>`));
  assert.equal(feed.feed.title, 'Feed & title');
  assert.equal(feed.feed.description, encoded('not decoded'), 'a text/* type is text, not base64');
  assert.equal(feed.items[0]!.title, 'A coded title');
  assert.equal(feed.items[0]!.summary, '<p>Coded summary</p>');
});

test('categories: every RSS category, Atom term, Dublin Core subject (whole, one per element), iTunes and media category, in document order', async () => {
  const feed = await parse(rss20(`<category>Harbour works</category><dc:subject>City council</dc:subject><dc:subject>Ferry fares 2024</dc:subject>
    <media:category>News/Local</media:category><tags>ferries, tides</tags><category domain="x">Harbour works</category>`,
  '<title>t</title>', ' xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:media="http://search.yahoo.com/mrss/"'));
  assert.deepEqual(feed.items[0]!.categories, ['Harbour works', 'City council', 'Ferry fares 2024', 'News/Local', 'ferries', 'tides']);
  const atom = await parse(atom10('<category term="tides" label="Tides"/><category label="Only a label"/>'));
  assert.deepEqual(atom.items[0]!.categories, ['tides', 'Only a label']);
});

test('an RSS item with a description and a summary element keeps both: the first is its summary, the other its content', async () => {
  const first = await parse(rss20('<description>The description</description><summary>The summary</summary>'));
  assert.deepEqual([first.items[0]!.summary, first.items[0]!.content], ['The description', 'The summary']);
  const second = await parse(rss20('<summary>The summary</summary><description>The description</description>'));
  assert.deepEqual([second.items[0]!.summary, second.items[0]!.content], ['The summary', 'The description']);
  const encoded = await parse(rss20('<summary>S</summary><description>D</description><content:encoded>&lt;p&gt;C&lt;/p&gt;</content:encoded>', '<title>t</title>', ' xmlns:content="http://purl.org/rss/1.0/modules/content/"'));
  assert.deepEqual([encoded.items[0]!.summary, encoded.items[0]!.content], ['S', '<p>C</p>'], 'a full content element stays the content');
});

test('"<!" that closes no declaration is text, not a declaration that swallows the value', async () => {
  const feed = await parse(rss20('<description><![CDATA[ <!DOCTYPE is what the validator wanted ]]></description>'));
  assert.equal(feed.items[0]!.summary, '&lt;!DOCTYPE is what the validator wanted');
  const declared = await parse(rss20('<description><![CDATA[<!DOCTYPE html><p>Body</p>]]></description>'));
  assert.equal(declared.items[0]!.summary, '<p>Body</p>');
});
