import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FeedParseError } from '../../src/feeds/model.js';
import { parseFeed } from '../../src/feeds/parse.js';

const url = 'https://news.example/feeds/main.xml';

test('RSS 2.0: items, dates to UTC, hints, hub, enclosures, origLink', async () => {
  const feed = await parseFeed(`<?xml version="1.0"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:feedburner="http://rssnamespace.org/feedburner/ext/1.0" xmlns:sy="http://purl.org/rss/1.0/modules/syndication/">
<channel><title>News &amp; more</title><link>https://news.example/</link><description>All the news</description><language>en-gb</language>
<lastBuildDate>Mon, 02 Nov 2026 09:00:00 +0100</lastBuildDate><ttl>45</ttl>
<skipHours><hour>1</hour><hour>2</hour><hour>24</hour></skipHours><skipDays><day>Sunday</day></skipDays>
<sy:updatePeriod>hourly</sy:updatePeriod><sy:updateFrequency>4</sy:updateFrequency>
<atom:link rel="hub" href="https://hub.example/"/>
<image><url>/logo.png</url></image>
<item><title>First &lt;em&gt;story&lt;/em&gt;</title><link>/2026/first</link><guid isPermaLink="false">abc-1</guid>
<pubDate>Mon, 2 Nov 2026 08:30:00 EST</pubDate><author>ed@news.example (Ed)</author><category>Local</category><category>Politics</category>
<description>&lt;p onclick="x()"&gt;Hello &lt;script&gt;alert(1)&lt;/script&gt;&lt;a href="javascript:evil()"&gt;x&lt;/a&gt; &lt;a href="/more"&gt;more&lt;/a&gt;&lt;/p&gt;&lt;iframe src="https://x"&gt;&lt;/iframe&gt;&lt;form&gt;&lt;input&gt;&lt;/form&gt;</description>
<enclosure url="https://cdn.news.example/a.mp3" type="audio/mpeg" length="1234"/>
<feedburner:origLink>https://news.example/2026/first-original</feedburner:origLink></item>
</channel></rss>`, { url });
  assert.equal(feed.format, 'rss2.0');
  assert.equal(feed.feed.title, 'News & more');
  assert.equal(feed.feed.ttl, 45);
  assert.deepEqual(feed.feed.skipHours, [0, 1, 2]);
  assert.deepEqual(feed.feed.skipDays, ['Sunday']);
  assert.equal(feed.feed.updatePeriod, 'hourly');
  assert.equal(feed.feed.updateFrequency, 4);
  assert.equal(feed.feed.hub, 'https://hub.example/');
  assert.equal(feed.feed.updated, '2026-11-02T08:00:00.000Z');
  assert.equal(feed.feed.image, 'https://news.example/logo.png');
  const [item] = feed.items;
  assert.ok(item);
  assert.equal(item.guid, 'abc-1');
  assert.equal(item.title, 'First story');
  assert.equal(item.link, 'https://news.example/2026/first');
  assert.equal(item.origLink, 'https://news.example/2026/first-original');
  assert.equal(item.published, '2026-11-02T13:30:00.000Z');
  assert.deepEqual(item.categories, ['Local', 'Politics']);
  assert.deepEqual(item.enclosures, [{ url: 'https://cdn.news.example/a.mp3', type: 'audio/mpeg', length: 1234 }]);
  const html = item.summary ?? '';
  assert.doesNotMatch(html, /script|onclick|javascript:|iframe|<form|<input/i);
  assert.match(html, /href="https:\/\/news\.example\/more"/);
});

test('RSS 0.91 and 0.92 are rss0.9x', async () => {
  for (const version of ['0.91', '0.92']) {
    const feed = await parseFeed(`<rss version="${version}"><channel><title>Old</title><link>http://old.example/</link>
<item><title>One</title><link>http://old.example/1</link><description>first</description></item></channel></rss>`, { url: 'http://old.example/rss' });
    assert.equal(feed.format, 'rss0.9x');
    assert.equal(feed.items[0]!.guid, 'http://old.example/1', 'no guid: the link is the identity');
    assert.equal(feed.items[0]!.published, null);
  }
});

