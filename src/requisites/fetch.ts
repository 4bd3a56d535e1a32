import { setMaxListeners } from 'node:events';
import type { RequisiteHistory, RequisiteKind, RequisiteRecord } from '../archive/store.js';
import { decodeStoredBody, encodeRequisite, loadCodec, type StoredBody } from '../archive/codec.js';
import { FetchError, type Fetcher, type FetchResult } from '../net/fetcher.js';
import { requisitesOfCss, type Requisite } from './discover.js';
import { compresses, fitsKind, sniffedType } from './sniff.js';

/**
 * Fetching a capture's requisites (issue #67), as carefully as the page: through their own
 * Fetcher (the address policy on every connection and redirect, their own per-host politeness —
 * a CDN serves many sites — and a byte cap per requisite), a conditional GET against the last
 * kept fetch of each URL, the bytes' type sniffed and checked against what the page wanted, a
 * budget of bytes and of time per capture, and stylesheets followed to a bounded depth. A
 * requisite that fails is recorded with its reason; it never fails the capture.
 */

/** The kinds a `capture.requisites.kinds` setting turns on. */
const KINDS_OF_SETTING: Record<'images' | 'styles' | 'media', RequisiteKind[]> = { images: ['image', 'icon'], styles: ['style', 'font'], media: ['media'] };

export interface RequisiteSettings {
  kinds: Array<'images' | 'styles' | 'media'>;
  maxBytes: number;
  maxBytesPerCapture: number;
  cssDepth: number;
  timeout: number;
  /** A requisite kept less than this long ago (ms) is listed again without a request. */
  recheckAfter: number;
  /** The pause between two requisite requests to one host (ms), the page's own host too. */
  perHostDelay: number;
}

export interface RequisiteSource {
  /** Each URL's last fetch and last kept one, read together (one round trip for a page's requisites, not one each). */
  requisiteHistories(urls: readonly string[]): Promise<Map<string, RequisiteHistory>>;
  /** Kept bytes, as stored (a stylesheet found unchanged is read again for what it refers to). */
  storedBody(sha256: string): Promise<StoredBody | null>;
}

const ACCEPT: Record<RequisiteKind, string> = {
  image: 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8',
  icon: 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8',
  style: 'text/css,*/*;q=0.1',
  font: 'font/woff2,font/woff,font/ttf,font/otf,*/*;q=0.5',
  media: 'video/*,audio/*,text/vtt,*/*;q=0.5',
};

/**
 * Who fetches a requisite: the page's own Fetcher for the page's own host — one politeness
 * budget per host, whatever is asked of it — and the requisites' Fetcher for every other host
 * (a CDN serving many sites has a budget of its own).
 */
export interface RequisiteFetchers {
  page: Fetcher;
  requisites: Fetcher;
}

/**
 * Who reads a fetched stylesheet for what it names: css-tree here and now by default; the daemon
 * hands it to its worker pool (daemon/tasks.ts, discoverTask), where it does the page's own reading.
 */
export type SheetReader = (css: string, url: string) => Requisite[] | Promise<Requisite[]>;
const readHere: SheetReader = (css, url) => requisitesOfCss(css, url);

