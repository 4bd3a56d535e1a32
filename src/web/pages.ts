import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Article, Check, FeedStatus, Store, Version } from '../archive/store.js';
import { html, trusted, type Safe } from './html.js';
import { Problem } from './problems.js';

/**
 * The web app's pages, rendered on the server (usable without JavaScript, readable on a phone):
 * the dashboard and the article page. Text from feeds and pages is escaped by `html`; an
 * article's body was sanitized when it was extracted and is shown as stored.
 */

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:0 1rem;color:#222}
header{display:flex;gap:1rem;align-items:baseline;border-bottom:1px solid #ddd}header a{color:inherit;text-decoration:none}
table{border-collapse:collapse;width:100%}td,th{padding:.3rem .5rem;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
.failing{color:#a00}.muted{color:#666;font-size:.9em}.label{display:inline-block;padding:0 .4rem;margin-right:.2rem;border-radius:.3rem;background:#eef;font-size:.85em}
article img{max-width:100%;height:auto}@media (max-width:40rem){.wide{display:none}}`;

function page(title: string, body: Safe): Safe {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} — Forest</title><style>${trusted(STYLE)}</style></head>
<body><header><h1><a href="/">Forest</a></h1><span class="muted">${title}</span></header>
<main>${body}</main></body></html>`;
}

const when = (iso: string | null) => (iso ? html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>` : html`—`);

function feedRow(feed: FeedStatus): Safe {
  const failing = feed.result === 'error';
  const state = !feed.enabled ? 'disabled' : failing ? `failing (${feed.consecutiveErrors} in a row)` : feed.result ?? 'not polled yet';
  return html`<tr><td><a href="${feed.url}">${feed.title ?? feed.url}</a>${feed.lastError ? html`<div class="muted failing">${feed.lastError}</div>` : null}</td>
<td class="${failing ? 'failing' : ''}">${state}</td><td class="wide">${when(feed.lastPoll)}</td>
<td class="wide">${when(feed.nextPoll)}${feed.scheduleReason ? html`<div class="muted">${feed.scheduleReason}</div>` : null}</td>
<td>${feed.articles} articles · ${feed.versions} versions</td></tr>`;
}

function dashboard(feeds: FeedStatus[], latest: Array<{ id: number; title: string | null; url: string; versions: number; firstCaptured: string }>): Safe {
  return page('dashboard', html`
<h2>Feeds (${feeds.length})</h2>
${feeds.length === 0 ? html`<p>No feeds yet: add one with <code>forest feeds add URL</code>.</p>` : html`<table>
<thead><tr><th>feed</th><th>last poll</th><th class="wide">polled</th><th class="wide">next poll</th><th>archive</th></tr></thead>
<tbody>${feeds.map(feedRow)}</tbody></table>`}
<h2>Latest articles</h2>
${latest.length === 0 ? html`<p>Nothing archived yet.</p>` : html`<ul>${latest.map((article) => html`<li><a href="/articles/${article.id}">${article.title ?? '(untitled)'}</a>
<span class="muted">${article.versions} version${article.versions === 1 ? '' : 's'} · first captured ${when(article.firstCaptured)}</span></li>`)}</ul>`}`);
}

function articlePage(article: Article, versions: Version[], checks: Check[]): Safe {
  const latest = versions.at(-1);
  return page(article.title ?? `article ${article.id}`, html`
<article>
<h2>${latest?.title ?? article.title ?? '(untitled)'}</h2>
<p class="muted">${[latest?.byline, latest?.published ? `published ${latest.published}` : null].filter(Boolean).join(' · ')}</p>
<p class="muted"><a href="${article.finalUrl ?? article.url}">${article.finalUrl ?? article.url}</a>
${article.goneSince ? html` · <strong class="failing">gone since ${article.goneSince}</strong>` : null}</p>
${latest ? html`<p class="muted">version ${latest.n} of ${article.versions}, captured ${when(latest.capturedAt)} (${latest.method})</p>${trusted(latest.html)}` : html`<p>No version yet.</p>`}
</article>
<h2>Versions</h2>
<ol>${versions.map((version) => html`<li>${when(version.capturedAt)} ${version.change.map((kind) => html`<span class="label">${kind}</span>`)}
${version.summary ? html`<span class="muted">${version.summary}</span>` : null}</li>`)}</ol>
<h2>Checks (${checks.length})</h2>
<table><thead><tr><th>at</th><th>HTTP</th><th>result</th><th>why</th></tr></thead>
<tbody>${checks.map((check) => html`<tr><td>${when(check.at)}</td><td>${check.status ?? '—'}</td><td>${check.result}</td><td class="muted">${check.reason ?? ''}</td></tr>`)}</tbody></table>`);
}

const sendPage = (reply: FastifyReply, body: Safe) => reply.type('text/html; charset=utf-8').send(body.value);

export function pageRoutes(app: FastifyInstance, store: Store): void {
  app.get('/', { schema: { hide: true } }, async (_request, reply) => {
    const [feeds, latest] = await Promise.all([store.feedStatuses(), store.articlesAfter({}, null, 20)]);
    return sendPage(reply, dashboard(feeds, latest.articles));
  });

  app.get<{ Params: { id: number } }>('/articles/:id', { schema: { hide: true, params: { type: 'object', properties: { id: { type: 'integer', minimum: 1 } }, required: ['id'] } } }, async (request, reply) => {
    const article = await store.article(request.params.id);
    if (!article) throw new Problem(404, 'No such article', `no article ${request.params.id}`);
    const [versions, checks] = await Promise.all([store.versions(article.id), store.checks(article.id)]);
    return sendPage(reply, articlePage(article, versions, checks));
  });
}

/** An error page for a browser (a problem document is for the API). */
export const errorPage = (status: number, title: string, detail: string): string =>
  page(title, html`<h2>${status} — ${title}</h2><p>${detail}</p><p><a href="/">Back to the dashboard</a></p>`).value;
