import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Memento, WebArchive } from '../archive/store.js';
import { Problem } from './problems.js';
import { decodeBody } from '../net/charset.js';
import { isHtmlType } from '../requisites/discover.js';
import { replayableCss, replayableHtml, type RequisiteLink } from '../requisites/rewrite.js';
import { originalCandidates, uriReference } from './uri.js';

/**
 * Memento (RFC 7089): "what did this URL say at time T", the way web archives answer it, so that
 * replay and research tools can ask Forest. A capture's original URL is what Forest fetched: the
 * URL it requested or the one its redirects led to — never what the page says of itself (its
 * canonical link is the page's claim, and any page can claim any URL). Its mementos are the
 * captures whose bytes Forest kept.
 * - TimeMap: /timemap/link/{url} (application/link-format) and /timemap/json/{url};
 * - TimeGate: /timegate/{url}, honouring Accept-Datetime (the nearest memento; the latest without);
 * - Memento: /memento/{YYYYMMDDhhmmss}/{url}, the capture as fetched, sandboxed.
 * The original URL is everything after the prefix, query string included (RFC 7089 appendix).
 */

/** `20261102000100` for 2026-11-02T00:01:00Z: the 14-digit stamp of memento URLs. */
export const stamp = (iso: string) => iso.replace(/[-:T]/g, '').slice(0, 14);
const fromStamp = (text: string) => Date.parse(`${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}T${text.slice(8, 10)}:${text.slice(10, 12)}:${text.slice(12, 14)}Z`);
const httpDate = (iso: string) => new Date(iso).toUTCString();

/** What follows `prefix` in the request's URL, as sent. */
function originalOf(request: FastifyRequest, prefix: string): string {
  const original = request.url.slice(prefix.length);
  if (!/^https?:\/\/[^/]/i.test(original)) throw new Problem(400, 'Not an original URL', `expected ${prefix}http(s)://…, got ${prefix}${original}`);
  return original;
}

/** The memento nearest to `at` (ms); ties go to the earlier. */
function nearest(mementos: Memento[], at: number): Memento {
  return mementos.reduce((best, memento) => (Math.abs(Date.parse(memento.datetime) - at) < Math.abs(Date.parse(best.datetime) - at) ? memento : best));
}

/** The mementos of the URL a request names, and that URL as stored (a request may name it percent-encoded: uri.ts). */
async function mementosOf(store: WebArchive, sent: string): Promise<{ original: string; mementos: Memento[] }> {
  for (const original of originalCandidates(sent)) {
    const mementos = await store.mementos(original);
    if (mementos.length > 0) return { original, mementos };
  }
  throw new Problem(404, 'Not archived', `Forest has no capture of ${sent}`);
}

/** Link targets are URI-references (RFC 8288 §3): a stored URL is percent-encoded so it cannot close the `<…>`. */
const links = (original: string) => ({
  original: `<${uriReference(original)}>; rel="original"`,
  timegate: `<${uriReference(`/timegate/${original}`)}>; rel="timegate"`,
  timemap: `<${uriReference(`/timemap/link/${original}`)}>; rel="timemap"; type="application/link-format"`,
});
const mementoPath = (original: string, memento: Memento) => uriReference(`/memento/${stamp(memento.datetime)}/${original}`);
const mementoLink = (original: string, memento: Memento, rel: string) => `<${mementoPath(original, memento)}>; rel="${rel}"; datetime="${httpDate(memento.datetime)}"`;

/** The original URL a capture route's path (without its query-less prefix) addresses, or null for any other path. */
export function capturePathOriginal(path: string): string | null {
  const match = /^\/(?:memento\/\d{14}(?:(?:im|cs|id)_)?|timegate|timemap\/(?:link|json))\/(https?:\/\/.+)$/i.exec(path);
  return match ? match[1]! : null;
}

/**
 * A capture is someone else's page: it is served with a sandbox policy (no script runs, and it
 * gets an opaque origin of its own, so it cannot reach this server's pages or API as the reader),
 * and without loading anything from the live web.
 */
