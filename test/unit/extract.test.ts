import assert from 'node:assert/strict';
import { test } from 'node:test';
import render from 'dom-serializer';
import { isText } from 'domhandler';
import { getElementsByTagName } from 'domutils';
import iconv from 'iconv-lite';
import { diffObjects } from '../../src/archive/diff.js';
import { normalizeArticle, objectHash } from '../../src/archive/normalize.js';
import { parseHtml, preparePage, rawTextEnd } from '../../src/extract/dom.js';
import { byFunctionWords } from '../../src/extract/language.js';
import { extractArticle, extractFromPage } from '../../src/extract/extract.js';
import { regionHtml, sanitizedHtml } from '../../src/extract/render.js';
import { learnFromSamples } from '../../src/extract/learn.js';
import { feedSignifiers, metadataSignifiers } from '../../src/extract/signifiers.js';
import { siteEvidence, withoutSiteNames } from '../../src/extract/metadata.js';
import { jaccard, structureSignature } from '../../src/extract/template.js';
import { termRules, terms } from '../../src/extract/terms.js';
import type { Wrapper } from '../../src/extract/wrapper.js';
import { makeArticle } from '../../src/synthetic/articles.js';
import { magazine, newspaper, oldBlog, type Template } from '../../src/synthetic/templates.js';
import { seededRandom } from '../../src/util/random.js';

const SITE = 'https://ledger.example/';
function page(template: Template, index: number, charset = 'utf-8') {
  const article = makeArticle('unit', index, Date.UTC(2026, 10, 2, 9, index));
  const related = [1, 2, 3].map((i) => makeArticle('unit', index + 100 + i, 0));
  const html = template({ siteName: 'The Ledger', siteUrl: SITE, feedUrl: `${SITE}feed.xml`, feedType: 'application/rss+xml', article, related, now: article.publishedAt + 3_600_000, requestRandom: seededRandom(index), charset, cdn: 'https://cdn.example' });
  return { article, html, url: `${SITE}articles/${article.slug}` };
}

test('SIGFEED on a single page: the article, without sidebar, comments, ads, share bar or footer', () => {
  const { article, html, url } = page(newspaper, 1);
  const result = extractArticle(html, { url, feedTitle: article.title, feedSummary: article.summary });
  assert.equal(result.method, 'sigfeed');
  for (const paragraph of article.paragraphs) assert.ok(result.text.includes(paragraph), `missing: ${paragraph.slice(0, 40)}`);
  assert.ok(result.html.includes(article.image!.caption), 'captions stay with their images in the HTML');
  assert.ok(!result.text.includes(article.image!.caption), 'the text is the prose, without captions');
  for (const boilerplate of ['Most read', 'Read more', 'comments', 'Advertisement', 'All rights reserved', 'Tweet']) assert.ok(!result.text.includes(boilerplate), `kept: ${boilerplate}`);
  assert.equal(result.title, article.title);
  assert.equal(result.byline, article.author);
  assert.equal(result.language, 'en');
  assert.match(result.html, /<img src="https:\/\/ledger\.example\/images\/img-1\.jpg"/);
  assert.match(result.html, /<figcaption>/);
  assert.doesNotMatch(result.html, /<script|onclick|class=/);
  assert.ok(result.text.split('\n').length >= article.paragraphs.length, 'a line break between blocks');
});

test('feed dates are preferred; the page\'s <time> otherwise', () => {
  const { article, html, url } = page(newspaper, 2);
  const fromPage = extractArticle(html, { url, feedTitle: article.title });
  assert.equal(fromPage.published, new Date(article.publishedAt).toISOString());
  const fromFeed = extractArticle(html, { url, feedTitle: article.title, feedPublished: '2026-01-01T00:00:00.000Z' });
  assert.equal(fromFeed.published, '2026-01-01T00:00:00.000Z');
});

test('without a feed item, the page\'s own metadata gives the signifiers', () => {
  const { article, html, url } = page(magazine, 3);
  const result = extractArticle(html, { url });
  assert.notEqual(result.method, 'none');
  assert.ok(result.text.includes(article.paragraphs[1]!));
  assert.ok(!result.text.includes('You might also like'));
});

test('a title written for search results that names no heading: the headline shown with the article is the title, not its deck or a teaser', () => {
  const paragraphs = [1, 2, 3, 4].map((i) => `<p>Paragraph ${i}: the shop on the corner reopened with a new window, knitted toys from the valley and a reading table for children on rainy afternoons.</p>`);
  const html = `<html><head><title>Toy Shops for Kids | Valley - Weekend Guide</title></head><body>
<div id="top"><h1><a href="/">Weekend Guide</a></h1></div>
<div id="main"><div class="head"><h1>Little Threads: The Corner Shop Returns</h1><h2>Knitted toys and a reading table</h2></div>
<div class="body">${paragraphs.join('')}</div>
<div class="more"><h2><a href="/next">Next week: three new bakeries</a></h2></div></div></body></html>`;
  assert.equal(extractArticle(html, { url: 'https://guide.example/shop' }).title, 'Little Threads: The Corner Shop Returns');
  // A gallery page with too little text for an article still has the headline it shows, not the logo's.
  const gallery = html.replace(/<p>.*<\/p>/, '<p>Photos: the new window.</p>').replace('<div id="top"><h1><a href="/">Weekend Guide</a></h1></div>', '<div id="top"><a href="/"><h1>Weekend Guide</h1></a></div>');
  const empty = extractArticle(gallery, { url: 'https://guide.example/shop' });
  assert.equal(empty.method, 'none');
  assert.equal(empty.title, 'Little Threads: The Corner Shop Returns');
});

