import type { FastifyInstance } from 'fastify';
import { SearchQueryError } from '../archive/store.js';
import type { WebArchive } from '../archive/store.js';
import { compareVersions, diffView, historyView, versionView } from '../archive/views.js';
import { daemonStatus } from '../daemon/status.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { Problem } from './problems.js';
import { shownNotification } from '../config/secrets.js';

/**
 * The HTTP API (`/api/v1`, JSON): the archive as the CLI's `--json` shows it (the same field
 * names, built by the same views), read through the Store. Every route declares its parameters
 * as JSON Schema: Fastify validates them (a bad one is a 400 problem document) and
 * @fastify/swagger turns the same schemas into the OpenAPI document at /api/v1/openapi.json.
 */

/** Largest page of articles or search results one request gets. */
const MAX_LIMIT = 200;

const id = { type: 'integer', minimum: 1 } as const;
/** The `:id` of a route (a feed's, an article's): the same schema for the API, the pages and their actions. */
/** A language range as a form or the API takes it: a BCP 47 primary tag and subtags, or nothing. */
export const LANGUAGE_RANGE = { type: 'string', pattern: '^([A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*)?$' } as const;

export const idParams = { type: 'object', properties: { id }, required: ['id'] } as const;
export const isoTime = { type: 'string', format: 'date-time' } as const;
const anything = { type: 'object', additionalProperties: true } as const;

/** A time as the archive stores it (ISO, UTC, milliseconds): the schema has checked it is a date-time. */
export const utc = (time: string | undefined) => (time === undefined ? undefined : new Date(time).toISOString());

async function requireArticle(store: WebArchive, articleId: number) {
  const article = await store.article(articleId);
  if (!article) throw new Problem(404, 'No such article', `no article ${articleId}`);
  return article;
}

async function requireVersion(store: WebArchive, articleId: number, n: number) {
  const version = await store.version(articleId, n);
  if (!version) throw new Problem(404, 'No such version', `article ${articleId} has no version ${n}`);
  return version;
}

