import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ConfigError } from '../../src/config/errors.js';
import { parseOpml, toOpml } from '../../src/config/opml.js';
import { editSubscriptions, indexOfUrl, readSubscriptions } from '../../src/config/subscriptions.js';
import { tempDir, writeFile } from '../helpers/temp.js';

const dir = tempDir();

test('the subscription list reads url, title, tags, schedule and enabled', () => {
  const file = writeFile(dir, 'feeds.yaml', `# my feeds
- url: https://example.org/feed.xml
  title: Example
  tags: [news, local]
  schedule: "*/20 * * * *"
- url: https://example.net/atom
  enabled: false
  requisites: [styles]
`);
  const list = readSubscriptions(file);
  assert.deepEqual(list[0], { url: 'https://example.org/feed.xml', title: 'Example', tags: ['news', 'local'], schedule: '*/20 * * * *', enabled: true });
  assert.equal(list[1]!.enabled, false);
  assert.deepEqual(list[1]!.requisites, ['styles'], 'a feed\'s own requisite kinds');
  assert.deepEqual(list[1]!.tags, []);
});

test('a missing list is empty', () => {
  assert.deepEqual(readSubscriptions(`${dir}/none.yaml`), []);
});

for (const [name, yaml, line, field, pattern] of [
  ['relative URL', '- url: https://a.example/\n- url: /feed.xml\n', 2, '[1].url', /absolute/],
  ['bad cron', '- url: https://a.example/\n  schedule: "99 * * * *"\n', 2, '[0].schedule', /cron/],
  ['unknown field', '- url: https://a.example/\n  titel: x\n', 2, '[0].titel', /unknown/],
  ['duplicate', '- url: https://a.example/\n- url: https://b.example/\n- url: https://a.example/\n', 3, '[2].url', /duplicate/],
  ['tags not a list', '- url: https://a.example/\n  tags: news\n', 2, '[0].tags', /array/],
  ['unknown requisite kind', '- url: https://a.example/\n  requisites: [images, scripts]\n', 2, '[0].requisites[1]', /images|styles|media/],
] as const) {
  test(`a bad list (${name}) names file, line and field`, () => {
    const file = writeFile(dir, `bad-${name.replace(/\s/g, '-')}.yaml`, yaml);
    assert.throws(() => readSubscriptions(file), (error: unknown) => {
      assert.ok(error instanceof ConfigError, String(error));
      assert.equal(error.file, file);
      assert.equal(error.line, line);
      assert.equal(error.field, field);
      assert.match(error.message, pattern);
      return true;
    });
  });
}

test('editing keeps comments and writes a valid list', () => {
  const file = writeFile(dir, 'edit.yaml', '# keep me\n- url: https://a.example/  # first\n');
  editSubscriptions(file, (list, document) => list.add(document.createNode({ url: 'https://b.example/', tags: ['x'] })));
  const text = readFileSync(file, 'utf8');
  assert.match(text, /# keep me/);
  assert.match(text, /# first/);
  assert.deepEqual(readSubscriptions(file).map((s) => s.url), ['https://a.example/', 'https://b.example/']);
  editSubscriptions(file, (list) => list.delete(indexOfUrl(list, 'https://a.example/')));
  assert.deepEqual(readSubscriptions(file).map((s) => s.url), ['https://b.example/']);
});

test('an edit that would make the list invalid writes nothing', () => {
  const file = writeFile(dir, 'guard.yaml', '- url: https://a.example/\n');
  assert.throws(() => editSubscriptions(file, (list, document) => list.add(document.createNode({ url: 'ftp://nope' }))), ConfigError);
  assert.equal(readFileSync(file, 'utf8'), '- url: https://a.example/\n');
});

const OPML = `<?xml version="1.0"?>
<opml version="2.0">
  <head><title>Mine</title></head>
  <body>
    <outline text="News">
      <outline type="rss" text="Ledger" title="The Ledger" xmlUrl="https://ledger.example/feed.xml" htmlUrl="https://ledger.example/" category="/local,politics"/>
      <outline type="rss" text="Orbit &amp; Co" xmlUrl="https://orbit.example/atom.xml"/>
    </outline>
    <outline type="rss" text="Loose" xmlUrl="https://loose.example/rss"/>
  </body>
</opml>`;

test('OPML import keeps titles, site URLs, categories and folders as tags', () => {
  const list = parseOpml('mine.opml', OPML);
  assert.deepEqual(list, [
    { url: 'https://ledger.example/feed.xml', title: 'The Ledger', siteUrl: 'https://ledger.example/', tags: ['News', 'local', 'politics'], schedule: null, enabled: true },
    { url: 'https://orbit.example/atom.xml', title: 'Orbit & Co', siteUrl: null, tags: ['News'], schedule: null, enabled: true },
    { url: 'https://loose.example/rss', title: 'Loose', siteUrl: null, tags: [], schedule: null, enabled: true },
  ]);
});

test('OPML export and import round-trip, including a disabled feed and a cron schedule', () => {
  const list = parseOpml('mine.opml', OPML);
  list[1] = { ...list[1]!, enabled: false };
  list[2] = { ...list[2]!, schedule: '*/30 * * * *' };
  const exported = toOpml(list);
  assert.match(exported, /forest:disabled="true"/);
  const again = parseOpml('export.opml', exported);
  assert.deepEqual(again, list);
});

test('a broken OPML says in words which element is not closed, on the line that opens it', () => {
  const unclosed = () => parseOpml('x.opml', '<opml version="2.0">\n<body>\n<outline text="a" xmlUrl="https://a.example/feed"/>\n');
  assert.throws(unclosed, (error: unknown) => error instanceof ConfigError && error.line === 2 && /<body> is opened here and never closed \(inside <opml>\)/.test(error.message) && !/\[/.test(error.message));
  const mismatched = () => parseOpml('x.opml', '<opml version="2.0">\n<body>\n<outline text="a">\n</body></opml>');
  assert.throws(mismatched, (error: unknown) => error instanceof ConfigError && error.line === 3 && /<outline> is opened here and not closed before <\/body> on line 4/.test(error.message));
});

test('a broken OPML names the line', () => {
  assert.throws(() => parseOpml('x.opml', '<opml version="2.0">\n<body>\n<outline text="a">\n</body></opml>'), (error: unknown) => error instanceof ConfigError && error.line !== null && error.line >= 3);
  assert.throws(() => parseOpml('x.opml', '<opml version="2.0"><body>\n\n<outline type="rss" text="No URL"/></body></opml>'), (error: unknown) => error instanceof ConfigError && error.line === 3 && error.field === 'outline.xmlUrl');
  assert.throws(() => parseOpml('x.opml', '<opml><body>\n<outline type="rss" xmlUrl="feed.xml"/></body></opml>'), (error: unknown) => error instanceof ConfigError && error.line === 2 && /absolute/.test(error.message));
});
