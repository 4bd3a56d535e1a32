import { z } from 'zod';
import { count, integer, nullableInteger, nullableText, text } from '../rows.js';
import { inserted, row, run, value, type Steps } from '../steps.js';
import { HAND_LIST_TITLE, HAND_LIST_URL, type PageProgress, type PageRequest } from '../model.js';

/**
 * Pages archived by hand (issue #67, item 6: `forest capture URL`, the web app's "Archive a
 * page"), on either engine. A page in no feed becomes an item of one list of its own — a feed
 * row that is never polled (`subscribed = 0`: no subscription list names it, so a sync never
 * touches it) and stays enabled — so that it is captured, extracted and revisited exactly as
 * an item's page, by the same queues.
 */

const itemState = z.object({ id: integer, page_state: text });

/** The hand list's feed (made the first time a page is added). */
function* handList(stamp: string): Steps<number> {
  yield* run(`INSERT INTO feeds (subscribed_url, url, title, tags, enabled, subscribed, next_poll_at, created_at, updated_at)
    VALUES (?, ?, ?, '[]', 1, 0, NULL, ?, ?) ON CONFLICT (subscribed_url) DO NOTHING`, [HAND_LIST_URL, HAND_LIST_URL, HAND_LIST_TITLE, stamp, stamp]);
  const id = yield* value(integer, 'SELECT id FROM feeds WHERE subscribed_url = ?', [HAND_LIST_URL], 'handList');
  if (id === undefined) throw new Error('the hand list\'s feed vanished inside its own transaction');
  return id;
}

/**
 * Pages to archive: a new one is queued for capture first (dated now, the newest item there is);
 * one that failed is tried again; one already archived is revisited now — archiving it again
 * keeps a new version only if it changed.
 */
export function* addPages(urls: string[], now: Date): Steps<PageRequest[]> {
  const stamp = now.toISOString();
  const feedId = yield* handList(stamp);
  const requests: PageRequest[] = [];
  for (const url of urls) {
    const known = yield* row(itemState, 'SELECT id, page_state FROM items WHERE feed_id = ? AND guid = ?', [feedId, url], 'addPages', { lock: true });
    if (!known) {
      const itemId = yield* inserted(`INSERT INTO items (feed_id, guid, link, published, first_seen, last_seen, page_state, page_due_at)
        VALUES (?, ?, ?, ?, ?, ?, 'pending', ?) RETURNING id`, [feedId, url, url, stamp, stamp, stamp, stamp], 'addPages');
      requests.push({ url, itemId, state: 'queued', articleId: null });
      continue;
    }
    const articleId = known.page_state === 'captured' ? yield* value(integer, 'SELECT id FROM articles WHERE item_id = ?', [known.id], 'addPages') : undefined;
    if (articleId !== undefined) {
      yield* run('UPDATE articles SET next_check_at = ? WHERE id = ?', [stamp, articleId]);
      requests.push({ url, itemId: known.id, state: 'revisit', articleId });
    } else {
      // Failed, or captured with nothing extracted: captured again.
      yield* run(`UPDATE items SET page_state = 'pending', page_attempts = 0, page_error = NULL, page_due_at = ?, last_seen = ? WHERE id = ?`, [stamp, stamp, known.id]);
      requests.push({ url, itemId: known.id, state: 'queued', articleId: null });
    }
  }
  return requests;
}

const pageProgress = z.object({
  state: text, error: nullableText, article: nullableInteger, versions: nullableInteger, lastChecked: nullableText, extracted: count, requisites: count,
}) satisfies z.ZodType<PageProgress>;

/** Where a page archived by hand stands: its capture's state, its article and versions, its first capture's requisites. */
export function* pageProgressOf(itemId: number): Steps<PageProgress | null> {
  return (yield* row(pageProgress, `SELECT items.page_state AS state, items.page_error AS error, articles.id AS article, articles.versions, articles.last_checked AS "lastChecked",
      (SELECT COUNT(*) FROM extractions WHERE extractions.snapshot_id = (SELECT MIN(snapshots.id) FROM snapshots WHERE snapshots.item_id = items.id)) AS extracted,
      (SELECT COUNT(*) FROM requisites WHERE requisites.snapshot_id = (SELECT MIN(snapshots.id) FROM snapshots WHERE snapshots.item_id = items.id)) AS requisites
    FROM items LEFT JOIN articles ON articles.item_id = items.id WHERE items.id = ?`, [itemId], 'pageProgressOf')) ?? null;
}