test('RSS 1.0 (RDF) with dc:date', async () => {
  const feed = await parseFeed(`<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="http://rdf.example/"><title>RDF</title><link>http://rdf.example/</link><description>d</description></channel>
<item rdf:about="http://rdf.example/a"><title>A</title><link>http://rdf.example/a</link><dc:date>2026-11-02T10:00:00+02:00</dc:date><dc:creator>Ann</dc:creator></item>
</rdf:RDF>`, { url: 'http://rdf.example/index.rdf' });
  assert.equal(feed.format, 'rss1.0');
  assert.equal(feed.items[0]!.published, '2026-11-02T08:00:00.000Z');
  assert.equal(feed.items[0]!.author, 'Ann');
});

test('Atom 1.0: xml:base, published/updated, content and summary apart', async () => {
  const feed = await parseFeed(`<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://blog.example/posts/">
<title type="text">Blog</title><id>urn:x</id><updated>2026-11-02T10:00:00Z</updated><link rel="alternate" href="/"/>
<entry><title type="html">A &amp;amp; B</title><id>urn:x:1</id><link rel="alternate" href="one.html"/>
<published>2026-11-01T10:00:00-05:00</published><updated>2026-11-02T10:00:00Z</updated>
<summary>Short</summary><content type="html">&lt;p&gt;Long &lt;img src="pic.jpg"&gt;&lt;/p&gt;</content><author><name>Bo</name></author></entry>
</feed>`, { url: 'https://blog.example/atom.xml' });
  assert.equal(feed.format, 'atom1.0');
  const item = feed.items[0]!;
  assert.equal(item.guid, 'urn:x:1');
  assert.equal(item.title, 'A & B');
  assert.equal(item.link, 'https://blog.example/posts/one.html');
  assert.equal(item.published, '2026-11-01T15:00:00.000Z');
  assert.equal(item.updated, '2026-11-02T10:00:00.000Z');
  assert.equal(item.summary, 'Short');
  assert.match(item.content ?? '', /<img src="https:\/\/blog\.example\/posts\/pic\.jpg"/);
  assert.equal(feed.feed.link, 'https://blog.example/');
});

test('Atom 0.3 with issued/modified', async () => {
  const feed = await parseFeed(`<feed version="0.3" xmlns="http://purl.org/atom/ns#"><title>Old Atom</title><link rel="alternate" href="http://a03.example/"/>
<modified>2005-06-01T12:00:00Z</modified>
<entry><title>E</title><link rel="alternate" href="http://a03.example/e"/><id>tag:a03,2005:e</id><issued>2005-06-01T10:00:00+01:00</issued><modified>2005-06-01T12:00:00Z</modified></entry></feed>`, { url: 'http://a03.example/atom' });
  assert.equal(feed.format, 'atom0.3');
  assert.equal(feed.items[0]!.published, '2005-06-01T09:00:00.000Z');
  assert.equal(feed.items[0]!.updated, '2005-06-01T12:00:00.000Z');
});

test('JSON Feed 1.1 and 1.0', async () => {
  const feed = await parseFeed(JSON.stringify({
    version: 'https://jsonfeed.org/version/1.1', title: 'JF', home_page_url: 'https://jf.example/', feed_url: 'https://jf.example/feed.json',
    hubs: [{ type: 'WebSub', url: 'https://hub.example/' }],
    items: [
      { id: 1, url: '/a', title: 'A', content_html: '<p>x<script>bad()</script></p>', date_published: '2026-11-02T10:00:00+01:00', authors: [{ name: 'Cy' }], tags: ['t'], attachments: [{ url: '/a.mp3', mime_type: 'audio/mpeg', size_in_bytes: 9 }] },
      'not an item',
      { id: '2', content_text: 'plain <text>', date_modified: 'garbage' },
    ],
  }), { url: 'https://jf.example/feed.json' });
  assert.equal(feed.format, 'jsonfeed1.1');
  assert.equal(feed.feed.hub, 'https://hub.example/');
  const [a, b] = feed.items;
  assert.equal(a!.guid, '1');
  assert.equal(a!.link, 'https://jf.example/a');
  assert.equal(a!.content, '<p>x</p>');
  assert.equal(a!.published, '2026-11-02T09:00:00.000Z');
  assert.equal(a!.author, 'Cy');
  assert.deepEqual(a!.enclosures, [{ url: 'https://jf.example/a.mp3', type: 'audio/mpeg', length: 9 }]);
  assert.equal(b!.content, '<p>plain &lt;text&gt;</p>');
  assert.equal(b!.updated, null);
  assert.equal(feed.warnings.length, 2); // the skipped entry and the unreadable date

  const old = await parseFeed(JSON.stringify({ version: 'https://jsonfeed.org/version/1', title: 'Old', items: [{ id: 'x', author: { name: 'Di' } }] }));
  assert.equal(old.format, 'jsonfeed1.0');
  assert.equal(old.items[0]!.author, 'Di');
});

