import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { z } from 'zod';
import { fillMonth } from '../../bench/scale/history.js';
import { MONTH_MS, MONTH_OPTIONS, publications, ratePerDay, shownAt } from '../../bench/scale/month.js';
import { loadCodec } from '../../src/archive/codec.js';
import { openStore } from '../../src/archive/sqlite/store.js';
import { loadSettings } from '../../src/config/settings.js';

const EPOCH = Date.UTC(2026, 11, 2, 12);

test('the month feeds: heavy-tailed rates, about a million items a month at 100,000 feeds, the same wherever computed', () => {
  const feeds = 100_000;
  const rates = Array.from({ length: feeds }, (_, feed) => ratePerDay(feed, feeds)).sort((a, b) => a - b);
  const median = rates[feeds / 2]!;
  // Most feeds publish less than daily; a few hundred many times a day.
  assert.ok(median > 0.05 && median < 0.2, `median ${median}`);
  const live = rates.filter((rate) => rate >= MONTH_OPTIONS.liveRatePerDay[0]).length;
  assert.ok(live >= 300 && live < 400, `${live} feeds publish a dozen items a day or more`);
  let month = 0;
  for (let feed = 0; feed < feeds; feed += 10) month += publications(feed, feeds, EPOCH, EPOCH).filter((at) => at >= EPOCH - MONTH_MS).length;
  // Every tenth feed, the live ones' share included (feeds 0, 10, … 290 of the first 300).
  assert.ok(month * 10 > 700_000 && month * 10 < 1_400_000, `about ${month * 10} items a month`);
  assert.deepEqual(publications(7, feeds, EPOCH, EPOCH + 3_600_000), publications(7, feeds, EPOCH, EPOCH + 3_600_000));
  // A later end only adds items after the earlier one.
  const shorter = publications(3, feeds, EPOCH, EPOCH);
  assert.deepEqual(publications(3, feeds, EPOCH, EPOCH + 86_400_000).slice(0, shorter.length), shorter);
});

test('a feed document shows its newest items published by then, newest first', () => {
  const times = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120];
  assert.deepEqual(shownAt(times, 5), []);
  assert.deepEqual(shownAt(times, 35), [2, 1, 0]);
  assert.deepEqual(shownAt(times, 1000), [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
});

test('a month of history, written through the store, is an archive forest check finds consistent and the daemon can go on from', async () => {
  await loadCodec();
  const dir = mkdtempSync(join(tmpdir(), 'forest-month-'));
  const store = openStore(join(dir, 'forest.db'), { create: true });
  try {
    // Two sites of two made-up pages each: the filler extracts each page once.
    const page = (site: number, n: number) => Buffer.from(`<!doctype html><html><head><title>Story ${site}-${n}</title></head><body><nav>Home News Sport</nav>
<article><h1>Story ${site}-${n}</h1>${Array.from({ length: 6 }, (_, p) => `<p>Paragraph ${p} of story ${site}-${n} says something worth reading about the city council and its budget.</p>`).join('')}</article>
<footer>Contact us</footer></body></html>`);
    const feeds = Array.from({ length: 12 }, (_, feed) => `http://127.0.0.${1 + (feed % 3)}:8/feeds/${feed}.xml`);
    const fill = await fillMonth(store, {
      feeds, hosts: 3, sites: [[page(0, 0), page(0, 1)], [page(1, 0), page(1, 1)]], cdn: 'http://127.0.255.1:8', epoch: EPOCH, settings: loadSettings(),
    });
    const { db } = store;
    const count = (sql: string) => z.number().parse(db.prepare(sql).pluck().get());
    // Every item published by its feed's last poll was seen and captured (none scrolled out: a quiet feed shows ten).
    const lastPoll = (url: string) => Date.parse(z.string().parse(db.prepare('SELECT MAX(started_at) FROM polls JOIN feeds ON feeds.id = polls.feed_id WHERE feeds.url = ?').pluck().get(url)));
    const expected = feeds.reduce((sum, url, feed) => sum + publications(feed, feeds.length, EPOCH, lastPoll(url)).length, 0);
    assert.equal(fill.articles, expected);
    assert.ok(fill.polls > feeds.length * MONTH_OPTIONS.days * 0.5, `${fill.polls} polls in a month of ${feeds.length} feeds`);
    assert.ok(fill.notModified > 0 && fill.revisits > fill.articles, `${fill.notModified} not modified, ${fill.revisits} revisits`);
    assert.equal(count('SELECT COUNT(*) FROM articles'), expected);
    assert.equal(count('SELECT COUNT(*) FROM versions'), expected, 'a revisit that found the page unchanged made no version');
    assert.equal(count("SELECT COUNT(*) FROM items WHERE page_state <> 'captured'"), 0);
    // Whatever the month planned is at or after its end: the daemon takes over from there.
    assert.equal(count(`SELECT COUNT(*) FROM feeds WHERE next_poll_at < '${new Date(EPOCH).toISOString()}'`), 0);
    assert.equal(count(`SELECT COUNT(*) FROM articles WHERE next_check_at < '${new Date(EPOCH).toISOString()}'`), 0);
    assert.equal(count('SELECT COUNT(*) FROM feeds WHERE schedule_state IS NULL'), 0);
    const problems = (await store.verify()).flatMap((check) => check.problems);
    assert.deepEqual(problems, []);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