const CAPTURE_POLICY = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; font-src 'self' data:; media-src 'self'";

/**
 * The Memento routes. On the capture origin, `frameAncestors` (the app's origins) is who may
 * frame a capture. On the app's, `captureLink` leads each memento to the capture origin: the app
 * never serves archived bytes.
 */
export function mementoRoutes(
  app: FastifyInstance, store: WebArchive,
  where: { frameAncestors: () => string[]; ticketFor?: ((original: string) => string) | null } | { captureLink: (path: string, original: string) => string },
): void {
  app.get('/timemap/link/*', { schema: { hide: true } }, async (request, reply) => {
    const { original, mementos } = await mementosOf(store, originalOf(request, '/timemap/link/'));
    const own = links(original);
    const lines = [own.original, `<${uriReference(`/timemap/link/${original}`)}>; rel="self"; type="application/link-format"; from="${httpDate(mementos[0]!.datetime)}"; until="${httpDate(mementos.at(-1)!.datetime)}"`, own.timegate,
      ...mementos.map((memento, i) => mementoLink(original, memento, [i === 0 ? 'first' : '', i === mementos.length - 1 ? 'last' : '', 'memento'].filter(Boolean).join(' ')))];
    return reply.type('application/link-format').send(`${lines.join(',\n')}\n`);
  });

  app.get('/timemap/json/*', { schema: { hide: true } }, async (request) => {
    const { original, mementos } = await mementosOf(store, originalOf(request, '/timemap/json/'));
    return {
      original_uri: original, timegate_uri: `/timegate/${original}`,
      timemap_uri: { link_format: `/timemap/link/${original}`, json_format: `/timemap/json/${original}` },
      mementos: { first: { datetime: mementos[0]!.datetime, uri: `/memento/${stamp(mementos[0]!.datetime)}/${original}` }, last: { datetime: mementos.at(-1)!.datetime, uri: `/memento/${stamp(mementos.at(-1)!.datetime)}/${original}` },
        list: mementos.map((memento) => ({ datetime: memento.datetime, uri: `/memento/${stamp(memento.datetime)}/${original}` })) },
    };
  });

  app.get('/timegate/*', { schema: { hide: true } }, async (request, reply) => {
    const { original, mementos } = await mementosOf(store, originalOf(request, '/timegate/'));
    const asked = [request.headers['accept-datetime'] ?? []].flat()[0];
    const at = asked === undefined ? null : Date.parse(asked);
    if (at !== null && Number.isNaN(at)) throw new Problem(400, 'Bad Accept-Datetime', `not an HTTP date: ${asked} (e.g. Tue, 03 Nov 2026 12:00:00 GMT)`);
    const chosen = at === null ? mementos.at(-1)! : nearest(mementos, at);
    const own = links(original);
    return reply.code(302).header('vary', 'accept-datetime').header('location', mementoPath(original, chosen))
      .header('link', [own.original, own.timemap, mementoLink(original, chosen, 'memento')].join(', ')).send();
  });

  app.get<{ Params: { stamp: string } }>('/memento/:stamp/*', { schema: { hide: true } }, async (request, reply) => {
    const match = /^(\d{14})(?:(im|cs|id)_)?$/.exec(request.params.stamp);
    if (!match) throw new Problem(400, 'Bad datetime', `a memento URL starts /memento/YYYYMMDDhhmmss/ (or …im_/, cs_/, id_/), got ${request.params.stamp}`);
    const asked = match[1]!;
    const modifier = (match[2] ?? null) as Modifier;
    const sent = originalOf(request, `/memento/${request.params.stamp}/`);
    if ('captureLink' in where) return reply.code(302).header('location', where.captureLink(request.url, sent)).send();
    const ticketFor = where.ticketFor ?? null;
    const link: RequisiteLink = (url, kind) => `${ticketFor ? `/t/${ticketFor(url)}` : ''}/memento/${asked}${kind === 'style' ? 'cs' : 'im'}_/${url}`;
    if (modifier === 'im' || modifier === 'cs') return serveRequisite(reply, store, sent, asked, modifier, link, where.frameAncestors());
    const { original, mementos } = await mementosOf(store, sent);
    const exact = mementos.findIndex((memento) => stamp(memento.datetime) === asked);
    // No capture at that second: the nearest one, at its own URL (as web archives do).
    if (exact < 0) return reply.code(302).header('location', mementoPath(original, nearest(mementos, fromStamp(asked)))).send();
    return serveCapture(reply, store, original, mementos, exact, where.frameAncestors(), modifier === 'id' ? null : link);
  });
}