test('a title and JSON-LD left in the body (content before them ended the head) are still the page\'s declarations; a canonical link there is not', () => {
  const paragraphs = [1, 2, 3, 4].map((i) => `<p>Paragraph ${i}: the council voted on the harbour plan after a long evening of questions about dredging, moorings and the cost of the new breakwater.</p>`);
  const html = `<html><head><meta charset="utf-8"></head><body><div id="wayback-toolbar">Archived copy of this page, captured in 2009</div>
<title>Council delays the harbour plan - Coast Courier</title>
<script type="application/ld+json">{"@type": "NewsArticle", "headline": "Council delays the harbour plan", "author": {"name": "Ann Lee"}}</script>
<link rel="canonical" href="https://other.example/another-story">
<div id="nav"><a href="/">Home</a> <a href="/sport">Sport</a></div>
<div class="story"><h2>Council delays the harbour plan</h2>${paragraphs.join('')}</div></body></html>`;
  const page = preparePage(html, { url: 'https://courier.example/harbour' });
  assert.deepEqual(page.declarations.map((element) => element.name), ['meta', 'title', 'script']);
  const result = extractFromPage(page);
  assert.equal(result.title, 'Council delays the harbour plan');
  assert.equal(result.byline, 'Ann Lee');
  assert.ok(!result.text.includes('Coast Courier'), 'the <title> is never content');
  assert.ok(terms('harbour', termRules('en')).every((term) => metadataSignifiers(page).keywords.has(term)), 'the body\'s title and JSON-LD are signifiers');
});

test('FOREST: a wrapper learned from sample pages of the template is applied to a new page', () => {
  const samples = [4, 5, 6, 7].map((i) => page(newspaper, i));
  const learned = learnFromSamples(samples.map((sample) => ({ input: sample.html, url: sample.url })));
  assert.ok(learned.wrapper);
  assert.equal(learned.wrapper.xpath, "//div[contains(@class,'story-body')]");
  assert.ok(learned.patterns.length > 3);
  assert.ok(learned.patterns[0]!.R >= learned.patterns[1]!.R, 'ranked by R');
  assert.ok(learned.patterns.every((p) => p.J >= 0 && p.I >= 0));
  const target = page(newspaper, 8);
  const result = extractArticle(target.html, { url: target.url, wrapper: learned.wrapper });
  assert.equal(result.method, 'forest');
  assert.equal(result.wrapper, learned.wrapper.xpath);
  assert.ok(result.text.includes(target.article.paragraphs.at(-1)!));
});

test('a wrapper that matches nothing falls back to the single-page methods', () => {
  const samples = [10, 11, 12].map((i) => page(magazine, i));
  const { wrapper } = learnFromSamples(samples.map((sample) => ({ input: sample.html })));
  const other = page(newspaper, 13);
  const result = extractArticle(other.html, { wrapper, feedTitle: other.article.title });
  assert.notEqual(result.method, 'forest');
  assert.ok(result.text.includes(other.article.paragraphs[0]!));
});

test('nothing to extract: empty, not HTML, too large, too little text', () => {
  assert.deepEqual([extractArticle('').method, extractArticle('').reason], ['none', 'empty']);
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  assert.match(extractArticle(png).reason ?? '', /not HTML/);
  assert.match(extractArticle('<p>x</p>', { contentType: 'application/pdf' }).reason ?? '', /not HTML \(application\/pdf\)/);
  const huge = Buffer.alloc(20 * 1024 * 1024, 'a');
  const big = extractArticle(huge);
  assert.equal(big.method, 'none');
  assert.match(big.reason ?? '', /too large/);
  const tiny = extractArticle('<html><head><title>Hi</title></head><body><p>Just a few words.</p></body></html>');
  assert.equal(tiny.method, 'none');
  assert.match(tiny.reason ?? '', /too little text/);
  assert.equal(tiny.title, 'Hi');
});

test('the parsed tree holds what a browser\'s DOM holds: text runs in one node each, every attribute whatever its name', () => {
  const document = parseHtml('<body><p id="a" constructor="c" __proto__="p" toString="t">Two  words\n and <b>bold</b> more\t text &amp; an entity<!-- note -->after</p>'
    + '<table><tr><td>cell</td></tr>stray text</table><p>x</p><p>y</p></body>');
  const paragraphs = getElementsByTagName('p', document);
  const first = paragraphs[0]!;
  // Text nodes as the DOM has them: the runs between two elements (or a comment) are one node.
  assert.deepEqual(first.children.map((child) => (isText(child) ? child.data : child.type)), ['Two  words\n and ', 'tag', ' more\t text & an entity', 'comment', 'after']);
  assert.deepEqual(Object.entries(first.attribs), [['id', 'a'], ['constructor', 'c'], ['__proto__', 'p'], ['tostring', 't']]);
  assert.equal(Object.getPrototypeOf(first.attribs), Object.getPrototypeOf(paragraphs[1]!.attribs));
  assert.equal(first.attribs['hasOwnProperty'], undefined);
  // Text a table cannot hold goes before the table (foster parenting), a node of its own.
  const table = getElementsByTagName('table', document)[0]!;
  assert.equal(isText(table.prev!) ? table.prev.data : null, 'stray text');
  assert.deepEqual(paragraphs.slice(1).map((p) => p.children.map((child) => (isText(child) ? child.data : child.type))), [['x'], ['y']]);
});

