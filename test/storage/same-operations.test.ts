import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { encodeBody, loadCodec } from '../../src/archive/codec.js';
import { diffObjects } from '../../src/archive/diff.js';
import { normalizeArticle, objectHash } from '../../src/archive/normalize.js';
import { openArchive } from '../../src/archive/open-archive.js';
import { packContent } from '../../src/archive/packed-content.js';
import type { FetchedPage, Store, VersionContent, VersionDecision } from '../../src/archive/store.js';
import { EXTRACTOR_VERSION, type ArticleObject } from '../../src/extract/extract.js';
import type { FeedItem } from '../../src/feeds/model.js';
import { seededRandom } from '../../src/util/random.js';
import { startCluster } from '../helpers/pg-cluster.js';
import { tempDir } from '../helpers/temp.js';

/*
 * Same operations, same archive (issue #66 item 4): one generated sequence of store operations —
 * subscribe and unsubscribe, pause, poll (new items, changed items, repeated guids), capture
 * (some fail), extract (first versions), revisit (edits, unchanged checks, pages gone), retention
 * — run through the Store contract on SQLite and on PostgreSQL, then every table both engines
 * share compared row for row. A rule that one engine applies differently (a predicate, a
 * decision, a transaction step) leaves a row that differs.
 */

before(() => loadCodec());
const cluster = startCluster();

