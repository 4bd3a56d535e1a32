import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Viewer } from './session.js';
import type { BlockChange, ObjectDiff, WordPart } from '../archive/diff.js';
import { pushInWords } from '../net/websub.js';
import type { Article, ArticleSummary, Check, FeedStatus, Memento, NotificationSummary, PollDay, PollEntry, WebArchive, Version, VersionPicture, WrapperInfo } from '../archive/store.js';
import { compareVersions, unchangedBlocks, type Comparison } from '../archive/views.js';
import type { Block } from '../archive/normalize.js';
import { html, trusted, type Safe } from './html.js';
import { SearchQueryError, type SearchHit } from '../archive/store.js';
import { sanitizeFeedHtml } from '../feeds/sanitize.js';
import { idParams, LANGUAGE_RANGE } from './api.js';
import { stamp } from './memento.js';
import { describeGap } from '../daemon/gap-recovery.js';
import { daemonStateWords, daemonStatus, type DaemonStatus } from '../daemon/status.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { Problem } from './problems.js';
import { webHref } from './uri.js';
import { dateInWords, plural } from '../util/units.js';
import { shownNotification } from '../config/secrets.js';
import { scheduleInWords } from '../schedule/words.js';
import { capacityNote } from '../daemon/capacity.js';

/**
 * The web app's pages, rendered on the server (usable without JavaScript, readable on a phone):
 * the dashboard and the article page. Text from feeds and pages is escaped by `html`; an
 * article's body, sanitized when it was extracted, is sanitized again when shown (the feeds'
 * sanitizer): the archive may hold HTML extracted by an older Forest, or written by another tool.
 */

/** A page's title and content; its frame (renderPage) is the request's: signed in or not. */
export interface Page {
  title: string;
  body: Safe;
}

const page = (title: string, body: Safe): Page => ({ title, body });

/** A page in the app's frame, the header saying whether the reader is signed in (a login page offers no second "log in"). */
export function renderPage(content: Page, viewer: Viewer): string {
  const account = viewer ? html`<form action="/logout" method="post" class="inline">${csrf(viewer)}<button>log out</button></form>`
    : content.title === LOGIN_TITLE ? null : html`<a href="/login">log in</a>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${content.title} — Forest</title><link rel="stylesheet" href="/forest.css"></head>
<body><header><h1><a href="/">Forest</a></h1><a href="/articles">articles</a><a href="/search">search</a><a href="/changes.atom">changes (Atom)</a><span class="muted">${content.title}</span>${account}</header>
<main>${content.body}</main></body></html>`.value;
}

const LOGIN_TITLE = 'log in';

/** The hidden field a form that changes something carries (session.ts). */
const csrf = (viewer: NonNullable<Viewer>) => html`<input type="hidden" name="_csrf" value="${viewer.csrf}">`;

/**
 * Logging in with serve.token: to read the archive when it is private (serve.public: false), and
 * to change it from these pages. `next`: the page to go back to (a path of this app).
 */
export function loginPage(enabled: boolean, problem: string | null, next: string | null = null): Page {
  return page(LOGIN_TITLE, enabled ? html`
<p>Log in with the token in <code>serve.token</code> (the settings of <code>forest serve</code>) to read this archive when it is private, and to subscribe, pause, unsubscribe and archive pages from these pages.</p>
${problem ? html`<p class="failing">${problem}</p>` : null}
<form action="/login" method="post">${next ? html`<input type="hidden" name="next" value="${next}">` : null}<label>Token <input type="password" name="token" autocomplete="current-password" required></label> <button>Log in</button></form>`
    : html`<p class="failing">${problem ?? 'Logging in is off.'}</p><p>Set <code>serve.token</code> in your settings (16+ characters, e.g. <code>openssl rand -hex 32</code>) and restart <code>forest serve</code>.</p>`);
}

/** A stored URL as a link when it is an http(s) URL, else as text: a `javascript:` URL is never a link. */
const link = (url: string) => {
  const href = webHref(url);
  return href ? html`<a href="${href}">${url}</a>` : html`<span>${url}</span>`;
};

