import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebArchive } from '../archive/store.js';
import { ConfigError } from '../config/errors.js';
import type { Settings } from '../config/settings.js';
import { editSubscriptionList, listHome, type ListHome } from '../config/list-edits.js';
import { addSubscription, httpUrl, removeSubscription, setSubscriptionEnabled } from '../config/subscriptions.js';
import { idParams } from './api.js';
import { Problem } from './problems.js';
import { sameSecret } from './session.js';

/**
 * Writes through the API: subscribe, pause or resume, unsubscribe — the same edits of the YAML
 * list as `forest feeds …` (it stays the source of truth, comments kept), then the same sync into
 * the archive; a running daemon picks the list up on SIGHUP or its next sync. Every write needs
 * `Authorization: Bearer <serve.token>`; with no token set, writes are refused.
 */

/** The credentials of an `Authorization: Bearer …` header (the scheme is case-insensitive, RFC 7235 §2.1), or null for any other. */
function bearerOf(request: FastifyRequest): string | null {
  const match = /^bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
  return match ? match[1]! : null;
}

/** Whether `request` carries the token (compared in constant time: a wrong token's timing must not tell how much of it was right, nor how long it is). */
export function hasToken(request: FastifyRequest, token: string): boolean {
  // Compared even when no token was sent: the answer's timing tells nothing either way.
  const given = bearerOf(request);
  const same = sameSecret(given ?? '', token);
  return given !== null && same;
}

/** Refuses a request for `what` (writes, exports) without the token: 403 when none is set, 401 when it is missing or wrong. */
export function requireBearer(request: FastifyRequest, token: string | null, what: string): void {
  if (token === null) throw new Problem(403, `${what[0]!.toUpperCase()}${what.slice(1)} are off`, 'set serve.token in your settings (16+ characters, e.g. `openssl rand -hex 32`) and send it as `Authorization: Bearer <token>`');
  if (!hasToken(request, token)) throw new Problem(401, 'Token required', `${what} need \`Authorization: Bearer <serve.token>\``);
}

/** A list edit that went wrong, as the API says it. */
function asProblem(error: unknown): never {
  if (error instanceof ConfigError) {
    if (/already subscribed/.test(error.problem)) throw new Problem(409, 'Already subscribed', error.problem);
    if (/not subscribed/.test(error.problem)) throw new Problem(404, 'Not subscribed', error.problem);
    throw new Problem(400, 'Bad feed', error.message);
  }
  throw error;
}

/** The URL of a page to archive by hand, as the form or the API sent it (400 when it is no http(s) URL). */
export function pageUrl(given: string): string {
  const parsed = httpUrl.safeParse(given);
  if (!parsed.success) throw new Problem(400, 'Bad page URL', `${given.trim() || '(empty)'}: ${parsed.error.issues[0]?.message ?? 'not a URL'}`);
  return new URL(parsed.data).toString();
}

/** A subscription as the API and the pages' form send it. */
export interface NewSubscription {
  url: string;
  title?: string;
  tags?: string[];
  schedule?: string;
  enabled?: boolean;
}

/**
 * The list edits behind the API's writes and the pages' forms: an edit of the YAML list, then
 * the sync into the archive. A failure is a Problem (the API answers it as JSON, a page as a page).
 */
export function subscriptionEdits(store: WebArchive, home: ListHome) {
  // The archive follows the edit: the whole file on SQLite, only what the edit changed on a shared PostgreSQL archive (config/list-edits.ts).
  const edit = async <T>(change: (file: string) => T): Promise<T> => {
    try {
      return (await editSubscriptionList(store, home, change)).result;
    } catch (error) {
      return asProblem(error);
    }
  };
  const feed = async (id: number) => {
    const found = (await store.feeds()).find((candidate) => candidate.id === id);
    if (!found) throw new Problem(404, 'No such feed', `no feed ${id}`);
    return found;
  };
  return {
    feed,
    async add(subscription: NewSubscription, where: string) {
      let url = '';
      url = await edit((file) => addSubscription(file, subscription, where));
      return (await store.feeds()).find((candidate) => candidate.subscribedUrl === url);
    },
    async setEnabled(id: number, enabled: boolean) {
      const found = await feed(id);
      await edit((file) => setSubscriptionEnabled(file, found.subscribedUrl, enabled));
      return feed(id);
    },
    async remove(id: number) {
      const found = await feed(id);
      await edit((file) => removeSubscription(file, found.subscribedUrl));
    },
  };
}

export function writeRoutes(app: FastifyInstance, store: WebArchive, settings: Pick<Settings, 'serve' | 'subscriptions' | 'database'>): void {
  const edits = subscriptionEdits(store, listHome(settings));
  const writer = { onRequest: async (request: FastifyRequest) => requireBearer(request, settings.serve.token, 'writes') };

  app.post<{ Body: NewSubscription }>('/api/v1/feeds', {
    ...writer,
    schema: {
      summary: 'Subscribe to a feed (needs the token)', tags: ['feeds'], security: [{ bearer: [] }],
      body: {
        type: 'object', additionalProperties: false, required: ['url'],
        properties: { url: { type: 'string' }, title: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, schedule: { type: 'string', description: 'a cron expression instead of the learned schedule' }, enabled: { type: 'boolean' } },
      },
    },
  }, async (request, reply) => {
    const feed = await edits.add(request.body, 'request body');
    return reply.code(201).header('location', `/api/v1/feeds/${feed?.id}`).send(feed);
  });

  app.post<{ Body: { url: string } }>('/api/v1/pages', {
    ...writer,
    schema: {
      summary: 'Archive a page that is in no feed: queued for the daemon, then revisited like an item\'s page (needs the token)', tags: ['pages'], security: [{ bearer: [] }],
      body: { type: 'object', additionalProperties: false, required: ['url'], properties: { url: { type: 'string' } } },
    },
  }, async (request, reply) => {
    const [queued] = await store.addPages([pageUrl(request.body.url)], new Date());
    return reply.code(202).send(queued);
  });

  app.patch<{ Params: { id: number }; Body: { enabled: boolean } }>('/api/v1/feeds/:id', {
    ...writer,
    schema: {
      summary: 'Pause or resume polling a feed (needs the token)', tags: ['feeds'], security: [{ bearer: [] }],
      params: idParams,
      body: { type: 'object', additionalProperties: false, required: ['enabled'], properties: { enabled: { type: 'boolean' } } },
    },
  }, async (request) => edits.setEnabled(request.params.id, request.body.enabled));

  app.delete<{ Params: { id: number } }>('/api/v1/feeds/:id', {
    ...writer,
    schema: {
      summary: 'Unsubscribe (the archive keeps what it archived; needs the token)', tags: ['feeds'], security: [{ bearer: [] }],
      params: idParams,
    },
  }, async (request, reply) => {
    await edits.remove(request.params.id);
    return reply.code(204).send();
  });
}