test('reading past scripts and style sheets, and runs of text, values, comments and names at once, gives the tree the tokenizer gives', () => {
  const long = 'x = 1;'.repeat(20_000);
  const cases = [
    '<p>a</p><script>var a = "</scripty>"; if (a<b) go();</script><p>after</p>',
    '<script>a</SCRIPT >b<p>upper case end</p>',
    '<script><!-- document.write("<script>x</script>"); --></script><p>escaped</p>',
    '<script>if (a) { b(); }</script/><p>self-closing end</p><script>x</script\t><p>tab</p>',
    '<script>never closed <p>not a paragraph</p>',
    '<svg><script><a>link</a></script><style><a>styled</a></style></svg><p>foreign</p>',
    '<textarea><script>x</script></textarea><title><script>t</script></title><p>rcdata</p>',
    '<!-- <script> --><p>comment</p></script><p>stray end</p>',
    '<style>p { color: red }</styles> still </style><p>style</p><style>unclosed',
    '<script type="application/ld+json">{"@type":"NewsArticle","headline":"</p>H"}</script><p>json</p>',
    '<table><script>x</script><tr><td>cell</td></tr></table>',
    '<frameset><script>x</script><frame></frameset>',
    '<script>\r\n</script>\r\n<p>a\r\nb</p><script>\r</script>\n<p>c</p>',
    '<script>"\u{1F600}"</script><p>\u{1F600} emoji</p>',
    '<noscript><script>x</script><p>noscript</p></noscript><template><script>y</script><p>t</p></template>',
    '<select><script>s</script><option>o</select><p>select</p>',
    `<script>${long}</script><p>after a long script</p><style>${long}</style><p>and a long style sheet</p>`,
    '<body><p>x</p></body></html><script>late</script><p>after html</p>',
    // Runs read at once (SkimmingTokenizer): text, quoted attribute values, comments and names,
    // next to everything that must end them.
    '<p>words  and\twhite\fspace\r\nacross\rlines\n\n  <b>bold</b>&amp; &copy &notanentity; a&b</p>',
    '<p>nul\u0000in text</p><a title="nul\u0000in &quot;value&quot;" alt=\'single\u0000&amp;\'>x</a><!-- nul\u0000 in comment -->',
    '<p>\u{1F600}\u{1F600} pair, lone \uD800 and \uDC00 halves</p><a title="\u{1F600}x\uD800y">z</a><!-- \u{1F600} -->',
    '<DIV CLASS="Upper" Data-X=\'1\' ID=unquoted>Mixed</DIV><dIv cLaSs="x">case</DiV><p a"b=1 c<d=2 e\'f=3>odd names</p>',
    '<a href="one\r\ntwo\rthree\nfour">newlines in a value</a><a b = "spaced" c= \'d\' e=f/>x</a>',
    '<!--a-b--c---><!-->early<!--->also<!-- <!-- nested --><!--x--!>bang<p>after comments</p>',
    '<table>text <b>in</b> a table<tr><td>cell text</td> more</tr></table><select>opt text<option>o</select>',
    '<pre>\nfirst newline</pre><textarea>\nkept</textarea><listing>\nl</listing>',
    // Text and whitespace joined in one token in the body, and kept apart where the rules differ.
    '<p>one two  three\tfour\n five</p> <frameset><frame></frameset>',
    ' \n <frameset><frame></frameset>',
    '<body> <frameset><frame></frameset>',
    '<body> x <frameset><frame></frameset>',
    '<div> x</div><frameset><frame></frameset>',
    '<pre>\n\nkept one</pre><pre>\nx y</pre><pre>x\ny</pre><listing> \nl m</listing><textarea>\n t u</textarea>',
    '<pre><b>\nafter a tag</b></pre>',
    '<table> a b <tr> <td> c d </td> e f </tr> </table><table><caption> g h </caption></table>',
    '<template> t u <p> v w </p></template><svg> x <text> y z </text> </svg><math> m n </math>',
    '<select> s t <option> o p </option></select><ul> <li> a b </li> </ul>',
    '<p>x</p></body> after body </html> after html',
    '<p>a &amp; b\u0000 c \u0000d e</p><p> &nbsp; </p><p>&lt; not a tag < x</p>',
    '<b>bold <i>both</b> italic </i> plain<p>in <a href=x>a <div>link</div> text</a> more</p>',
    '<p>text at the end of input',
    '<p title="value at the end of input',
    '<!-- comment at the end of input',
    '<p><a hre',
    '<di',
  ];
  for (const html of cases) assert.equal(render(parseHtml(html)), render(parseHtml(html, null, { plain: true })), html.slice(0, 80));
  for (const { html } of [page(newspaper, 40), page(magazine, 41), page(oldBlog, 42)]) assert.equal(render(parseHtml(html)), render(parseHtml(html, null, { plain: true })));
});