const T0 = Date.parse('2026-11-02T00:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const FEEDS = ['https://a.example/feed', 'https://b.example/feed', 'https://c.example/feed'];
const page = (url: string, when: Date): FetchedPage => ({
  url, finalUrl: url, status: 200, headers: { 'content-type': 'text/html' }, contentType: 'text/html', redirects: [], permanentUrl: null,
  notModified: false, retryAfterMs: null, fetchedAt: when, durationMs: 7,
});
const feedDocument = (items: FeedItem[]) => ({
  format: 'rss2.0' as const, warnings: [], items,
  feed: { title: 'A feed', link: 'https://a.example/', description: null, language: null, updated: null, ttl: null, skipHours: [], skipDays: [], updatePeriod: null, updateFrequency: null, image: null, hub: null, self: null, prevArchive: null, nextPage: null, generator: null },
});

function content(snapshotId: number, when: Date, title: string, paragraphs: string[]): { version: VersionContent; article: ArticleObject } {
  const html = paragraphs.map((text) => `<p>${text}</p>`).join('');
  const object = normalizeArticle({ title, byline: null, published: null, html });
  const text = paragraphs.join('\n');
  return {
    version: { snapshotId, capturedAt: when.toISOString(), method: 'sigfeed', wrapperId: null, title, byline: null, published: null, text, html, object, hash: objectHash(object), extractor: EXTRACTOR_VERSION, source: null, packed: packContent(html, object) },
    article: { title, byline: null, published: null, modified: null, html, text, leadImage: null, language: 'en', method: 'sigfeed', wrapper: null, reason: null, source: null },
  };
}

/** Plays `steps` operations drawn from `seed` on `store`: the same sequence whatever the engine. */
async function play(store: Store, seed: number, steps: number): Promise<void> {
  const draw = seededRandom(seed);
  // Each step draws its numbers up front: how many it uses must not depend on what the engine answered.
  let drawn: number[] = [];
  const random = () => drawn.pop() ?? 0.5;
  // What the test fed each article last (its paragraphs), to decide edits as the daemon would.
  const texts = new Map<number, string[]>();
  let minute = 0;
  for (let step = 0; step < steps; step++) {
    drawn = Array.from({ length: 40 }, draw);
    minute += 1 + Math.floor(random() * 20);
    const now = at(minute);
    const roll = random();
    if (step === 0 || roll < 0.08) {
      await store.syncSubscriptions(FEEDS.filter((_, i) => step === 0 || i === 0 || random() < 0.8).map((url) => ({ url, title: null, tags: random() < 0.5 ? ['news'] : [], enabled: random() < 0.85 })));
    } else if (roll < 0.4) {
      const [due] = await store.duePolls(now, 1);
      const feeds = await store.feeds();
      const feed = due ? feeds.find((candidate) => candidate.id === due.id) : feeds.find((candidate) => candidate.enabled);
      if (!feed) continue;
      const items = Array.from({ length: 1 + Math.floor(random() * 4) }, () => {
        const n = Math.floor(random() * 12);
        return { guid: `${feed.id}-${n}`, title: `Story ${n}${random() < 0.2 ? ' (updated)' : ''}`, link: `${new URL(feed.url).origin}/${n}`, origLink: null, published: at(minute - n).toISOString(), updated: null, author: null, summary: null, content: null, categories: [], enclosures: [] } satisfies FeedItem;
      });
      // A poll that found the feed (with or without validators), one the server said had not changed, or one that failed.
      const outcome = random();
      const validators: Record<string, string> = random() < 0.5 ? { etag: `"${minute}"`, 'last-modified': now.toUTCString() } : {};
      const schedule = { nextPollAt: at(minute + 30), reason: 'test', state: '{}', ratePerHour: null, window: null, maxAgeSeconds: random() < 0.3 ? 600 : null, riskAt: random() < 0.5 ? at(minute + 20) : null };
      const poll = outcome < 0.7
        ? { result: 'ok' as const, fetch: { ...page(feed.url, now), headers: { ...page(feed.url, now).headers, ...validators }, bytes: 500 }, parsed: feedDocument(items), error: null }
        : outcome < 0.8
          ? { result: 'not-modified' as const, fetch: { ...page(feed.url, now), status: 304, notModified: true, bytes: 0 }, parsed: null, error: null }
          : { result: 'error' as const, fetch: null, parsed: null, error: 'connect ECONNREFUSED' };
      await store.recordPoll({ id: feed.id, url: feed.url }, {
        startedAt: now, durationMs: 5, ...poll, schedule, capturePages: true, revisitChangedItemsAt: random() < 0.5 ? now : null,
      });
    } else if (roll < 0.7) {
      for (const ref of await store.dueCaptures(now, 3)) {
        if (random() < 0.15) {
          await store.recordCaptureFailure(ref.id, 'HTTP 503', at(minute + 10), 3);
          continue;
        }
        const snapshotId = await store.recordCapture(ref.id, page(ref.url, now), encodeBody(Buffer.from(`<html><body><p>${ref.url}</p></body></html>`)));
        const capture = (await store.storedCapture(snapshotId))!;
        const paragraphs = [`About ${ref.url}.`, `Said at ${minute}.`];
        const made = content(snapshotId, now, `Story at ${ref.url}`, paragraphs);
        await store.recordExtraction(capture, { template: { signature: ['html', 'body'] }, canonicalUrl: null, wrapperId: null, article: made.article, hash: made.version.hash }, { rebasedKey: null, countsForTemplate: true },
          (article): VersionDecision => {
            if (article) return { kind: 'check', result: 'unchanged', page: { at: now.toISOString(), status: 200, snapshotId }, next: { step: article.revisitStep, at: at(minute + 60).toISOString() }, reason: 'captured again' };
            return { kind: 'first', article: { itemId: capture.itemId, feedId: capture.feedId, url: capture.url, finalUrl: capture.finalUrl, canonicalUrl: null }, content: made.version, page: { at: now.toISOString(), status: 200, snapshotId }, next: { step: 1, at: at(minute + 15).toISOString() } };
          });
      }
    } else if (roll < 0.95) {
      for (const ref of await store.dueRevisits(now, 2)) {
        const kind = random();
        if (kind < 0.15) {
          await store.recordRevisit(ref.id, { ...page(ref.url, now), status: 410 }, { kind: 'gone', body: null, next: { step: 2, at: at(minute + 45).toISOString() } });
          continue;
        }
        const before = texts.get(ref.id) ?? [`About ${ref.url}.`, 'first'];
        const edited = kind < 0.55;
        const paragraphs = edited ? [before[0]!, `Edited at ${minute}.`] : before;
        const snapshotId = await store.recordRevisit(ref.id, page(ref.url, now), { kind: 'extract', body: encodeBody(Buffer.from(`<html><body>${paragraphs.join(' ')}</body></html>`)) });
        const capture = (await store.storedCapture(snapshotId))!;
        const made = content(snapshotId, now, `Story at ${ref.url}`, paragraphs);
        const latest = (await store.versions(ref.id)).at(-1)!;
        await store.recordExtraction(capture, { template: null, canonicalUrl: null, wrapperId: null, article: made.article, hash: made.version.hash }, { rebasedKey: null, countsForTemplate: false },
          (state): VersionDecision => {
            const next = { step: (state?.revisitStep ?? 0) + 1, at: random() < 0.8 ? at(minute + 40).toISOString() : null };
            if (latest.hash === made.version.hash) return { kind: 'check', result: 'unchanged', page: { at: now.toISOString(), status: 200, snapshotId }, next, reason: 'same object' };
            return { kind: 'edit', content: made.version, diff: diffObjects(latest.object, made.version.object), page: { at: now.toISOString(), status: 200, snapshotId }, next, reason: null };
          });
        texts.set(ref.id, paragraphs);
      }
    } else {
      await store.applyRetention({ polls: 120 * 60_000, checks: 240 * 60_000 }, now);
    }
  }
}

/**
 * Columns left out of the comparison: those stamped with the time of the write, not of the
 * operation (they differ between any two runs), and polls.id — retention deletes polls, and
 * SQLite gives a freed top id out again where PostgreSQL's sequence never does.
 */
const WALL_CLOCK = new Set(['feeds.created_at', 'feeds.updated_at', 'templates.created_at', 'extractions.extracted_at', 'polls.id']);

/** Tables of one engine alone (test/storage/schema.test.ts says why), and the migrations' own record. */
const NOT_SHARED = new Set(['claims', 'daemons', 'hosts', 'schema_migrations', 'leases', 'version_documents']);

/** A value as both engines' drivers give it back: numbers as numbers (pg gives a bigint as text), bytes as base64. */
function plain(value: unknown, integer: boolean): unknown {
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (integer && typeof value === 'string') return Number(value);
  if (typeof value === 'bigint') return Number(value);
  return value;
}

async function sqliteRows(path: string): Promise<Map<string, string[]>> {
  const db = new Database(path, { readonly: true });
  try {
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'version_search%'").pluck().all() as string[]).filter((table) => !NOT_SHARED.has(table));
    return new Map(tables.map((table) => [table, (db.prepare(`SELECT * FROM "${table}"`).all() as Array<Record<string, unknown>>)
      .map((row) => JSON.stringify(Object.entries(row).filter(([column]) => !WALL_CLOCK.has(`${table}.${column}`)).sort(([a], [b]) => a.localeCompare(b)).map(([column, value]) => [column, plain(value, false)]))).sort()]));
  } finally {
    db.close();
  }
}

async function postgresRows(url: string): Promise<Map<string, string[]>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = ((await client.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).rows as Array<{ tablename: string }>).map((row) => row.tablename).filter((table) => !NOT_SHARED.has(table));
    const out = new Map<string, string[]>();
    for (const table of tables) {
      const result = await client.query(`SELECT * FROM "${table}"`);
      const integers = new Set(result.fields.filter((field) => field.dataTypeID === 20).map((field) => field.name));
      out.set(table, (result.rows as Array<Record<string, unknown>>).map((row) => JSON.stringify(Object.entries(row).filter(([column]) => !(table === 'contents' && column === 'search') && !WALL_CLOCK.has(`${table}.${column}`))
        .sort(([a], [b]) => a.localeCompare(b)).map(([column, value]) => [column, plain(value, integers.has(column))]))).sort());
    }
    return out;
  } finally {
    await client.end();
  }
}

