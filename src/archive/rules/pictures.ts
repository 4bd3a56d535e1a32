import { normalizeUrl, normalizedObjectSchema, type NormalizedObject } from '../normalize.js';
import { json, nullableText } from '../rows.js';
import { inserted, value, type Steps } from '../steps.js';
import type { LatestPictures, PictureEdit, VersionPicture } from '../model.js';
import { addVersionRow, articleById, versionOf, type VersionRow } from './articles.js';
import { feedRequisites, recordRequisites, requisitesOf } from './requisites.js';

/**
 * An article object's pictures on either engine (issue #67, item 4): the images its object names
 * (the lead image, the figures of its content: `media` of normalize.ts) that its version's capture
 * kept as requisites. A picture is a version's by its capture; no table of its own.
 */

const objectOf = (version: VersionRow) => json(normalizedObjectSchema, version.blocks, `version ${version.n} of article ${version.article_id} (object)`);

/** The pictures of version `version` (the capture's kept images that `object`, its object, names, in the object's order). */
function* picturesOf(version: VersionRow, object: NormalizedObject): Steps<VersionPicture[]> {
  const kept = new Map<string, VersionPicture>();
  for (const requisite of yield* requisitesOf(version.snapshot_id)) {
    if (requisite.kind !== 'image' || requisite.sha256 === null) continue;
    const key = normalizeUrl(requisite.url);
    if (!kept.has(key)) kept.set(key, { url: requisite.url, sha256: requisite.sha256, contentType: requisite.contentType, fetchedAt: requisite.fetchedAt });
  }
  return object.media.flatMap((url) => kept.get(url) ?? []);
}

/** The pictures of version n of an article (none when there is no such version). */
export function* picturesOfVersion(articleId: number, n: number): Steps<VersionPicture[]> {
  const version = yield* versionOf(articleId, n);
  return version ? yield* picturesOf(version, objectOf(version)) : [];
}

/** The pictures of an article's latest version; null when the article has none kept. */
export function* latestPictures(articleId: number): Steps<LatestPictures | null> {
  const article = yield* articleById(articleId);
  const version = article ? yield* versionOf(article.id, article.versions) : undefined;
  if (!article || !version) return null;
  const object = objectOf(version);
  const pictures = yield* picturesOf(version, object);
  if (pictures.length === 0) return null;
  const kinds = feedRequisites((yield* value(nullableText, 'SELECT requisites FROM feeds WHERE id = ?', [article.feed_id], 'latestPictures')) ?? null, `feed ${article.feed_id}'s requisites`);
  return { articleId, versionN: version.n, blocks: object.blocks.length, pictures, requisites: kinds };
}

/**
 * A version made of pictures alone: the latest version's object, with the pictures fetched now.
 * Its capture is the latest version's page (the same stored bytes — the check that led here found
 * the page's object unchanged) at the time of the pictures, which are listed with it. Recorded
 * only while `basedOn` is still the latest version (a text edit meanwhile is compared again at
 * the next check); returns the new version's number, or null.
 */
export function* recordPictureEdit(edit: PictureEdit): Steps<number | null> {
  const article = yield* articleById(edit.articleId, { lock: true });
  if (!article || article.versions !== edit.basedOn) return null;
  const base = yield* versionOf(article.id, article.versions);
  if (!base) return null;
  const at = edit.at.toISOString();
  const snapshotId = yield* inserted(`INSERT INTO snapshots (item_id, url, final_url, canonical_url, fetched_at, duration_ms, status, headers, content_type, sha256, payload_digest)
    SELECT item_id, url, final_url, canonical_url, ?, 0, status, headers, content_type, sha256, payload_digest FROM snapshots WHERE id = ? RETURNING id`,
  [at, base.snapshot_id], 'recordPictureEdit');
  yield* recordRequisites(snapshotId, edit.requisites);
  return yield* addVersionRow(article, { snapshotId, capturedAt: at, method: base.method, wrapperId: base.wrapper_id, hash: base.hash }, edit.diff, edit.next);
}