export function apiRoutes(app: FastifyInstance, store: WebArchive): void {
  app.get('/api/v1/feeds', {
    schema: { summary: 'The subscribed feeds with their health and counts', tags: ['feeds'], response: { 200: { type: 'object', properties: { items: { type: 'array', items: anything } } } } },
  }, async () => ({ items: await feedsWithStatus(store) }));

  app.get<{ Params: { id: number } }>('/api/v1/feeds/:id', {
    schema: { summary: 'One feed', tags: ['feeds'], params: idParams, response: { 200: anything } },
  }, async (request) => {
    const feed = (await feedsWithStatus(store)).find((candidate) => candidate.id === request.params.id);
    if (!feed) throw new Problem(404, 'No such feed', `no feed ${request.params.id}`);
    return feed;
  });

  app.get<{ Params: { id: number }; Querystring: { limit: number; days: number } }>('/api/v1/feeds/:id/polls', {
    schema: {
      summary: 'A feed\'s polls over time: the latest polls (newest first, each with the gap it found) and its polling per day', tags: ['feeds'], params: idParams,
      querystring: { type: 'object', additionalProperties: false, properties: { limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: 50 }, days: { type: 'integer', minimum: 1, maximum: 3660, default: 30 } } },
      response: { 200: { type: 'object', properties: { polls: { type: 'array', items: anything }, days: { type: 'array', items: anything } } } },
    },
  }, async (request) => {
    if (!(await store.feeds()).some((feed) => feed.id === request.params.id)) throw new Problem(404, 'No such feed', `no feed ${request.params.id}`);
    return store.feedHistory(request.params.id, { polls: request.query.limit, days: request.query.days });
  });

  app.get<{ Querystring: { feed?: string; language?: string; since?: string; until?: string; limit: number; cursor?: string } }>('/api/v1/articles', {
    schema: {
      summary: 'Archived articles, newest first, a page at a time (`next` is the cursor of the next page, null at the end)', tags: ['articles'],
      querystring: {
        type: 'object', additionalProperties: false,
        properties: { feed: { type: 'string', description: 'a feed URL, as subscribed or as fetched' }, language: { ...LANGUAGE_RANGE, description: 'a language range (BCP 47): en selects en-GB too' }, since: isoTime, until: isoTime, limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: 50 }, cursor: { type: 'string' } },
      },
      response: { 200: { type: 'object', properties: { items: { type: 'array', items: anything }, next: { type: ['string', 'null'] } } } },
    },
  }, async (request) => {
    const { feed, limit, cursor } = request.query;
    const page = await store.articlesAfter({ feed, language: request.query.language || undefined, since: utc(request.query.since), until: utc(request.query.until) }, cursor ? decodeCursor(cursor) : null, limit);
    return { items: page.articles, next: page.next ? encodeCursor(page.next) : null };
  });

  app.get<{ Params: { id: number } }>('/api/v1/articles/:id', {
    schema: { summary: 'An article with its versions and checks (as `forest history --json`)', tags: ['articles'], params: idParams, response: { 200: anything } },
  }, async (request) => {
    const article = await requireArticle(store, request.params.id);
    return historyView(article, await store.versions(article.id), await store.checks(article.id));
  });

  app.get<{ Params: { id: number; n: number } }>('/api/v1/articles/:id/versions/:n', {
    schema: { summary: 'One version of an article (as `forest show --json`)', tags: ['articles'], params: { type: 'object', properties: { id, n: id }, required: ['id', 'n'] }, response: { 200: anything } },
  }, async (request) => {
    const article = await requireArticle(store, request.params.id);
    const version = await requireVersion(store, article.id, request.params.n);
    return versionView(article, version, await store.sameArticleElsewhere(article.id), await store.versionPictures(article.id, version.n));
  });

  app.get<{ Params: { id: number }; Querystring: { from?: number; to?: number } }>('/api/v1/articles/:id/diff', {
    schema: {
      summary: 'What changed between two versions (default: the last edit), as `forest diff --json`', tags: ['articles'],
      params: idParams,
      querystring: { type: 'object', additionalProperties: false, properties: { from: id, to: id } },
      response: { 200: anything },
    },
  }, async (request) => {
    const article = await requireArticle(store, request.params.id);
    const to = request.query.to ?? article.versions;
    const from = request.query.from ?? to - 1;
    if (from < 1) throw new Problem(400, 'Nothing to compare', `article ${article.id} has a single version`);
    const before = await requireVersion(store, article.id, from);
    const after = await requireVersion(store, article.id, to);
    return diffView(article, before, after, compareVersions(before, after));
  });

  app.get<{ Querystring: { q: string; feed?: string; since?: string; until?: string; limit: number; offset: number } }>('/api/v1/search', {
    schema: {
      summary: 'Full-text search over every version (FTS5 syntax), one result per article, ranked', tags: ['search'],
      querystring: {
        type: 'object', additionalProperties: false, required: ['q'],
        properties: { q: { type: 'string', minLength: 1 }, feed: { type: 'string' }, since: isoTime, until: isoTime, limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: 20 }, offset: { type: 'integer', minimum: 0, default: 0 } },
      },
      response: { 200: { type: 'object', properties: { items: { type: 'array', items: anything } } } },
    },
  }, async (request) => {
    const { q, since, until, ...options } = request.query;
    try {
      return { items: await store.search(q, { ...options, since: utc(since), until: utc(until) }) };
    } catch (error) {
      if (error instanceof SearchQueryError) throw new Problem(400, 'Bad query', error.message);
      throw error;
    }
  });

  app.get('/api/v1/status', {
    schema: { summary: 'The daemons on this archive (daemon: the one heard from last; daemons: every one) and archive-wide totals', tags: ['status'], response: { 200: anything } },
  }, async () => {
    const [holder, daemons, totals, notifications] = await Promise.all([store.leaseHolder(), store.daemons(), store.totals(), store.notificationSummary()]);
    return { daemon: daemonStatus(holder), daemons: daemons.flatMap((one) => daemonStatus(one) ?? []), checks: totals.checks, versionsByMethod: totals.versionsByMethod, backlog: totals.backlog, articles: totals.articles, notifications: notifications.map(shownNotification) };
  });
}

/** Each feed as `forest feeds list --json` and `forest status --json` show it, merged. */
async function feedsWithStatus(store: WebArchive) {
  const [feeds, statuses] = await Promise.all([store.feeds(), store.feedStatuses()]);
  const statusOf = new Map(statuses.map((status) => [status.id, status]));
  return feeds.map((feed) => ({ ...statusOf.get(feed.id), id: feed.id, url: feed.subscribedUrl, fetchUrl: feed.url, title: feed.title, siteUrl: feed.siteUrl, tags: feed.tags, schedule: feed.schedule, format: feed.format }));
}