/** A page's requisites (`page.requisites`: what it names, requisites/discover.ts), fetched: one record each, in the order they were found. */
export async function fetchRequisites(
  fetchers: RequisiteFetchers, source: RequisiteSource, page: { url: string; requisites: readonly Requisite[] }, settings: RequisiteSettings, signal?: AbortSignal,
  readSheet: SheetReader = readHere,
): Promise<RequisiteRecord[]> {
  const pageHost = new URL(page.url).host;
  const fetcherOf = (url: string) => (new URL(url).host === pageHost ? fetchers.page : fetchers.requisites);
  const wanted = new Set(settings.kinds.flatMap((kind) => KINDS_OF_SETTING[kind]));
  if (wanted.size === 0) return [];
  await loadCodec();
  const deadline = AbortSignal.timeout(settings.timeout);
  const stop = signal ? AbortSignal.any([signal, deadline]) : deadline;
  const records: Fetched[] = [];
  const seen = new Set<string>();
  let bytes = 0;
  let level: Array<Requisite & { depth: number }> = page.requisites.map((found) => ({ ...found, depth: 0 }));
  while (level.length > 0) {
    const next: Array<Requisite & { depth: number }> = [];
    const todo = level.filter((found) => wanted.has(found.kind) && !seen.has(found.url) && seen.add(found.url));
    const histories = todo.length > 0 && !stop.aborted ? await source.requisiteHistories(todo.map((found) => found.url)) : new Map<string, RequisiteHistory>();
    // One capture's requisites go out together; the Fetcher's host queue keeps each host's pace.
    // Each one waiting or in flight listens on the capture's stop signal: a gallery's thirty
    // pictures are thirty listeners by design, not a leak (Node warns past ten).
    setMaxListeners(todo.length + 10, stop);
    await Promise.all(todo.map(async (found) => {
      if (stop.aborted || bytes >= settings.maxBytesPerCapture) {
        records.push(failed(found, null, stop.aborted ? 'the capture\'s requisites ran out of time (capture.requisites.timeout)' : 'the capture\'s byte budget was spent (capture.requisites.maxBytesPerCapture)'));
        return;
      }
      const record = await shared(fetchers.requisites, found, () => fetchRequisite(fetcherOf(found.url), histories.get(found.url) ?? null, found, stop, settings));
      records.push(record);
      if (record.body && 'data' in record.body) bytes += record.body.size;
      if (found.kind === 'style' && record.body && found.depth < settings.cssDepth) {
        const { sha256 } = record.body;
        const inside = await sheetRequisites(record.finalUrl, sha256, async () => record.text ?? storedText(source, sha256), readSheet);
        next.push(...inside.map((inner) => ({ ...inner, via: `${inner.via} in ${found.url}`, depth: found.depth + 1 })));
      }
    }));
    level = next;
  }
  return records.map(({ text: _text, finalUrl: _finalUrl, bytes: _bytes, ...record }) => record);
}

/**
 * What a stylesheet refers to, by its URL and bytes: a site's stylesheet is named by every page of
 * the site, and was read and parsed for every capture (css-tree: a tenth of the daemon's main
 * thread on bench:scale). The latest SHEETS_REMEMBERED sheets are remembered; `text` is read only
 * for one that is not (a kept sheet's bytes are decoded from the archive).
 */
const SHEETS_REMEMBERED = 256;
const sheets = new Map<string, Requisite[]>();
async function sheetRequisites(url: string, sha256: string, text: () => Promise<string | null>, readSheet: SheetReader): Promise<Requisite[]> {
  const key = `${sha256} ${url}`;
  const known = sheets.get(key);
  if (known) {
    sheets.delete(key);
    sheets.set(key, known);
    return known;
  }
  const css = await text();
  if (css === null) return [];
  const found = await readSheet(css, url);
  sheets.set(key, found);
  if (sheets.size > SHEETS_REMEMBERED) sheets.delete(sheets.keys().next().value!);
  return found;
}

/** Kept bytes as text (a stylesheet found unchanged, read again for what it refers to); null when they are gone. */
async function storedText(source: RequisiteSource, sha256: string): Promise<string | null> {
  const stored = await source.storedBody(sha256);
  return stored ? decodeStoredBody(stored).toString('utf8') : null;
}

/**
 * Requisites being fetched now, per URL, for every capture whose requisites go through the same
 * Fetcher: captures fetched at once often name the same files (a site's stylesheet, a CDN's
 * fonts), and one request answers them all — as a browser's cache coalesces them. Keyed by the
 * Fetcher, so that its owner's lifetime bounds the map's.
 */
const inFlight = new WeakMap<Fetcher, Map<string, Promise<Fetched>>>();

/** `fetch` for `found`, or the same URL's fetch already under way (its record, with this page's kind and reason). */
async function shared(fetcher: Fetcher, found: Requisite, fetch: () => Promise<Fetched>): Promise<Fetched> {
  let urls = inFlight.get(fetcher);
  if (!urls) inFlight.set(fetcher, (urls = new Map()));
  const pending = urls.get(found.url);
  if (pending) {
    // The same bytes go with this capture too (stored once by their digest, whichever records first).
    return { ...(await pending), kind: found.kind, via: found.via };
  }
  const started = fetch().finally(() => urls.delete(found.url));
  urls.set(found.url, started);
  return started;
}

/** A requisite fetched, with the text of a stylesheet fetched anew and the raw bytes of what is kept anew (neither kept with the record). */
export type Fetched = RequisiteRecord & { text: string | null; finalUrl: string; bytes: Uint8Array | null };