test('raw text ends at its first appropriate end tag, and a script holding <!-- is left to the tokenizer', () => {
  assert.equal(rawTextEnd('<script>a = "</scripts>";</SCRIPT\n>', 8, 'script'), 25);
  assert.equal(rawTextEnd('<style>a</style', 7, 'style'), -1);
  assert.equal(rawTextEnd('<style>a</style/>', 7, 'style'), 8);
  assert.equal(rawTextEnd('<script><!-- x --></script>', 8, 'script'), -1);
  assert.equal(rawTextEnd('<!-- --><script>x</script>', 16, 'script'), 17);
});

test('a windows-1252 page declared only in <meta> is decoded right', () => {
  const paragraph = 'The café on the quay served crème brûlée to a naïve visitor, whose façade of calm cracked when the ferry’s horn sounded twice over the harbour.';
  const html = `<html><head><meta charset="windows-1252"><title>Quay café</title></head><body><div class="nav">Home</div><div class="post"><h2>Quay café</h2>${`<p>${paragraph}</p>`.repeat(3)}</div></body></html>`;
  const bytes = iconv.encode(html, 'windows-1252');
  const result = extractArticle(bytes, { contentType: 'text/html' });
  assert.ok(result.text.includes(paragraph), result.text.slice(0, 200));
});

test('templates: pages of one layout are similar, of two layouts not', () => {
  const a = structureSignature(preparePage(page(newspaper, 20).html));
  const b = structureSignature(preparePage(page(newspaper, 21).html));
  const c = structureSignature(preparePage(page(oldBlog, 22).html));
  assert.ok(jaccard(a, b) > 0.8);
  assert.ok(jaccard(a, c) < 0.3);
});

test('extractFromPage and extractArticle agree', () => {
  const { html, article } = page(oldBlog, 30);
  const one = extractArticle(html, { feedTitle: article.title });
  const two = extractFromPage(preparePage(html), { feedTitle: article.title });
  assert.deepEqual(one, two);
});

test('widget labels and bare date stamps inside the article block are left out; prose with dates is kept', () => {
  const paragraph = (i: number) => `<p>The harbour committee met on ${i} November 2026 and approved the ferry timetable, the budget for the bridge repairs and a study of the tunnel.</p>`;
  const html = `<html><head><title>Ferry timetable approved</title></head><body><div class="story">
<h1>Ferry timetable approved</h1><div>Updated at 1:23 p.m. EST</div><div>Nov. 18, 2026</div><div class="counter">12 comments</div>
${[1, 2, 3, 4].map(paragraph).join('')}<div>Advertisement</div><div>Image 1 of 5</div><p>No comments yet.</p><h3>Leave a Reply</h3><div>Comments are closed.</div></div></body></html>`;
  const result = extractArticle(html, { feedTitle: 'Ferry timetable approved', feedSummary: 'The harbour committee met and approved the ferry timetable' });
  for (const gone of ['Updated at', 'Nov. 18', '12 comments', 'Advertisement', 'Image 1 of 5', 'No comments', 'Leave a Reply', 'Comments are closed']) assert.ok(!result.text.includes(gone), `kept: ${gone}`);
  assert.ok(result.text.includes('on 4 November 2026 and approved'), 'a sentence with a date is prose');
});

test('a table of figures in the article keeps its numbers: a bare number is a datum, not a date stamp', () => {
  const paragraph = (i: number) => `<p>The league published the standings after round ${i}: the leaders kept their places and the last four drivers lost ground again this week.</p>`;
  const rows = [['1', 'Ann Lee', '5040', '5'], ['2', 'Bo Chan', '5035', '7'], ['3', 'Cy Dunn', '5033', '4']];
  const html = `<html><head><title>Season standings</title></head><body><div class="story">
<h1>Season standings</h1><div>Nov. 18, 2026</div>${[1, 2, 3].map(paragraph).join('')}
<table><tr><td>Pos.</td><td>Driver</td><td>Points</td><td>Wins</td></tr>${rows.map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join('')}</tr>`).join('')}</table></div></body></html>`;
  const result = extractArticle(html, { feedTitle: 'Season standings', feedSummary: 'The league published the standings after the round' });
  for (const figure of ['5040', '5035', '5033']) assert.ok(result.text.includes(figure), `lost: ${figure}`);
  assert.ok(!result.text.includes('Nov. 18'), 'a date alone is still a stamp');
});

test('a body split over sibling containers of one type is merged; a sibling of that type that is a list of links is not', () => {
  const paragraph = (i: number) => `<p>The harbour committee met on ${i} November 2026 and approved the ferry timetable, the budget for the bridge repairs and a study of the tunnel under the bay.</p>`;
  const links = Array.from({ length: 40 }, (_, i) => `<li><a href="/story/${i}">Weekend weather outlook part ${i}</a></li>`).join('');
  const html = `<html><head><title>Ferry timetable approved</title></head><body><div class="page">
<div class="part"><h1>Ferry timetable approved</h1>${[1, 2, 3, 4].map(paragraph).join('')}</div>
<div class="part"><p>The council will vote on the plan in December, after a public hearing at the town hall where residents of the islands may speak for five minutes each.</p><p>Opponents say the money would be better spent on the roads of the northern districts, which have waited for repairs since the flood of the spring.</p></div>
<div class="part"><ul>${links}</ul></div></div></body></html>`;
  const result = extractArticle(html, { feedTitle: 'Ferry timetable approved', feedSummary: 'The harbour committee met and approved the ferry timetable' });
  assert.ok(result.text.includes('on 1 November 2026') && result.text.includes('the roads of the northern districts'), 'both parts of the body');
  assert.ok(!result.text.includes('Weekend weather outlook'), 'the list of links beside them');
});

test('a box of teaser cards inside the story is left out; a roundup post’s linked subheadings with their paragraphs are the post', () => {
  const paragraph = (i: number) => `<p>The harbour committee met on ${i} November 2026 and approved the ferry timetable, the budget for the bridge repairs and a study of the tunnel under the bay.</p>`;
  const card = (i: number) => `<div class="card"><a href="/story/${i}"><h4>Weekend weather outlook part ${i}</h4></a><p>Rain in the north and sun in the south, says the forecast</p></div>`;
  const story = `<html><head><title>Ferry timetable approved</title></head><body><div class="story">