const when = (iso: string | null) => (iso ? html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>` : html`—`);

/** The forms' feed filter (search, /articles): every feed, the one asked for chosen. */
const feedChoice = (feeds: FeedStatus[], chosen: string | undefined) =>
  html`<label>feed <select name="feed"><option value="">all feeds</option>${feeds.map((feed) => html`<option value="${feed.url}"${feed.url === chosen ? trusted(' selected') : null}>${feed.title ?? feed.url}</option>`)}</select></label>`;

function feedRow(feed: FeedStatus): Safe {
  const failing = feed.result === 'error';
  const state = !feed.enabled ? 'disabled' : failing ? `failing (${feed.consecutiveErrors} in a row)` : feed.result ?? 'not polled yet';
  return html`<tr><td><a href="/feeds/${feed.id}">${feed.title ?? feed.url}</a>${feed.lastError ? html`<div class="muted failing">${feed.lastError}</div>` : null}${feed.lastGap && !feed.lastGap.complete ? html`<div class="muted failing">${describeGap(feed.lastGap)}</div>` : null}</td>
<td class="${failing ? 'failing' : ''}">${state}</td><td class="wide">${when(feed.lastPoll)}</td>
<td class="wide">${when(feed.nextPoll)}<div class="muted">${scheduleInWords(feed)}</div></td>
<td>${feed.articles} articles · ${feed.versions} versions</td></tr>`;
}

/** The webhooks' delivery log (notify.webhooks): what was delivered, what waits, the last error. */
function deliveryLog(notifications: NotificationSummary[]): Safe {
  if (notifications.length === 0) return html``;
  return html`<h2>Notifications</h2>
<table><thead><tr><th scope="col">webhook</th><th scope="col">delivered</th><th scope="col">waiting</th><th scope="col" class="wide">last delivered</th><th scope="col">last error</th></tr></thead>
<tbody>${notifications.map(shownNotification).map((hook) => html`<tr><td>${hook.webhook}</td><td>${hook.delivered}</td><td class="${hook.waiting > 0 && hook.lastError ? 'failing' : ''}">${hook.waiting}</td>
<td class="wide">${when(hook.lastDeliveredAt)}</td><td class="${hook.lastError ? 'failing' : ''}">${hook.lastError ?? '—'}</td></tr>`)}</tbody></table>`;
}

/** A daemon's at-capacity advice (daemon/capacity.ts) under its last minute, or nothing. */
function daemonCapacity(daemon: DaemonStatus): Safe | null {
  const note = daemon.report ? capacityNote(daemon.report) : null;
  return note ? html`<br><span class="failing">at capacity: ${note}</span>` : null;
}

/** The daemons working on the archive (several share a PostgreSQL archive): who, their heartbeat, their last minute. */
function daemonTable(daemons: DaemonStatus[]): Safe {
  if (daemons.length === 0) return html`<p class="muted">No daemon is running on this archive.</p>`;
  return html`<h2>Daemons (${daemons.length})</h2>
<table><thead><tr><th scope="col">host</th><th scope="col">pid</th><th scope="col" class="wide">since</th><th scope="col">last heartbeat</th><th scope="col">last minute</th></tr></thead>
<tbody>${daemons.map((daemon) => html`<tr><td>${daemon.host}</td><td>${daemon.pid}</td><td class="wide">${when(daemon.startedAt)}</td>
<td class="${daemon.stale ? 'failing' : ''}">${when(daemon.heartbeatAt)}${daemon.state === 'running' ? '' : ` (${daemonStateWords[daemon.state]})`}</td>
<td>${daemon.report ? `${daemon.report.done.poll} polls · ${daemon.report.done.capture} captures · ${daemon.report.done.revisit} revisits · ${daemon.report.done.extract} extractions` : '—'}
${daemonCapacity(daemon)}</td></tr>`)}</tbody></table>`;
}

function dashboard(feeds: FeedStatus[], latest: Array<{ id: number; title: string | null; url: string; versions: number; firstCaptured: string }>, notifications: NotificationSummary[], daemons: DaemonStatus[], viewer: Viewer): Page {
  return page('dashboard', html`
${daemonTable(daemons)}
<h2>Feeds (${feeds.length})</h2>
${viewer ? html`<form action="/feeds" method="post">${csrf(viewer)}<label>Subscribe to <input type="url" name="url" required placeholder="https://example.org/feed.xml"></label>
<label>title <input name="title"></label> <label>tags <input name="tags" placeholder="news, science"></label> <button>Subscribe</button></form>
<form action="/pages" method="post">${csrf(viewer)}<label>Archive a page <input type="url" name="url" required placeholder="https://example.org/2026/12/story.html"></label> <button>Archive</button>
<span class="muted">a page in no feed: kept whole, then revisited like an item's page</span></form>` : null}
${feeds.length === 0 ? html`<p>No feeds yet: add one with <code>forest feeds add URL</code>${viewer ? ' or the form above' : ''}.</p>` : html`<table>
<thead><tr><th>feed</th><th>state</th><th class="wide">last poll</th><th class="wide">next poll and why</th><th>archive</th></tr></thead>
<tbody>${feeds.map(feedRow)}</tbody></table>`}
<h2>Latest articles</h2>
${latest.length === 0 ? html`<p>Nothing archived yet.</p>` : html`<ul>${latest.map((article) => html`<li><a href="/articles/${article.id}">${article.title ?? '(untitled)'}</a>
<span class="muted">${article.versions} version${article.versions === 1 ? '' : 's'} · first captured ${when(article.firstCaptured)}</span></li>`)}</ul>
<p><a href="/articles">All articles</a> · <a href="/articles?changed=1">edited articles</a></p>`}
${deliveryLog(notifications)}`);
}

function articlePage(article: Article, versions: Version[], checks: Check[], shownN: number | null = null): Page {
  // The version shown: the latest, or the one a version's address names (a change feed entry's id).
  const latest = (shownN === null ? null : versions.find((version) => version.n === shownN)) ?? versions.at(-1);
  return page(article.title ?? `article ${article.id}`, html`
<article>
<h2>${latest?.title ?? article.title ?? '(untitled)'}</h2>
<p class="muted">${latest?.byline ?? null}${latest?.byline && latest.published ? ' · ' : null}${latest?.published ? html`published <time datetime="${latest.published}">${dateInWords(latest.published)}</time>` : null}</p>
<p class="muted">${link(article.finalUrl ?? article.url)}
${article.goneSince ? html` · <strong class="failing">gone since ${article.goneSince}</strong>` : null}</p>
${latest ? html`<p class="muted">version ${latest.n} of ${article.versions}, captured ${when(latest.capturedAt)} (${latest.method})${latest.n < article.versions ? html` · <a href="/articles/${article.id}">the latest version</a>` : null}</p>${trusted(sanitizeFeedHtml(latest.html, article.finalUrl ?? article.url, { imagesAsLinks: true }) ?? '')}` : html`<p>No version yet.</p>`}
</article>
<h2>Versions</h2>
<ol class="timeline">${versions.map((version) => html`<li><a href="/articles/${article.id}/versions/${version.n}">version ${version.n}</a>, ${when(version.capturedAt)} ${version.change.map((kind) => html`<span class="label">${kind}</span>`)}
${version.summary ? html`<span class="muted">${version.summary}</span>` : null}
${version.n > 1 ? html` · <a href="/articles/${article.id}/diff?from=${version.n - 1}&amp;to=${version.n}">what changed</a>` : null}
· <a href="/captures/${stamp(version.capturedAt)}/${article.url}">capture</a></li>`)}</ol>
${versions.length >= 2 ? html`<form action="/articles/${article.id}/diff" method="get">Compare version
<select name="from" aria-label="from version">${versions.map((version) => html`<option${version.n === 1 ? trusted(' selected') : null}>${version.n}</option>`)}</select> with
<select name="to" aria-label="to version">${versions.map((version) => html`<option${version.n === versions.length ? trusted(' selected') : null}>${version.n}</option>`)}</select>
<button>Compare</button></form>` : null}
<h2>Checks (${checks.length})</h2>
<table><thead><tr><th>at</th><th>HTTP</th><th>result</th><th>why</th></tr></thead>
<tbody>${checks.map((check) => html`<tr><td>${when(check.at)}</td><td>${check.status ?? '—'}</td><td>${check.result}</td><td class="muted">${check.reason ?? ''}</td></tr>`)}</tbody></table>`);
}

/** What a feed's page shows of its polling: the latest polls, and that many days. */
const FEED_PAGE = { polls: 20, days: 30 } as const;

/** A feed's polling over time: a row per day (polls, results, new items, gaps), then its latest polls, each with what it found. */
function pollHistory(history: { polls: PollEntry[]; days: PollDay[] }): Safe {
  if (history.polls.length === 0 && history.days.length === 0) return html`<p>Not polled yet.</p>`;
  return html`<table><caption>Day by day (UTC): ${plural(history.days.length, 'day')} polled</caption>
<thead><tr><th scope="col">day</th><th scope="col">polls</th><th scope="col">new items</th><th scope="col">not modified</th><th scope="col">failed</th><th scope="col">gaps</th></tr></thead>
<tbody>${history.days.map((day) => html`<tr><td>${day.day}</td><td>${day.polls}</td><td>${day.newItems}</td><td>${day.notModified}</td>
<td class="${day.errors ? 'failing' : ''}">${day.errors}</td><td class="${day.gaps ? 'failing' : ''}">${day.gaps}</td></tr>`)}</tbody></table>
<table><caption>The latest ${plural(history.polls.length, 'poll')}</caption>
<thead><tr><th scope="col">started</th><th scope="col">result</th><th scope="col">items</th><th scope="col" class="wide">took</th></tr></thead>
<tbody>${history.polls.map((poll) => html`<tr><td>${when(poll.startedAt)}</td>
<td class="${poll.result === 'error' ? 'failing' : ''}">${poll.result}${poll.status ? ` (HTTP ${poll.status})` : ''}${poll.error ? html`<div class="muted">${poll.error}</div>` : null}${poll.gap ? html`<div class="${poll.gap.complete ? 'muted' : 'failing'}">${describeGap(poll.gap)}</div>` : null}</td>
<td>${poll.itemsSeen} seen, ${poll.newItems} new${poll.changedItems ? `, ${poll.changedItems} changed` : ''}</td><td class="wide">${poll.durationMs} ms</td></tr>`)}</tbody></table>`;
}

function feedPage(feed: FeedStatus, articles: ArticleSummary[], wrappers: WrapperInfo[], history: { polls: PollEntry[]; days: PollDay[] }, viewer: Viewer): Page {
  return page(feed.title ?? feed.url, html`
<h2>${feed.title ?? feed.url}</h2>
${viewer ? html`<p><form action="/feeds/${feed.id}/enabled" method="post" class="inline">${csrf(viewer)}<input type="hidden" name="enabled" value="${feed.enabled ? 'false' : 'true'}"><button>${feed.enabled ? 'Pause polling' : 'Resume polling'}</button></form>
${feed.enabled ? html`<form action="/feeds/${feed.id}/poll" method="post" class="inline">${csrf(viewer)}<button>Poll now</button></form>` : null}
<form action="/feeds/${feed.id}/unsubscribe" method="post" class="inline">${csrf(viewer)}<button>Unsubscribe</button></form> <span class="muted">(the archive keeps what it archived)</span></p>` : null}
<p class="muted">${link(feed.url)}${feed.fetchUrl !== feed.url ? html` → ${feed.fetchUrl}` : null} · <a href="/changes.atom?feed=${encodeURIComponent(feed.url)}">changes (Atom)</a></p>
<table><tbody>
<tr><th>last poll</th><td>${when(feed.lastPoll)} ${feed.result ?? 'not polled yet'}${feed.httpStatus ? ` (HTTP ${feed.httpStatus})` : ''}${feed.consecutiveErrors ? html` <span class="failing">${feed.consecutiveErrors} failures in a row</span>` : null}</td></tr>
<tr><th>next poll</th><td>${feed.enabled ? when(feed.nextPoll) : 'disabled'} — ${scheduleInWords(feed)}<details><summary class="muted">the scheduler's figures</summary><p class="muted">${feed.scheduleReason ?? '—'}</p></details></td></tr>
<tr><th>publishing</th><td>${feed.ratePerHour === null ? 'rate unknown' : feed.ratePerHour >= 1 ? `${feed.ratePerHour.toFixed(1)} items/hour` : `${(feed.ratePerHour * 24).toFixed(2)} items/day`}${feed.window !== null ? ` · the feed shows ${feed.window} items` : ''}</td></tr>
<tr><th>archive</th><td>${feed.items} items · ${feed.pages} pages (${feed.pendingPages} pending, ${feed.failedPages} failed) · ${feed.articles} articles · ${feed.versions} versions · ${feed.checks} checks</td></tr>
${feed.lastError ? html`<tr><th>last error</th><td class="failing">${feed.lastError}</td></tr>` : null}
${feed.lastPageError ? html`<tr><th>last page error</th><td class="failing">${feed.lastPageError}</td></tr>` : null}
${feed.lastGap ? html`<tr><th>last gap</th><td class="${feed.lastGap.complete ? '' : 'failing'}">${describeGap(feed.lastGap)}</td></tr>` : null}
${feed.push ? html`<tr><th>push</th><td>${pushInWords(feed.push)}</td></tr>` : null}
</tbody></table>
<h2>Polls</h2>
${pollHistory(history)}
<h2>Wrappers</h2>
${wrappers.length === 0 ? html`<p>None learned yet: pages are extracted one at a time (SIGFEED).</p>` : html`<ul>${wrappers.map((wrapper) => html`<li><code>${wrapper.xpath}</code>
<span class="muted">template ${wrapper.templateId} · ${wrapper.samples} pages · learned ${when(wrapper.learnedAt)} (${wrapper.reason})${wrapper.active ? ' · active' : ''}</span></li>`)}</ul>`}
<h2>Articles</h2>
${articles.length === 0 ? html`<p>Nothing archived yet.</p>` : html`<ul>${articles.map((article) => html`<li><a href="/articles/${article.id}">${article.title ?? '(untitled)'}</a>
<span class="muted">${article.versions} version${article.versions === 1 ? '' : 's'} · ${when(article.firstCaptured)}</span></li>`)}</ul>`}`);
}

/** FTS5 snippets mark matches with [ and ] (archive/search.ts): shown as <mark>, everything else escaped. */
const snippet = (text: string) => text.split(/(\[[^\]]*\])/).map((part) => (part.startsWith('[') && part.endsWith(']') ? html`<mark>${part.slice(1, -1)}</mark>` : html`${part}`));

interface SearchQuery {
  q?: string | undefined;
  feed?: string | undefined;
  /** Days (YYYY-MM-DD, UTC) from the form's date fields; empty when left blank. */
  since?: string | undefined;
  until?: string | undefined;
}

function searchPage(query: SearchQuery, feeds: FeedStatus[], hits: SearchHit[] | null, problem: string | null): Page {
  return page(query.q ? `search: ${query.q}` : 'search', html`
<form action="/search" method="get"><input type="search" name="q" value="${query.q ?? ''}" placeholder="words, &quot;a phrase&quot;, title:word, prefix*" aria-label="search">
<button>Search</button><br>
${feedChoice(feeds, query.feed)}
<label>captured from <input type="date" name="since" value="${query.since ?? ''}"></label> <label>to <input type="date" name="until" value="${query.until ?? ''}"></label></form>
${problem ? html`<p class="failing">${problem}</p>` : null}
${hits === null ? null : hits.length === 0 ? html`<p>No match.</p>` : html`<ol>${hits.map((hit) => html`<li><a href="/articles/${hit.article}">${hit.title ?? '(untitled)'}</a>
${hit.inLatest ? null : html` <span class="label">removed by a later edit</span>`}
<div>${snippet(hit.snippet)}</div><span class="muted">${hit.url} · in version${hit.versions.length === 1 ? '' : 's'} ${hit.versions.join(', ')} of ${hit.latest}</span></li>`)}</ol>`}`);
}

const words = (parts: WordPart[]) => parts.map((part) => (part.op === 'equal' ? html`${part.text}` : part.op === 'added' ? html`<ins>${part.text}</ins>` : html`<del>${part.text}</del>`));
const beforeSide = (parts: WordPart[]) => words(parts.filter((part) => part.op !== 'added'));
const afterSide = (parts: WordPart[]) => words(parts.filter((part) => part.op !== 'removed'));

/** One block change, side by side or inline; `n` numbers the changes for "next change" links. */
function blockRow(change: BlockChange, n: number, view: 'side' | 'inline', context: Block[] | null): Safe {
  const anchor = html`<a id="change-${n}" href="#change-${n + 1}" class="muted" title="next change">↓</a>`;
  if (change.op === 'equal') {
    const label = plural(change.count, 'unchanged block');
    // Expandable without a script: <details> opens in place, by keyboard too.
    return context === null ? html`<tr><td colspan="2" class="muted">… ${label}</td></tr>`
      : html`<tr><td colspan="2"><details class="context"><summary class="muted">… ${label} (show)</summary>${context.map((block) => html`<p>${block.text}</p>`)}</details></td></tr>`;
  }
  if (view === 'inline') {
    const body = change.op === 'changed' ? words(change.words) : change.op === 'added' ? html`<ins>${change.block.text}</ins>` : html`<del>${change.block.text}</del>`;
    return html`<tr><td colspan="2">${anchor} ${body}</td></tr>`;
  }
  if (change.op === 'changed') return html`<tr><td>${anchor} ${beforeSide(change.words)}</td><td>${afterSide(change.words)}</td></tr>`;
  return change.op === 'added' ? html`<tr><td>${anchor}</td><td><ins>${change.block.text}</ins></td></tr>` : html`<tr><td>${anchor} <del>${change.block.text}</del></td><td></td></tr>`;
}

/** The blocks an edit touched, inline, with the words that changed (a change feed entry's content). */
export function changedBlocks(diff: ObjectDiff): Safe {
  return html`${diff.fields.map((field) => html`<p>${field.field}: <del>${field.before ?? ''}</del> <ins>${field.after ?? ''}</ins></p>`)}
${diff.blocks.map((change) => (change.op === 'equal' ? null : html`<p>${change.op === 'changed' ? words(change.words) : change.op === 'added' ? html`<ins>${change.block.text}</ins>` : html`<del>${change.block.text}</del>`}</p>`))}`;
}

/**
 * The pictures two versions keep at the same URL whose bytes differ (issue #67): side by side, each
 * from the capture origin at the time its bytes were fetched.
 */
function picturesSection(before: Version, after: Version, pictures: { before: VersionPicture[]; after: VersionPicture[] }, captureLink: CaptureLink): Safe | null {
  const changed = pictures.after.flatMap((now) => {
    const then = pictures.before.find((picture) => picture.url === now.url);
    return then && then.sha256 !== now.sha256 ? [{ then, now }] : [];
  });
  if (changed.length === 0) return null;
  const image = (picture: VersionPicture, n: number) =>
    html`<img src="${captureLink(`/memento/${stamp(picture.fetchedAt)}im_/${picture.url}`, picture.url)}" alt="the picture of version ${n}" class="picture" loading="lazy">`;
  return html`<h3>Pictures</h3><table class="side"><thead><tr><th>v${before.n}</th><th>v${after.n}</th></tr></thead>
<tbody>${changed.map(({ then, now }) => html`<tr><td colspan="2" class="muted">${now.url}</td></tr><tr><td>${image(then, before.n)}</td><td>${image(now, after.n)}</td></tr>`)}</tbody></table>`;
}

function diffPage(article: Article, before: Version, after: Version, comparison: Comparison, view: 'side' | 'inline', pictures: Safe | null): Page {
  const { diff, caveat } = comparison;
  const context = unchangedBlocks(diff, after.object);
  let n = 0;
  const base = `/articles/${article.id}/diff?from=${before.n}&to=${after.n}`;
  return page(`${article.title ?? `article ${article.id}`}: v${before.n} → v${after.n}`, html`
<h2><a href="/articles/${article.id}">${article.title ?? '(untitled)'}</a></h2>
<p>version ${before.n} (${when(before.capturedAt)}) → version ${after.n} (${when(after.capturedAt)}) ${diff.kinds.map((kind) => html`<span class="label">${kind}</span>`)}</p>
<p>${diff.summary}</p>${caveat ? html`<p class="muted">${caveat}</p>` : null}
<p>${view === 'side' ? html`side by side · <a href="${base}&amp;view=inline">inline</a>` : html`<a href="${base}&amp;view=side">side by side</a> · inline`}
${before.n > 1 ? html` · <a href="/articles/${article.id}/diff?from=${before.n - 1}&amp;to=${before.n}&amp;view=${view}">previous edit</a>` : null}
${after.n < article.versions ? html` · <a href="/articles/${article.id}/diff?from=${after.n}&amp;to=${after.n + 1}&amp;view=${view}">next edit</a>` : null}
 · <a href="#change-1">first change</a></p>
${diff.fields.length ? html`<ul>${diff.fields.map((field) => html`<li>${field.field}: <del>${field.before ?? ''}</del> → <ins>${field.after ?? ''}</ins></li>`)}</ul>` : null}
<table class="${view === 'side' ? 'side' : ''}">${view === 'side' ? html`<thead><tr><th>v${before.n}</th><th>v${after.n}</th></tr></thead>` : null}
<tbody>${diff.blocks.map((change, i) => blockRow(change, change.op === 'equal' ? n : ++n, view, context?.[i] ?? null))}</tbody></table>
${diff.media.removed.length || diff.media.added.length ? html`<h3>Media</h3><ul>${diff.media.removed.map((url) => html`<li><del>${url}</del></li>`)}${diff.media.added.map((url) => html`<li><ins>${url}</ins></li>`)}</ul>` : null}
${pictures}`);
}

/**
 * A capture as it was fetched, inside a frame from the capture origin with every sandbox flag
 * off (no script, no form, no navigation of this page), under a banner that says what it is.
 */
function captureView(original: string, mementos: Memento[], index: number, captureLink: CaptureLink): Page {
  const memento = mementos[index]!;
  const at = (i: number) => `/captures/${stamp(mementos[i]!.datetime)}/${original}`;
  return page(`capture of ${original}`, html`
<p><strong>Archived page</strong>, captured ${when(memento.datetime)} (HTTP ${memento.status}) from ${link(original)}, as Forest fetched it:
shown sandboxed (no script runs), from its own origin.${memento.canonicalUrl !== null && memento.canonicalUrl !== original ? html` The page names ${link(memento.canonicalUrl)} as its address (its own claim: Forest did not fetch that URL for this capture).` : null} ${index > 0 ? html`<a href="${at(index - 1)}">← earlier capture</a> ` : null}${index < mementos.length - 1 ? html`<a href="${at(index + 1)}">later capture →</a> ` : null}
· <a href="/timemap/link/${original}">all ${mementos.length} captures</a></p>
<iframe sandbox="" src="${captureLink(`/memento/${stamp(memento.datetime)}/${original}`, original)}" title="the archived page" class="capture-frame"></iframe>`);
}

/** A capture route's URL on the capture origin (with a ticket for `original` where reads need the token). */
export type CaptureLink = (path: string, original: string) => string;

export function pageRoutes(app: FastifyInstance, store: WebArchive, captureLink: CaptureLink, viewer: (request: FastifyRequest) => Viewer): void {
  const sendPage = (request: FastifyRequest, reply: FastifyReply, content: Page) => reply.type('text/html; charset=utf-8').send(renderPage(content, viewer(request)));
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    const [feeds, latest, notifications, daemons] = await Promise.all([store.feedStatuses(), store.articlesAfter({}, null, 20), store.notificationSummary(), store.daemons()]);
    return sendPage(request, reply, dashboard(feeds, latest.articles, notifications, daemons.flatMap((holder) => daemonStatus(holder) ?? []), viewer(request)));
  });

  app.get<{ Params: { id: number } }>('/feeds/:id', { schema: { hide: true, params: idParams } }, async (request, reply) => {
    const feed = (await store.feedStatuses()).find((candidate) => candidate.id === request.params.id);
    if (!feed) throw new Problem(404, 'No such feed', `no feed ${request.params.id}`);
    const [articles, wrappers, history] = await Promise.all([
      store.articlesAfter({ feed: feed.url }, null, 50), store.wrappers(feed.id, 20), store.feedHistory(feed.id, { polls: FEED_PAGE.polls, days: FEED_PAGE.days }),
    ]);
    return sendPage(request, reply, feedPage(feed, articles.articles, wrappers, history, viewer(request)));
  });

  const day = { type: 'string', pattern: '^(\\d{4}-\\d{2}-\\d{2})?$' } as const;
  app.get<{ Querystring: SearchQuery }>('/search', {
    schema: { hide: true, querystring: { type: 'object', properties: { q: { type: 'string' }, feed: { type: 'string' }, since: day, until: day } } },
  }, async (request, reply) => {
    const { q, feed, since, until } = request.query;
    const feeds = await store.feedStatuses();
    if (!q?.trim()) return sendPage(request, reply, searchPage(request.query, feeds, null, null));
    try {
      // A day of the form covers the whole day, in UTC (the archive's times are UTC).
      const hits = await store.search(q, { feed: feed || undefined, since: since ? `${since}T00:00:00.000Z` : undefined, until: until ? `${until}T23:59:59.999Z` : undefined, limit: 50 });
      return sendPage(request, reply, searchPage(request.query, feeds, hits, null));
    } catch (error) {
      if (error instanceof SearchQueryError) return sendPage(request, reply.code(400), searchPage(request.query, feeds, null, `The query could not be read: ${error.message}`));
      throw error;
    }
  });

  app.get<{ Params: { id: number }; Querystring: { from?: number; to?: number; view: 'side' | 'inline' } }>('/articles/:id/diff', {
    schema: { hide: true, params: idParams, querystring: { type: 'object', properties: { from: { type: 'integer', minimum: 1 }, to: { type: 'integer', minimum: 1 }, view: { enum: ['side', 'inline'], default: 'side' } } } },
  }, async (request, reply) => {
    const article = await store.article(request.params.id);
    if (!article) throw new Problem(404, 'No such article', `no article ${request.params.id}`);
    const to = request.query.to ?? article.versions;
    const from = request.query.from ?? to - 1;
    const [before, after] = await Promise.all([store.version(article.id, from), store.version(article.id, to)]);
    if (!before || !after) throw new Problem(404, 'No such version', `article ${article.id} has versions 1 to ${article.versions}`);
    const [picturesBefore, picturesAfter] = await Promise.all([store.versionPictures(article.id, before.n), store.versionPictures(article.id, after.n)]);
    const pictures = picturesSection(before, after, { before: picturesBefore, after: picturesAfter }, captureLink);
    return sendPage(request, reply, diffPage(article, before, after, compareVersions(before, after), request.query.view, pictures));
  });

  app.get<{ Params: { stamp: string } }>('/captures/:stamp/*', { schema: { hide: true, params: { type: 'object', properties: { stamp: { type: 'string', pattern: '^\\d{14}$' } }, required: ['stamp'] } } }, async (request, reply) => {
    const asked = request.params.stamp;
    const original = request.url.slice(`/captures/${asked}/`.length);
    const mementos = await store.mementos(original);
    const index = mementos.findIndex((memento) => stamp(memento.datetime) === asked);
    if (index < 0) throw new Problem(404, 'Not archived', `no capture of ${original} at ${asked}`);
    return sendPage(request, reply, captureView(original, mementos, index, captureLink));
  });

  const showArticle = async (request: FastifyRequest, reply: FastifyReply, id: number, n: number | null) => {
    const article = await store.article(id);
    if (!article) throw new Problem(404, 'No such article', `no article ${id}`);
    if (n !== null && (n < 1 || n > article.versions)) throw new Problem(404, 'No such version', `article ${id} has versions 1 to ${article.versions}`);
    const [versions, checks] = await Promise.all([store.versions(article.id), store.checks(article.id)]);
    return sendPage(request, reply, articlePage(article, versions, checks, n));
  };
  app.get<{ Params: { id: number } }>('/articles/:id', { schema: { hide: true, params: idParams } }, async (request, reply) => showArticle(request, reply, request.params.id, null));
  app.get<{ Params: { id: number; n: number } }>('/articles/:id/versions/:n', {
    schema: { hide: true, params: { type: 'object', properties: { id: { type: 'integer', minimum: 1 }, n: { type: 'integer', minimum: 1 } }, required: ['id', 'n'] } },
  }, async (request, reply) => showArticle(request, reply, request.params.id, request.params.n));

  app.get<{ Querystring: ArticleListQuery }>('/articles', {
    schema: { hide: true, querystring: { type: 'object', properties: { feed: { type: 'string' }, tag: { type: 'string' }, language: LANGUAGE_RANGE, since: day, until: day, changed: { enum: ['', '1'] }, queued: { enum: ['', '1'] }, cursor: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 200, default: ARTICLES_PER_PAGE } } } },
  }, async (request, reply) => {
    const query = request.query;
    const filter = {
      feed: query.feed || undefined, tag: query.tag || undefined, language: query.language || undefined, changed: query.changed === '1',
      since: query.since ? `${query.since}T00:00:00.000Z` : undefined, until: query.until ? `${query.until}T23:59:59.999Z` : undefined,
    };
    const [feeds, listed] = await Promise.all([store.feedStatuses(), store.articlesAfter(filter, query.cursor ? decodeCursor(query.cursor) : null, query.limit ?? ARTICLES_PER_PAGE)]);
    return sendPage(request, reply, articleList(query, feeds, listed.articles, listed.next ? encodeCursor(listed.next) : null));
  });
}

/** Articles one page of /articles lists. */
const ARTICLES_PER_PAGE = 50;

interface ArticleListQuery {
  feed?: string;
  tag?: string;
  language?: string;
  since?: string;
  until?: string;
  changed?: '' | '1';
  /** Set after "Archive a page": the page is queued for the daemon. */
  queued?: '' | '1';
  cursor?: string;
  limit?: number;
}

/** Every archived article, newest first, filtered, a page at a time (a cursor: pages stay right while articles arrive). */
function articleList(query: ArticleListQuery, feeds: FeedStatus[], articles: ArticleSummary[], next: string | null): Page {
  const { cursor: _cursor, queued, ...filters } = query;
  const older = next ? `/articles?${new URLSearchParams({ ...Object.fromEntries(Object.entries(filters).filter(([, value]) => value).map(([key, value]) => [key, String(value)])), cursor: next }).toString()}` : null;
  return page('articles', html`
<h2>Articles</h2>
${queued === '1' ? html`<p class="notice">The page is queued: a running daemon archives it within seconds, with its images and styles, and it is listed here (none runs? <code>forest run</code> starts one; <code>forest capture URL</code> archives a page at once).</p>` : null}
<form action="/articles" method="get">
${feedChoice(feeds, query.feed)}
<label>tag <input name="tag" value="${query.tag ?? ''}" size="10"></label>
<label>language <input name="language" value="${query.language ?? ''}" size="6" placeholder="e.g. en"></label>
<label>first captured from <input type="date" name="since" value="${query.since ?? ''}"></label> <label>to <input type="date" name="until" value="${query.until ?? ''}"></label>
<label><input type="checkbox" name="changed" value="1"${query.changed === '1' ? trusted(' checked') : null}> edited only</label>
<button>Show</button></form>
${articles.length === 0 ? html`<p>No article matches.</p>` : html`<table><thead><tr><th>article</th><th>versions</th><th class="wide">first captured</th><th class="wide">last checked</th></tr></thead>
<tbody>${articles.map((article) => html`<tr><td><a href="/articles/${article.id}">${article.title ?? '(untitled)'}</a><div class="muted">${article.url}</div></td>
<td>${article.versions}${article.versions > 1 ? html` · <a href="/articles/${article.id}/diff">what changed</a>` : null}</td><td class="wide">${when(article.firstCaptured)}</td><td class="wide">${when(article.lastChecked)}</td></tr>`)}</tbody></table>`}
${older ? html`<p><a href="${older}" rel="next">Older articles →</a></p>` : articles.length > 0 ? html`<p class="muted">The end of the list.</p>` : null}`);
}

/** An error page for a browser (a problem document is for the API): backticked words as code, and a way on — to log in when that is what it takes. */
export const errorPage = (status: number, title: string, detail: string): Page =>
  page(title, html`<h2>${status} — ${title}</h2><p>${withCode(detail)}</p>
<p>${status === 401 ? html`<a href="/login">Log in</a> with <code>serve.token</code>, or ` : null}<a href="/">back to the dashboard</a></p>`);

/** `word` in a message as <code>word</code> (messages are written for terminals too). */
const withCode = (text: string): Safe[] => text.split(/`([^`]*)`/).map((part, index) => (index % 2 === 1 ? html`<code>${part}</code>` : html`${part}`));
