import type { FastifyInstance } from 'fastify';
import type { Store } from '../archive/store.js';
import { html } from './html.js';

/**
 * `GET /changes.atom[?feed=URL][&tag=T]`: one Atom entry per edit a revisit found (a version
 * after the first), newest first, so that an archivist can follow changes in any feed reader.
 * Each entry links to the article page and says what changed; its id is stable (article and
 * version), so readers never show an edit twice.
 */

const ENTRIES = 50;

export function changeFeedRoutes(app: FastifyInstance, store: Store): void {
  app.get<{ Querystring: { feed?: string; tag?: string } }>('/changes.atom', {
    schema: { hide: true, querystring: { type: 'object', additionalProperties: false, properties: { feed: { type: 'string' }, tag: { type: 'string' } } } },
  }, async (request, reply) => {
    const { feed, tag } = request.query;
    const changes = await store.changes({ feed, tag }, ENTRIES);
    // Links as the reader reached this server (through a proxy too: its Host header).
    const base = `${request.protocol}://${request.host}`;
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
<link href="${base}/articles/${change.articleId}"/>
<updated>${change.capturedAt}</updated>
${change.change.map((kind) => html`<category term="${kind}"/>`)}
<summary>${change.summary ?? 'edited'} (${change.feedTitle ?? change.feed}; ${change.url})</summary>
</entry>
`)}</feed>
`;
    return reply.type('application/atom+xml; charset=utf-8').send(document.value);
  });
}