<h1>Ferry timetable approved</h1>${[1, 2, 3, 4].map(paragraph).join('')}<div class="more">${[1, 2, 3, 4].map(card).join('')}</div></div></body></html>`;
  const options = { feedTitle: 'Ferry timetable approved', feedSummary: 'The harbour committee met and approved the ferry timetable' };
  const withCards = extractArticle(story, options);
  assert.ok(withCards.text.includes('on 4 November 2026'), 'the story');
  assert.ok(!withCards.text.includes('Weekend weather outlook'), 'the cards');
  const item = (name: string) => `<h3><a href="https://apps.example/${name}">${name}</a></h3><p>${name} keeps the ferry timetable on your phone and warns you when a crossing is cancelled or delayed by the weather on the bay.</p>`;
  const roundup = `<html><head><title>Five ferry timetable apps</title></head><body><div class="post">
<h1>Five ferry timetable apps</h1><p>We tried every ferry timetable app we could find this autumn, and these five are the ones we kept on our phones.</p>
${['Harbourly', 'Tidewise', 'Crossings', 'Portside', 'Bayline'].map(item).join('')}</div></body></html>`;
  const post = extractArticle(roundup, { feedTitle: 'Five ferry timetable apps', feedSummary: 'We tried every ferry timetable app we could find' });
  for (const name of ['Harbourly', 'Bayline']) assert.ok(post.text.includes(`${name} keeps the ferry timetable`), `lost: ${name}`);
  // The cards change on every visit (the newest stories); the story does not: no new version.
  const revisit = extractArticle(story.replace(/part (\d)/g, (_, n: string) => `part ${Number(n) + 4}`), options);
  assert.equal(objectHash(normalizeArticle(revisit)), objectHash(normalizeArticle(withCards)));
});

test('reader counters (comments, shares) are left out, inline too: a revisit sees the same object whatever the count', () => {
  const paragraph = (i: number) => `<p>The harbour committee met on ${i} November 2026 and approved the ferry timetable, the budget for the bridge repairs and a study of the tunnel.</p>`;
  const html = (comments: number, shares: string) => `<html><head><title>Ferry timetable approved</title></head><body><div class="entry">
<h1>Ferry timetable approved</h1>${[1, 2, 3, 4].map(paragraph).join('')}
<p class="posted">Posted by Ann Lee at Wed, 18 Nov 2026 09:00:00 GMT | <a href="#c">Comments (${comments})</a> · <span>${shares} shares</span></p></div></body></html>`;
  const options = { feedTitle: 'Ferry timetable approved', feedSummary: 'The harbour committee met and approved the ferry timetable' };
  const before = extractArticle(html(3, '1,204'), options);
  const after = extractArticle(html(17, '2,311'), options);
  for (const gone of ['Comments (', 'shares']) assert.ok(!before.text.includes(gone), `kept: ${gone}`);
  assert.equal(objectHash(normalizeArticle(before)), objectHash(normalizeArticle(after)));
  assert.ok(before.text.includes('on 4 November 2026 and approved'), 'the prose is kept');
});

test('a post\'s meta line (who posted it, when, how many comments) is left out: its counter is plain text, and a revisit sees the same object', () => {
  const paragraph = (i: number) => `<p>The harbour committee met on ${i} November 2026 and approved the ferry timetable, the budget for the bridge repairs and a study of the tunnel.</p>`;
  const html = (meta: string) => `<html><head><title>Ferry timetable approved</title></head><body><div class="post">
