import { addVersion, articleById, createArticle } from '../../src/archive/rules/articles.js';
import { syncSubscriptions } from '../../src/archive/rules/feeds.js';
import { runOn } from '../../src/archive/sqlite/sql.js';
import { encodeBody } from '../../src/archive/codec.js';
import { diffObjects } from '../../src/archive/diff.js';
import { upsertItems } from '../../src/archive/rules/items.js';
import { normalizeArticle, objectHash } from '../../src/archive/normalize.js';
import { packContent } from '../../src/archive/packed-content.js';
import { recordCapture } from '../../src/archive/rules/captures.js';
import { openStore, type SqliteStore } from '../../src/archive/sqlite/store.js';
import { EXTRACTOR_VERSION } from '../../src/extract/extract.js';

/** The first time of the archive; article i is first captured i minutes later. */
export const ARCHIVE_START = Date.parse('2026-11-02T00:00:00Z');

/**
 * A small archive written through src/archive's own functions (loadCodec() first): one feed
 * (`https://a.example/feed`, tagged news), `titles.length` articles captured a minute apart —
 * article 1 by Ann Lee, with a second version whose second paragraph was edited.
 */
/**
 * `firstPageExtra` is added to the first capture of article 1 (its raw page); `latestHtmlExtra`
 * to the HTML of its second version, as if extraction had let it through.
 */
/** `links[i]`, where given, is article i + 1's URL (its item's link and the page's) instead of `https://a.example/<i + 1>`. */
/** `everyPageExtra` is added to every capture's raw page (a requisite the test stores: an image). */
export function smallArchive(path: string, titles: string[] = ['One'], options: { firstPageExtra?: string; latestHtmlExtra?: string; links?: string[]; everyPageExtra?: string } = {}): SqliteStore {
  const link = (n: number) => options.links?.[n - 1] ?? `https://a.example/${n}`;
  const store = openStore(path, { create: true });
  const { db } = store;
  runOn(db, syncSubscriptions([{ url: 'https://a.example/feed', title: 'A', tags: ['news'], enabled: true }]));
  const at = (minutes: number) => new Date(ARCHIVE_START + minutes * 60_000);
  const items = titles.map((title, i) => ({ guid: `g${i + 1}`, link: link(i + 1), title, summary: null, published: null, updated: null, author: null, categories: [], enclosures: [], content: null, origLink: null }));
  runOn(db, upsertItems(1, items, at(0), true));
  const capture = (itemId: number, when: Date, html: string, extra = '') => {
    const body = Buffer.from(`<html><head><title>${titles[itemId - 1] ?? ''}</title></head><body>${html}${extra}${options.everyPageExtra ?? ''}</body></html>`);
    return runOn(db, recordCapture(itemId, {
      url: link(itemId), finalUrl: link(itemId), status: 200, headers: {}, contentType: 'text/html',
      redirects: [], permanentUrl: null, notModified: false, retryAfterMs: null, fetchedAt: when, durationMs: 5,
    }, encodeBody(body)));
  };
  const content = (snapshotId: number, when: Date, title: string, html: string) => {
    const object = normalizeArticle({ title, byline: 'Ann Lee', published: null, html });
    return { snapshotId, capturedAt: when.toISOString(), method: 'sigfeed', wrapperId: null, title, byline: 'Ann Lee', published: null, text: html.replace(/<[^>]+>/g, ' ').trim(), html, object, hash: objectHash(object), extractor: EXTRACTOR_VERSION, source: null, packed: packContent(html, object) };
  };
  const first = '<p>First paragraph of the story.</p><p>The mayor said no.</p>';
  titles.forEach((title, i) => {
    const when = at(i + 1);
    const snapshotId = capture(i + 1, when, first, i === 0 ? options.firstPageExtra : '');
    runOn(db, createArticle({ itemId: i + 1, feedId: 1, url: link(i + 1), finalUrl: link(i + 1), canonicalUrl: null },
      content(snapshotId, when, title, first), { at: when.toISOString(), status: 200, snapshotId }, { step: 1, at: at(600).toISOString() }));
  });
  const edited = '<p>First paragraph of the story.</p><p>The mayor said yes.</p>';
  const when = at(titles.length + 5);
  const snapshotId = capture(1, when, edited);
  const before = content(1, at(1), titles[0]!, first);
  const after = content(snapshotId, when, titles[0]!, `${edited}${options.latestHtmlExtra ?? ''}`);
  runOn(db, addVersion(runOn(db, articleById(1))!, after, diffObjects(before.object, after.object), { at: when.toISOString(), status: 200, snapshotId }, { step: 2, at: null }, null));
  return store;
}
