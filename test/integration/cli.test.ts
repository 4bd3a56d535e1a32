import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { renderFeed } from '../../src/synthetic/feed-documents.js';
import { makeArticle } from '../../src/synthetic/articles.js';
import { forest } from '../helpers/cli.js';
import { tempDir, writeFile } from '../helpers/temp.js';

const dir = tempDir();
const articles = [0, 1, 2].map((index) => makeArticle('cli', index, Date.UTC(2026, 10, 2, 10, index)));
const atom = writeFile(dir, 'feed.atom', renderFeed('atom1.0', { siteName: 'CLI', siteUrl: 'https://cli.example/', feedUrl: 'https://cli.example/atom.xml', articles }));
const json = writeFile(dir, 'feed.json', renderFeed('jsonfeed', { siteName: 'CLI', siteUrl: 'https://cli.example/', feedUrl: 'https://cli.example/feed.json', articles }));
const html = writeFile(dir, 'page.html', '<!DOCTYPE html><html><head><title>x</title></head><body>no feed</body></html>');
const relative = writeFile(dir, 'relative.xml', '<rss version="2.0"><channel><title>R</title><link>/</link><item><title>A</title><link>/a</link></item></channel></rss>');

test('parse-feed prints the Feed/Item JSON', async () => {
  const result = await forest(['parse-feed', atom]);
  assert.equal(result.code, 0, result.stderr);
  const parsed = JSON.parse(result.stdout) as { format: string; warnings: string[]; feed: { title: string; hub: string }; items: Array<{ guid: string; link: string; published: string }> };
  assert.equal(parsed.format, 'atom1.0');
  assert.equal(parsed.feed.title, 'CLI');
  assert.equal(parsed.items.length, 3);
  assert.equal(parsed.items[0]!.published, '2026-11-02T10:00:00.000Z');
  assert.match(parsed.items[0]!.link, /^https:\/\/cli\.example\/articles\//);
});

test('parse-feed --url makes links absolute', async () => {
  const result = await forest(['parse-feed', relative, '--url', 'https://rel.example/feeds/rss']);
  const parsed = JSON.parse(result.stdout) as { items: Array<{ link: string }> };
  assert.equal(parsed.items[0]!.link, 'https://rel.example/a');
});

test('parse-feed fails with a one-line reason on stderr', async () => {
  const result = await forest(['parse-feed', html]);
  assert.equal(result.code, 1);
  assert.equal(result.stdout, '');
  assert.equal(result.stderr.trim().split('\n').length, 1);
  assert.match(result.stderr, /not a feed: the document is an HTML page/);
});

test('parse-feed --batch goes on after a file that fails', async () => {
  const list = writeFile(dir, 'list.txt', [atom, html, join(dir, 'missing.xml'), json, ''].join('\n'));
  const result = await forest(['parse-feed', '--batch', list]);
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { path: string; result?: { format: string }; error?: string });
  assert.deepEqual(lines.map((line) => line.path), [atom, html, join(dir, 'missing.xml'), json]);
  assert.equal(lines[0]!.result!.format, 'atom1.0');
  assert.match(lines[1]!.error!, /HTML page/);
  assert.match(lines[2]!.error!, /ENOENT/);
  assert.equal(lines[3]!.result!.format, 'jsonfeed1.1');
});

test('schedule-sim runs the policy on a virtual clock and prints the metrics JSON', async () => {
  const start = Date.UTC(2026, 9, 5);
  const hour = 3_600_000;
  const items = (id: string, every: number, count: number, dates: boolean) =>
    Array.from({ length: count }, (_, i) => {
      const at = start - 10 * every + i * every;
      return { guid: `${id}-${i}`, at: new Date(at).toISOString(), date: dates ? new Date(at).toISOString() : null };
    });
  const trace = {
    start: new Date(start).toISOString(),
    end: new Date(start + 7 * 24 * hour).toISOString(),
    feeds: [
      { id: 'hourly', window: 10, ttl: null, maxAge: null, items: items('hourly', hour, 24 * 7 + 10, true) },
      { id: 'no-dates', window: 15, ttl: 30, maxAge: null, items: items('no-dates', 4 * hour, 6 * 7 + 10, false) },
    ],
  };
  const file = writeFile(dir, 'trace.json', JSON.stringify(trace));
  const result = await forest(['schedule-sim', '--trace', file]);
  assert.equal(result.code, 0, result.stderr);
  const output = JSON.parse(result.stdout) as { feeds: Array<{ id: string; times: string[]; polls: number; captured: number; missed: number; delays: number[] }> };
  assert.deepEqual(output.feeds.map((feed) => feed.id), ['hourly', 'no-dates']);
  for (const feed of output.feeds) {
    const inRange = trace.feeds.find((f) => f.id === feed.id)!.items.filter((item) => Date.parse(item.at) >= start && Date.parse(item.at) <= Date.parse(trace.end)).length;
    assert.equal(feed.captured + feed.missed, inRange);
    assert.equal(feed.missed, 0);
    assert.equal(feed.polls, feed.times.length);
    assert.equal(feed.delays.length, feed.captured);
    assert.ok(feed.delays.every((delay) => delay >= 0));
    assert.ok(feed.polls < 7 * 24 * 4, `${feed.id}: ${feed.polls} polls in a week`);
  }
  const bad = await forest(['schedule-sim', '--trace', writeFile(dir, 'bad-trace.json', '{"start": "x"}')]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /bad-trace\.json/);
});

test('--help lists the commands', async () => {
  const result = await forest(['--help']);
  for (const command of ['run', 'feeds', 'status', 'articles', 'show', 'history', 'diff', 'search', 'export', 'parse-feed', 'schedule-sim', 'demo']) assert.match(result.stdout, new RegExp(`\\b${command}\\b`));
});

test('demo archives at least 20 articles from at least 3 sites, and finds every scripted edit as one version', async () => {
  const db = join(dir, 'demo.db');
  const result = await forest(['demo', '--json', '--db', db, '--edits', '4', '--edit-every', '1s']);
  assert.equal(result.code, 0, result.stderr);
  const summary = JSON.parse(result.stdout) as {
    pages: number; sites: number; seconds: number; items: number;
    archive: { articles: number; versions: number; editsMade: number; editsSeen: number; falseVersions: number; missedEdits: number; checks: { unchanged: number } };
  };
  assert.ok(summary.pages >= 20, `${summary.pages} pages`);
  assert.ok(summary.sites >= 3, `${summary.sites} sites`);
  assert.equal(summary.pages, summary.items);
  const { archive } = summary;
  assert.equal(archive.articles, summary.pages);
  assert.deepEqual([archive.editsMade, archive.editsSeen, archive.falseVersions, archive.missedEdits], [4, 4, 0, 0]);
  assert.equal(archive.versions, archive.articles + 4);
  // Pages change on every request, yet revisits found them unchanged (how many depends on timing).
  assert.ok(archive.checks.unchanged > 0, `${archive.checks.unchanged} unchanged checks`);
});