<h2>Ferry timetable approved</h2><div class="meta">${meta}</div>${[1, 2, 3, 4].map(paragraph).join('')}</div></body></html>`;
  const options = { feedTitle: 'Ferry timetable approved', feedSummary: 'The harbour committee met and approved the ferry timetable' };
  const lines = [
    (n: number) => `Posted by Ann Lee on 2026-11-18 | ${n} comments`,
    (n: number) => `By Ann Lee and Bo Chan · Wed, 18 Nov 2026 09:00:00 GMT · ${n} shares`,
    (n: number) => `Updated ${n} minutes ago — Views: ${n * 3}`,
  ];
  for (const line of lines) {
    const before = extractArticle(html(line(3)), options);
    const after = extractArticle(html(line(58)), options);
    assert.ok(before.text.includes('on 4 November 2026 and approved'), 'the prose is kept');
    assert.ok(!/comments|shares|minutes ago|Ann Lee/.test(before.text), `kept the meta line: ${before.text.slice(0, 120)}`);
    assert.equal(objectHash(normalizeArticle(before)), objectHash(normalizeArticle(after)), line(3));
  }
  // A byline and a date alone do not change between visits: the line stays (as the single page kept it before).
  assert.ok(extractArticle(html('By Ann Lee · Wed, 18 Nov 2026 09:00:00 GMT'), options).text.includes('By Ann Lee'));
  // A sentence that names who did something, and when, and counts, is prose.
  const prose = ['Approved by 12 votes to 3 on 18 November | the rest abstained', 'The plan was drawn up by Ann Lee on 18 November 2026 and seen by 300 residents'];
  for (const line of prose) assert.ok(extractArticle(html(line), options).text.includes(line.split(' | ')[0]!), `lost: ${line}`);
  // The synthetic magazine's page, as two requests serve it (another comment count each time).
  const { article, url } = page(magazine, 7);
  const served = (seed: number) => magazine({ siteName: 'Orbit', siteUrl: SITE, feedUrl: `${SITE}feed.xml`, feedType: 'application/atom+xml', article, related: [], now: article.publishedAt, requestRandom: seededRandom(seed), charset: 'utf-8', cdn: null });
  const [one, two] = [1, 2].map((seed) => extractArticle(served(seed), { url, feedTitle: article.title, feedSummary: article.summary }));
  assert.notEqual(served(1), served(2));
  assert.equal(objectHash(normalizeArticle(one!)), objectHash(normalizeArticle(two!)), `${one!.text.slice(0, 200)}`);
});

test('a post\'s tag line (declared tags, an author, a time) is left out; a sentence linking a tag keeps its words', () => {
  const paragraph = (i: number) => `<p>The harbour committee met on ${i} November 2026 and approved the ferry timetable, the budget for the bridge repairs and a study of the tunnel.</p>`;
  const html = `<html><head><title>Ferry timetable approved</title></head><body><div class="entry">
<h1>Ferry timetable approved</h1><div class="line"><a href="/c/harbour" rel="category tag">harbour</a>, <a href="/t/ferries" rel="tag">ferries</a> — Ann @ 09:00</div>
${[1, 2, 3].map(paragraph).join('')}<p>Readers who follow <a href="/t/ferries" rel="tag">ferries</a> will find the old timetable in the archive below.</p></div></body></html>`;
  const article = extractArticle(html, { feedTitle: 'Ferry timetable approved' });
  assert.ok(!article.text.includes('Ann @ 09:00'), `kept the tag line: ${article.text}`);
  assert.ok(article.text.includes('Readers who follow ferries will find the old timetable'), 'the sentence stays whole');
  assert.ok(article.text.includes('on 3 November 2026 and approved'), 'the prose is kept');
});

test('a deck set apart from the body: a wrapper learns its slot across pages; a single page leaves it out', () => {
  // The deck repeats the page's description, in a promo box above the body's container, with a
  // teaser of another story beside it: one page cannot tell which is the deck, the template can.
  const deckPage = (index: number) => {
    const article = makeArticle('deck', index, Date.UTC(2026, 10, 2, 9, index));
    const deck = article.paragraphs[0]!;
    const teaser = makeArticle('deck', index + 50, 0).paragraphs[0]!;
    return {
      article, deck,
      html: `<html><head><title>${article.title}</title><meta name="description" content="${deck}"></head><body>
<div class="promo"><h2 class="headline">${article.title}</h2><p class="dek">${deck}</p><p class="teaser">${teaser}</p></div>
<div class="main"><div class="text">${article.paragraphs.slice(1).map((p) => `<p>${p}</p>`).join('')}</div><div class="sidebar"><a href="/a">Other story</a></div></div>
</body></html>`,
    };
  };
  const learned = learnFromSamples([1, 2, 3, 4].map((i) => ({ input: deckPage(i).html })));
  assert.ok(learned.wrapper?.deck, 'the deck slot is learned');
  const target = deckPage(9);
  const wrapped = extractFromPage(preparePage(target.html), { wrapper: learned.wrapper });
  assert.equal(wrapped.method, 'forest');
  assert.ok(wrapped.text.startsWith(target.deck), 'the deck opens the text');
  assert.ok(wrapped.text.includes(target.article.paragraphs[1]!));
  assert.ok(!wrapped.text.includes(makeArticle('deck', 59, 0).paragraphs[0]!), 'not the teaser beside it');
  const single = extractFromPage(preparePage(target.html));
  assert.ok(!single.text.includes(target.deck), 'a single page does not guess');
});

test('every field survives a wrapper: title, byline, dates, lead image and language are the single page\'s', () => {
  for (const [name, template] of [['newspaper', newspaper], ['magazine', magazine], ['oldBlog', oldBlog]] as const) {
    const learned = learnFromSamples([20, 21, 22, 23].map((i) => page(template, i)).map((sample) => ({ input: sample.html, url: sample.url, feedTitle: sample.article.title })));
    assert.ok(learned.wrapper, `${name}: a wrapper`);
    for (const i of [24, 25, 26]) {
      const { article, html, url } = page(template, i);
      const options = { url, feedTitle: article.title, feedSummary: article.summary };
      const single = extractArticle(html, options);
      const wrapped = extractArticle(html, { ...options, wrapper: learned.wrapper });
      assert.equal(wrapped.method, 'forest', `${name} ${i}`);
      const fields = (object: typeof single) => ({ title: object.title, byline: object.byline, published: object.published, modified: object.modified, leadImage: object.leadImage, language: object.language });
      assert.deepEqual(fields(wrapped), fields(single), `${name} ${i}`);
      // The newspaper marks its byline up (the other two only say "Posted by …" in plain text).
      if (template === newspaper) assert.equal(wrapped.byline, article.author, `${name} ${i}: the byline`);
    }
  }
});

test('the feed item\'s author is the byline when the page shows none', () => {
  const { article, html, url } = page(newspaper, 30);
  const withoutByline = html.replace(/<p class="byline">[\s\S]*?<\/p>/, '');
  assert.notEqual(withoutByline, html);
  assert.equal(extractArticle(withoutByline, { url, feedTitle: article.title }).byline, null);
  assert.equal(extractArticle(withoutByline, { url, feedTitle: article.title, feedAuthor: 'Ines Okafor' }).byline, 'Ines Okafor');
  assert.equal(extractArticle(html, { url, feedTitle: article.title, feedAuthor: 'Ines Okafor' }).byline, article.author, 'the page\'s own byline first');
});

/** A story page with a hero figure between its headline and its body, an ad and a share card. */
function heroPage(options: { hero: boolean }) {
  const paragraphs = Array.from({ length: 6 }, (_, i) => `<p>The river authority opened the new flood gates on day ${i + 1}, and the mill town watched the water fall back below the old stone bridge for the first time since spring.</p>`).join('');
  return `<!doctype html><html lang="en"><head><title>Flood gates open on the river | The Valley Post</title>