const failed = (found: Requisite, status: number | null, error: string | null): Fetched => ({
  url: found.url, kind: found.kind, via: found.via, fetchedAt: new Date(), status, contentType: null, body: null, etag: null, lastModified: null, error, text: null, finalUrl: found.url, bytes: null,
});

/**
 * One requisite, given its URL's `history` in the archive (null: never fetched). Its last fetch,
 * when younger than `recheckAfter`, is listed again with its own time and no request made — kept
 * bytes, or a refusal that asking again would not change (a 4xx, bytes that were not what the
 * page wanted), as a browser's cache keeps both. Otherwise it is fetched, with a conditional GET
 * against its last kept fetch.
 */
export async function fetchRequisite(
  fetcher: Fetcher, history: RequisiteHistory | null, found: Requisite, signal: AbortSignal, limits: { maxBytes: number; recheckAfter: number; perHostDelay: number },
): Promise<Fetched> {
  const { maxBytes } = limits;
  const last = history?.kept ?? null;
  const recent = history !== null && Date.now() - Date.parse(history.last.fetchedAt) < limits.recheckAfter;
  if (recent && !history.last.kept && lasting(history.last)) {
    const { fetchedAt, status, contentType, error } = history.last;
    return { ...failed(found, status, error), fetchedAt: new Date(fetchedAt), contentType };
  }
  if (recent && history.last.kept && last) {
    return {
      url: found.url, kind: found.kind, via: found.via, fetchedAt: new Date(last.fetchedAt), status: last.status, contentType: last.contentType, body: { sha256: last.sha256 },
      etag: last.etag, lastModified: last.lastModified, error: null, text: null, finalUrl: found.url, bytes: null,
    };
  }
  let result: FetchResult;
  try {
    result = await fetcher.fetch(found.url, last ? { etag: last.etag, lastModified: last.lastModified } : {}, signal, { accept: ACCEPT[found.kind], maxBytes, restMs: limits.perHostDelay });
  } catch (error) {
    const message = error instanceof FetchError ? error.message : String(error);
    return failed(found, null, message);
  }
  const base = { url: found.url, kind: found.kind, via: found.via, fetchedAt: result.fetchedAt, status: result.status, etag: result.headers['etag'] ?? null, lastModified: result.headers['last-modified'] ?? null, finalUrl: result.finalUrl };
  if (result.status === 304 && last) {
    // Unchanged since the last fetch: the same bytes, listed again for this capture.
    return {
      ...base, contentType: last.contentType, body: { sha256: last.sha256 }, etag: base.etag ?? last.etag, lastModified: base.lastModified ?? last.lastModified, error: null,
      text: null, bytes: null,
    };
  }
  if (result.status < 200 || result.status >= 300) return { ...base, contentType: null, body: null, error: `HTTP ${result.status}`, text: null, bytes: null };
  const type = sniffedType(result.body, result.contentType);
  if (!fitsKind(found.kind, type)) return { ...base, contentType: type, body: null, error: `not ${found.kind === 'image' || found.kind === 'icon' ? 'an image' : `a ${found.kind}`}: ${type ?? 'empty'}`, text: null, bytes: null };
  // A stylesheet is CSS whatever the server called it (a sheet served as text/plain still styles the page it was for).
  const contentType = found.kind === 'style' ? 'text/css' : type;
  return {
    ...base, contentType, body: encodeRequisite(result.body, compresses(contentType)), error: null,
    text: found.kind === 'style' ? result.body.toString('utf8') : null, bytes: result.body,
  };
}

/**
 * A failure asking again soon would not change: the server's 4xx, bytes that were not what the
 * page wanted, a body past the cap, a host the DNS says does not exist (resolvers cache that
 * answer too: RFC 2308) — not a timeout, a failed lookup, a refused address, or a 5xx.
 */
const lasting = (fetch: RequisiteHistory['last']): boolean =>
  (fetch.status !== null && fetch.status >= 400 && fetch.status < 500)
  || (fetch.status !== null && fetch.status < 300 && (fetch.error?.startsWith('not ') ?? false))
  || (fetch.error?.includes('larger than') ?? false)
  || (fetch.error?.startsWith('host not found: ') ?? false);