/** Memento URL modifiers, as pywb names them: `im_` an image, font or medium, `cs_` a stylesheet (both a page's requisites), `id_` the page's bytes as fetched. */
type Modifier = 'im' | 'cs' | 'id' | null;

/**
 * A requisite at the capture nearest in time to the page's (issue #67), from the archive only: a
 * requisite Forest did not keep is a 404, never a request to the live web. A stylesheet is served
 * with its own requisites' URLs rewritten.
 */
async function serveRequisite(reply: FastifyReply, store: WebArchive, url: string, asked: string, modifier: 'im' | 'cs', link: RequisiteLink, frameAncestors: string[]): Promise<FastifyReply> {
  let found = null;
  for (const candidate of originalCandidates(url)) {
    found = await store.requisiteAt(candidate, new Date(fromStamp(asked)));
    if (found) break;
  }
  if (!found) throw new Problem(404, 'Not archived', `Forest kept no copy of ${url}`);
  const isStyle = modifier === 'cs' || found.contentType === 'text/css';
  const body = isStyle ? replayableCss(found.body.toString('utf8'), found.url, link) : found.body;
  return reply.code(200)
    .header('memento-datetime', httpDate(found.fetchedAt))
    .header('content-security-policy', `${CAPTURE_POLICY}; frame-ancestors ${frameAncestors.join(' ') || "'self'"}`)
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'public, max-age=86400, immutable')
    // The capture asking for it is sandboxed: its origin is opaque, never this one (see CAPTURE_POLICY).
    .header('cross-origin-resource-policy', 'cross-origin')
    .type(isStyle ? 'text/css; charset=utf-8' : found.contentType ?? 'application/octet-stream')
    .send(body);
}

/**
 * A capture: as replay shows it (`link`: its requisites' URLs rewritten to the archive's copies,
 * requisites/rewrite.ts), or as fetched (`id_`, link null).
 */
async function serveCapture(reply: FastifyReply, store: WebArchive, original: string, mementos: Memento[], index: number, frameAncestors: string[], link: RequisiteLink | null): Promise<FastifyReply> {
  const memento = mementos[index]!;
  const capture = await store.capture(memento.snapshotId);
  if (!capture) throw new Problem(404, 'Not archived', `the capture of ${original} at ${memento.datetime} is no longer kept`);
  const html = link !== null && isHtmlType(capture.contentType);
  const kept = html ? new Set((await store.requisitesOf(memento.snapshotId)).filter((requisite) => requisite.sha256 !== null).map((requisite) => requisite.url)) : null;
  const body = html ? replayableHtml(decodeBody(capture.body, capture.contentType).text, capture.finalUrl, link, { kept }) : capture.body;
  const own = links(original);
  const neighbours = [
    mementoLink(original, mementos[0]!, 'first memento'), mementoLink(original, mementos.at(-1)!, 'last memento'),
    ...(index > 0 ? [mementoLink(original, mementos[index - 1]!, 'prev memento')] : []),
    ...(index < mementos.length - 1 ? [mementoLink(original, mementos[index + 1]!, 'next memento')] : []),
  ];
  return reply.code(200)
    .header('memento-datetime', httpDate(memento.datetime))
    .header('link', [own.original, own.timegate, own.timemap, ...neighbours].join(', '))
    .header('content-security-policy', `${CAPTURE_POLICY}; frame-ancestors ${frameAncestors.join(' ') || "'self'"}`)
    .header('x-content-type-options', 'nosniff')
    .type(html ? 'text/html; charset=utf-8' : capture.contentType ?? 'application/octet-stream')
    .send(body);
}