<meta property="og:image" content="https://valley.example/share/card-77.jpg"><meta name="description" content="The river authority opened the new flood gates."></head>
<body><div class="ad"><a href="https://ads.example/x"><img src="https://ads.example/banner.jpg" width="728" height="90"></a></div>
<div class="story"><h1>Flood gates open on the river</h1>
${options.hero ? '<figure class="hero"><img src="/photos/gates.jpg" width="1200" height="600"><figcaption>The new gates at dawn.</figcaption></figure>' : ''}
<div class="story-body">${paragraphs}</div></div><img src="https://valley.example/pixel.gif" width="1" height="1"></body></html>`;
}

test('the lead image is the article\'s: a figure before the body counts, an ad, a pixel or a share card the page does not show do not', () => {
  const url = 'https://valley.example/2026/flood-gates';
  const options = { url, feedTitle: 'Flood gates open on the river' };
  const body: Wrapper = { type: 'div[class=story-body]', tag: 'div', attributes: { class: 'story-body' }, dfs: [], level: 4, xpath: "//div[contains(@class,'story-body')]", relevance: 1, samples: 4, templateBlocks: [] };
  const withHero = extractArticle(heroPage({ hero: true }), { ...options, wrapper: body });
  assert.equal(withHero.method, 'forest', 'the wrapper takes the body alone, below the figure');
  assert.equal(withHero.leadImage, 'https://valley.example/photos/gates.jpg');
  assert.equal(extractArticle(heroPage({ hero: true }), options).leadImage, 'https://valley.example/photos/gates.jpg', 'single-page extraction finds the same');
  assert.equal(extractArticle(heroPage({ hero: false }), { ...options, wrapper: body }).leadImage, null, 'the share card is not shown, the ad is a link, the pixel is a pixel');
});

test('removing the lead image is an edit (media-removed), in every mode', () => {
  const url = 'https://valley.example/2026/flood-gates';
  const body: Wrapper = { type: 'div[class=story-body]', tag: 'div', attributes: { class: 'story-body' }, dfs: [], level: 4, xpath: "//div[contains(@class,'story-body')]", relevance: 1, samples: 4, templateBlocks: [] };
  for (const wrapper of [null, body]) {
    const options = { url, feedTitle: 'Flood gates open on the river', wrapper };
    const before = normalizeArticle(extractArticle(heroPage({ hero: true }), options));
    const after = normalizeArticle(extractArticle(heroPage({ hero: false }), options));
    assert.notEqual(objectHash(before), objectHash(after), `${wrapper ? 'wrapper' : 'single page'}: the hash covers the lead image`);
    assert.ok(diffObjects(before, after).kinds.includes('media-removed'), JSON.stringify(diffObjects(before, after).kinds));
  }
});

test('a page that declares no language is given the one its text is in; too little text, none', () => {
  const body = 'Der Gemeinderat hat am Montag beschlossen, dass die neue Brücke über den Kanal im Frühjahr gebaut wird. Die Stadt gibt dafür mehr Geld aus als geplant, und die Anwohner sollen im März bei einer öffentlichen Sitzung mitreden können.';
  const page = preparePage(`<html><head><title>Die neue Brücke über den Kanal</title></head><body><p>${body}</p></body></html>`);
  assert.equal(page.language, 'de');
  assert.deepEqual([...metadataSignifiers(page).keywords], ['brücke', 'kanal'], 'the detected language\'s stop words');
  assert.equal(extractArticle(`<html><head><title>t</title></head><body><p>${body}</p><p>${body}</p></body></html>`).language, 'de', 'and the object says so');
  assert.equal(preparePage('<html><head><title>Die Brücke</title></head><body><p>Die neue Brücke.</p></body></html>').language, null);
});

test('an English page whose trigrams score as close to Scots is told English by its function words', () => {
  const body = 'The council met on Tuesday evening to decide whether the old bridge over the canal should be repaired or replaced. Engineers told the members that the stone arches were sound, but that the deck had been weakened by decades of heavy traffic and would need to be rebuilt within five years. Several residents who live near the water spoke in favour of keeping the bridge as it is, saying that a new structure would not fit the character of the town.';
  // franc alone scores this within its margin of Scots: the page got no language.
  assert.equal(preparePage(`<html><head><title>The bridge</title></head><body><p>${body}</p></body></html>`).language, 'en');
  assert.equal(byFunctionWords(body, ['sco']), null, 'a language without stop words cannot win');
  const names = 'Anna Berg, Carl Dahl, Erik Falk, Greta Holm, Ivar Jonsson, Karin Lind, Magnus Nord, Olga Persson, Rune Strand, Tove Ulf, Viktor Wall';
  assert.equal(byFunctionWords(names, ['eng', 'sco']), null, 'a text with few function words is in no language by them');
  assert.equal(byFunctionWords(body, ['eng', 'sco', 'deu']), 'en');
});

test('the language is told from the prose, not from an English template around it', () => {
  const body = 'Der Gemeinderat hat am Montag beschlossen, dass die neue Brücke über den Kanal im Frühjahr gebaut wird. Die Stadt gibt dafür mehr Geld aus als geplant, und die Anwohner sollen im März bei einer öffentlichen Sitzung mitreden können.';
  // A site whose menus, tags and footer links are in English, around an article in German.
  const menu = Array.from({ length: 40 }, (_, i) => `<li><a href="/t/${i}">${['Home', 'World news', 'Sign in', 'Subscribe now', 'Privacy policy', 'Terms of use', 'Contact us', 'About the team'][i % 8]}</a></li>`).join('');
  const page = preparePage(`<html><head><title>News</title></head><body><ul>${menu}</ul><ul>${menu}</ul><p>${body}</p><ul>${menu}</ul></body></html>`);
  assert.equal(page.language, 'de');
});

test('signifiers follow the page\'s language: a German page\'s function words are not its keywords', () => {
  const html = (lang: string) => `<html${lang}><head><title>Die neue Brücke über den Kanal</title></head><body><p>x</p></body></html>`;
  assert.deepEqual([...metadataSignifiers(preparePage(html(' lang="de-AT"'))).keywords], ['brücke', 'kanal']);
  assert.deepEqual([...metadataSignifiers(preparePage(html(''))).keywords], ['die', 'neue', 'brücke', 'über', 'den', 'kanal'], 'without a language, the English rules');
  assert.deepEqual([...feedSignifiers('Les ponts de la ville', null, termRules('fr')).keywords], ['ponts', 'ville'], 'French stop words, no English stemming');
  // Declared by a meta element rather than <html lang>.
  const meta = `<html><head><meta http-equiv="Content-Language" content="de"><title>Die neue Brücke über den Kanal</title></head><body><p>x</p></body></html>`;
  assert.deepEqual([...metadataSignifiers(preparePage(meta)).keywords], ['brücke', 'kanal']);
  assert.deepEqual([...feedSignifiers('The bridges of the towns', null, termRules('en-GB')).keywords], ['bridg', 'town'], 'English: Porter stems');
});

test('the article\'s HTML leaves out skipped and hidden elements, and the page\'s tree is left as it was', () => {
  const { document } = preparePage('<html><body><div id="a"><p>First <b>kept</b> words.</p><aside><p>Skipped box</p></aside><p hidden>Hidden</p><div><p>Nested</p><script>x()</script><p>kept too</p></div></div></body></html>');
  const byName = (name: string) => getElementsByTagName(name, document);
  const before = render(document);
  const root = byName('div')[0]!;
  const html = sanitizedHtml(regionHtml(root, new Set([byName('aside')[0]!])), 'https://site.example/');
  assert.equal(html, '<p>First <b>kept</b> words.</p><p>Nested</p><p>kept too</p>');
  assert.equal(render(document), before, 'the page is untouched');
  assert.equal(root.children.length, 4);
});

test('the site\'s name leaves a declared title by what the page says of it: a link home, og:site_name, a feed\'s title, the host', () => {
  const at = (head: string, body = '', url: string | null = null) => siteEvidence(preparePage(`<html><head>${head}</head><body>${body}</body></html>`, { url }));
  assert.equal(withoutSiteNames('Harbour Blog: Ferry times change', at('', '<a href="/">Harbour Blog</a>')), 'Ferry times change');
  assert.equal(withoutSiteNames('Ferry times change » Harbour Blog', at('<meta property="og:site_name" content="Harbour Blog">')), 'Ferry times change');
  assert.equal(withoutSiteNames('Harbour Blog: Ferry times', at('<link rel="alternate" type="application/atom+xml" title="Harbour Blog - Atom" href="/feed">')), 'Ferry times');
  // The host spells the name, with or without its top-level domain; the name may stand between the headline and a section.
  assert.equal(withoutSiteNames('Letters of Note: Please advise', at('', '', 'https://www.lettersofnote.example/2012/11/please-advise.html')), 'Please advise');
  assert.equal(withoutSiteNames('Union and league to meet - IceLeague.com - News', at('', '', 'https://www.iceleague.com/news/1')), 'Union and league to meet');
  // A link to another site's home page names that site, not this one; without evidence the longest part stands.
  assert.equal(withoutSiteNames('Ferry Times: A very long name for the harbour blog', at('', '<a href="https://other.example/">Ferry Times</a>')), 'Ferry Times: A very long name for the harbour blog');
  assert.equal(withoutSiteNames('Ferry times change | Harbour Blog', at('')), 'Ferry times change');
});
