import type { FastifyInstance } from 'fastify';
import type { WebArchive } from '../archive/store.js';
import { html } from './html.js';
import { changedBlocks } from './pages.js';
import { Problem } from './problems.js';
import { xmlChars } from '../util/xml-chars.js';

/**
 * `GET /changes.atom[?feed=ID or URL][&tag=T]`: one Atom entry per edit a revisit found (a
 * version after the first), newest first, so that an archivist can follow changes in any feed
 * reader. Each entry links to the diff, carries the change kinds as categories and the changed
 * blocks (word-level) as its content; its id names the version, so a reader shows each edit once
 * as new, never as an update of another.
 */

const ENTRIES = 50;

/** `appOrigin`: the app's canonical origin (serve.publicUrl, or its own address), never the request's Host. */
export function changeFeedRoutes(app: FastifyInstance, store: WebArchive, appOrigin: () => string): void {
  app.get<{ Querystring: { feed?: string; tag?: string } }>('/changes.atom', {
    schema: { hide: true, querystring: { type: 'object', additionalProperties: false, properties: { feed: { type: 'string' }, tag: { type: 'string' } } } },
  }, async (request, reply) => {
    const { tag } = request.query;
    let feed = request.query.feed;
    if (feed && /^\d+$/.test(feed)) {
      const id = Number(feed);
      feed = (await store.feeds()).find((candidate) => candidate.id === id)?.subscribedUrl;
      if (!feed) throw new Problem(404, 'No such feed', `no feed ${id}`);
    }
    const changes = await store.changes({ feed, tag }, ENTRIES);
    // A Host header is the client's to say: links built on it could be poisoned in a shared cache.
    const base = appOrigin();
    const scope = feed ? ` in ${feed}` : tag ? ` tagged ${tag}` : '';
    const updated = changes[0]?.capturedAt ?? new Date(0).toISOString();
    const document = html`<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<title>Forest: changes${scope}</title>
<id>${base}/changes.atom${request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : ''}</id>
<link rel="self" href="${base}${request.url}"/>
<updated>${updated}</updated>
<author><name>Forest</name></author>
${changes.map((change) => html`<entry>
<title>${change.title ?? change.url} — version ${change.version}</title>
<id>${base}/articles/${change.articleId}/versions/${change.version}</id>
<link href="${base}/articles/${change.articleId}/diff?from=${change.version - 1}&amp;to=${change.version}"/>
<updated>${change.capturedAt}</updated>
${change.change.map((kind) => html`<category term="${kind}"/>`)}
<summary>${change.summary ?? 'edited'} (${change.feedTitle ?? change.feed}; ${change.url})</summary>
${change.diff ? html`<content type="html">${changedBlocks(change.diff).value}</content>` : null}
</entry>
`)}</feed>
`;
    return reply.type('application/atom+xml; charset=utf-8').send(xmlChars(document.value));
  });
}
