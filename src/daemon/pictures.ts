import { pictureDiff, type PictureChange, type PictureSide } from '../archive/diff.js';
import { decodeStoredBody, loadCodec } from '../archive/codec.js';
import type { ArticleToRevisit, RequisiteRecord, VersionPicture } from '../archive/store.js';
import { fetchRequisite, type Fetched } from '../requisites/fetch.js';
import { printPicture, samePicture, type PicturePrint } from '../requisites/picture.js';
import { nextCheck } from '../schedule/revisit.js';
import type { PipelineContext } from './context.js';

/**
 * A revisit's look at the article's pictures (issue #67, item 4). A page whose object is
 * unchanged — a 304, the same bytes, the same text — may still show a new picture at the same
 * URL (a photograph replaced, a chart redrawn). The pictures of the latest version are fetched
 * again, conditionally; new bytes are compared with the kept ones as pictures
 * (requisites/picture.ts), and a different picture makes a version of its own that keeps both,
 * its diff naming each. The same picture re-encoded (another quality or format from a CDN) is
 * none. Nothing here fails the revisit: what goes wrong is logged.
 */
export async function lookAtPictures(context: PipelineContext, article: ArticleToRevisit, signal: AbortSignal): Promise<void> {
  const { store, fetcher, requisiteFetcher, settings, log } = context;
  if (!requisiteFetcher) return;
  try {
    const latest = await store.latestPictures(article.id);
    if (!latest || !(latest.requisites ?? settings.capture.requisites.kinds).includes('images')) return;
    await loadCodec();
    const pageHost = new URL(article.url).host;
    const changes: PictureChange[] = [];
    const records: RequisiteRecord[] = [];
    const histories = await store.requisiteHistories(latest.pictures.map((picture) => picture.url));
    for (const picture of latest.pictures) {
      if (signal.aborted) return;
      const found = { url: picture.url, kind: 'image' as const, via: 'the article\'s picture' };
      // Always asked again (recheckAfter 0): this look is for a picture that changed since it was kept.
      const fetched = await fetchRequisite(new URL(picture.url).host === pageHost ? fetcher : requisiteFetcher, histories.get(picture.url) ?? null, found, signal, { ...settings.capture.requisites, recheckAfter: 0 });
      const change = fetched.body === null ? null : await compared(context, picture, fetched);
      const { text: _text, finalUrl: _finalUrl, bytes: _bytes, ...record } = fetched;
      if (change) {
        changes.push(change);
        records.push(record);
      } else {
        // Unchanged, the same picture re-encoded, or not to be had now: the version keeps the picture it had.
        records.push({ ...record, contentType: picture.contentType, body: { sha256: picture.sha256 }, error: null });
      }
    }
    if (changes.length === 0 || signal.aborted) return;
    const at = new Date();
    const n = await store.recordPictureEdit({
      articleId: article.id, basedOn: latest.versionN, at, requisites: records, diff: pictureDiff(latest.blocks, changes),
      next: nextCheck(settings.revisit, article.revisitStep, true, at.toISOString()),
    });
    if (n !== null) log.info({ url: article.url, article: article.id, version: n, pictures: changes.map((change) => change.url) }, 'revisited: pictures changed');
  } catch (error) {
    if (signal.aborted) return;
    log.warn({ url: article.url, article: article.id, error: error instanceof Error ? error.message : String(error) }, 'pictures not compared');
  }
}

/** The change from a kept picture to what its URL serves now, or null when it is the same picture. */
async function compared(context: PipelineContext, picture: VersionPicture, fetched: Fetched): Promise<PictureChange | null> {
  const body = fetched.body!;
  if (body.sha256 === picture.sha256) return null;
  const now = fetched.bytes ?? await storedBytes(context, body.sha256);
  const then = await storedBytes(context, picture.sha256);
  const [before, after] = await Promise.all([then && printPicture(then), now && printPicture(now)]);
  // Pictures that cannot be decoded are compared by their bytes (they differ).
  if (before && after && samePicture(before, after)) return null;
  return {
    url: picture.url,
    before: side(picture.sha256, picture.contentType, picture.fetchedAt, before ?? null),
    after: side(body.sha256, fetched.contentType, fetched.fetchedAt.toISOString(), after ?? null),
  };
}

async function storedBytes(context: PipelineContext, sha256: string): Promise<Buffer | null> {
  const stored = await context.store.storedBody(sha256);
  return stored ? decodeStoredBody(stored) : null;
}

const side = (sha256: string, contentType: string | null, fetchedAt: string, print: PicturePrint | null): PictureSide => ({
  sha256, contentType, fetchedAt, width: print?.width ?? null, height: print?.height ?? null,
});