test('ill-formed XML is recovered with warnings: HTML entities, bare ampersand, unclosed tags', async () => {
  const feed = await parseFeed(`<?xml version="1.0"?><rss version="2.0"><channel><title>Broken&nbsp;feed</title>
<item><title>Fish & chips</title><link>http://b.example/1</link></item>
<item><title>Unclosed<link>http://b.example/2</link><guid>g2</guid></item>
</channel>`, { url: 'http://b.example/rss' });
  assert.equal(feed.format, 'rss2.0');
  assert.equal(feed.feed.title, 'Broken\u00a0feed'.replace(/\s/g, ' '));
  assert.equal(feed.items.length, 2);
  assert.equal(feed.items[0]!.title, 'Fish & chips');
  assert.ok(feed.warnings.length > 0);
});

test('entity expansion attacks and external entities are not resolved', async () => {
  const feed = await parseFeed(`<?xml version="1.0"?>
<!DOCTYPE rss [
 <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
 <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
 <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
 <!ENTITY xxe SYSTEM "file:///etc/passwd">
]>
<rss version="2.0"><channel><title>&c;</title><item><title>&xxe;</title><link>http://x.example/1</link></item></channel></rss>`);
  assert.ok((feed.feed.title ?? '').length < 100, 'entity not expanded');
  assert.doesNotMatch(JSON.stringify(feed), /root:/);
});

test('HTML served as a feed is a one-line error naming the feed it links to', async () => {
  await assert.rejects(
    parseFeed('<!DOCTYPE html><html><head><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body>hi</body></html>', { url: 'https://site.example/' }),
    (error: unknown) => error instanceof FeedParseError && /HTML page/.test(error.message) && /https:\/\/site\.example\/feed\.xml/.test(error.message) && !error.message.includes('\n'),
  );
});

test('empty, garbage and non-feed XML documents are errors', async () => {
  await assert.rejects(parseFeed(''), FeedParseError);
  await assert.rejects(parseFeed('{"not": "a feed"}'), /JSON Feed/);
  await assert.rejects(parseFeed('<?xml version="1.0"?><note><to>x</to></note>'), /not a feed/);
});

test('bytes are decoded by their declared charset', async () => {
  const head = Buffer.from('<?xml version="1.0" encoding="windows-1252"?><rss version="2.0"><channel><title>Caf');
  const bytes = Buffer.concat([head, Buffer.from([0xe9, 0x20, 0x93, 0x71, 0x94]), Buffer.from('</title></channel></rss>')]);
  const feed = await parseFeed(bytes);
  assert.equal(feed.feed.title, 'Café “q”');
});

test('an item with neither guid nor link gets a stable identity from title and date', async () => {
  const xml = '<rss version="2.0"><channel><title>t</title><item><title>Same</title><pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item><item><title>Other</title></item></channel></rss>';
  const first = await parseFeed(xml);
  const second = await parseFeed(xml);
  assert.match(first.items[0]!.guid, /^sha256:/);
  assert.equal(first.items[0]!.guid, second.items[0]!.guid);
  assert.notEqual(first.items[0]!.guid, first.items[1]!.guid);
});