/** The first rows that differ, table by table: what a reader needs to find the rule that drifted. */
function differences(a: Map<string, string[]>, b: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const table of new Set([...a.keys(), ...b.keys()])) {
    const left = a.get(table) ?? [];
    const right = b.get(table) ?? [];
    if (!a.has(table) || !b.has(table)) out.push(`${table}: only on ${a.has(table) ? 'SQLite' : 'PostgreSQL'}`);
    const onlyLeft = left.filter((row) => !right.includes(row));
    const onlyRight = right.filter((row) => !left.includes(row));
    if (onlyLeft.length || onlyRight.length) out.push(`${table}: ${left.length} rows on SQLite, ${right.length} on PostgreSQL; SQLite alone: ${onlyLeft[0] ?? '—'}; PostgreSQL alone: ${onlyRight[0] ?? '—'}`);
  }
  return out;
}

for (const seed of [1, 2, 3]) {
  test(`seed ${seed}: the same generated operations leave the same rows on SQLite and on PostgreSQL`, async () => {
    const file = join(tempDir(), 'forest.db');
    const url = await cluster.createDatabase(`same_${seed}`);
    // What the scheduler asks after the sequence, too: the same answers.
    const answers: unknown[] = [];
    for (const store of [await openArchive({ path: file, maxSize: 'unlimited' }, { create: true }), await openArchive({ path: '', maxSize: 'unlimited', url })]) {
      try {
        await play(store, seed, 160);
        assert.deepEqual((await store.verify()).filter((check) => check.problems.length > 0), [], 'forest check finds nothing wrong');
        const later = at(3000);
        answers.push({
          nextWorkAt: await store.nextWorkAt({ capture: true, revisit: true }), backlog: await store.backlog(later),
          due: [await store.duePolls(later, 50), await store.dueCaptures(later, 50), await store.dueRevisits(later, 50)],
        });
      } finally {
        await store.close();
      }
    }
    assert.deepEqual(answers[1], answers[0], 'PostgreSQL answers the scheduler as SQLite does');
    const [sqlite, postgres] = [await sqliteRows(file), await postgresRows(url)];
    // Polls are summarised by retention as the sequence goes on: the feeds' counters say what their polls were.
    const feedRows = sqlite.get('feeds') ?? [];
    assert.ok(feedRows.some((row) => !row.includes('["error_count",0]')) && feedRows.some((row) => !row.includes('["etag",null]')), 'the sequence made failed polls and polls with validators');
    assert.ok((sqlite.get('versions')?.length ?? 0) > 5 && (sqlite.get('checks')?.length ?? 0) > 5, `the sequence made versions and checks: ${sqlite.get('versions')?.length}, ${sqlite.get('checks')?.length}`);
    assert.deepEqual(differences(sqlite, postgres), []);

    // Each article's count of checks (what status sums) is of the checks stored, after retention
    // deleted some; `forest check` on each engine agrees, and sees one count made wrong.
    const counted = (rows: string[]) => rows.reduce((sum, row) => sum + Number(/\["checks",(\d+)\]/.exec(row)?.[1]), 0);
    assert.ok((sqlite.get('check_days') ?? []).length > 0, 'retention summarised checks in the sequence');
    assert.equal(counted(sqlite.get('articles') ?? []), (sqlite.get('checks') ?? []).length);
    const sqliteDb = new Database(file);
    sqliteDb.prepare('UPDATE articles SET checks = checks + 1 WHERE id = (SELECT MIN(id) FROM articles)').run();
    sqliteDb.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('UPDATE articles SET checks = checks + 1 WHERE id = (SELECT MIN(id) FROM articles)');
    await client.end();
    for (const store of [await openArchive({ path: file, maxSize: 'unlimited' }), await openArchive({ path: '', maxSize: 'unlimited', url })]) {
      try {
        assert.deepEqual((await store.verify()).filter((check) => check.problems.length > 0), [{ name: 'counts of checks', problems: ['1 article whose count of checks differs from the checks stored'] }]);
      } finally {
        await store.close();
      }
    }
  });
}
