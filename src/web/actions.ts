import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebArchive } from '../archive/store.js';
import { listHome } from '../config/list-edits.js';
import type { Settings } from '../config/settings.js';
import { idParams } from './api.js';
import { loginPage, renderPage } from './pages.js';
import { Problem } from './problems.js';
import type { GuessLimit } from './guess-limit.js';
import { cookieValue, sameSecret, SESSION_COOKIE, type Sessions, type Viewer } from './session.js';
import { pageUrl, subscriptionEdits } from './writes.js';
import { HAND_LIST_URL } from '../archive/store.js';

/**
 * The pages' actions: log in with serve.token, then subscribe, pause or resume, and unsubscribe
 * from the dashboard and feed pages — plain HTML forms (no script needed), each checked for the
 * session and its CSRF token, and done by the same list edits as the API's writes.
 */

/** The session id a request's cookie names (valid or not). */
export const sessionOf = (request: FastifyRequest) => cookieValue(request.headers.cookie, SESSION_COOKIE);

/** The viewer of a request, for the pages to show the forms or the login link. */
export function viewerOf(request: FastifyRequest, sessions: Sessions | null): Viewer {
  const id = sessionOf(request);
  return sessions !== null && id !== undefined && sessions.valid(id, Date.now()) ? { csrf: sessions.csrf(id) } : null;
}

/** Whether a request carries a live login (the token's other form, for `serve.public: false`). */
export const loggedIn = (request: FastifyRequest, sessions: Sessions) => sessions.valid(sessionOf(request), Date.now());

type Form = Record<string, string | undefined>;

const formOf = (request: FastifyRequest): Form => (request.body && typeof request.body === 'object' ? (request.body as Form) : {});

/**
 * The session cookie; Secure when the browser reached Forest over https (a TLS proxy in front says
 * so in X-Forwarded-Proto — a client that says it falsely only stops its own cookie coming back).
 */
const sessionCookie = (request: FastifyRequest, value: string, maxAge: number) =>
  `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${request.headers['x-forwarded-proto'] === 'https' ? '; Secure' : ''}`;

const back = (reply: FastifyReply, to: string) => reply.code(303).header('location', to).send();

/** A page of this app to return to after logging in: a path, never another origin (`//evil.example`, `/\\evil.example`). */
export const localPath = (given: string | undefined): string | null => (given !== undefined && /^\/(?![/\\])[^\s]*$/.test(given) ? given : null);

export function actionRoutes(app: FastifyInstance, store: WebArchive, settings: Pick<Settings, 'serve' | 'subscriptions' | 'database'>, sessions: Sessions | null, limit: GuessLimit): void {
  const { token } = settings.serve;
  const edits = subscriptionEdits(store, listHome(settings));
  const page = (reply: FastifyReply, status: number, problem: string | null, next: string | null = null) =>
    reply.code(status).type('text/html; charset=utf-8').send(renderPage(loginPage(token !== null, problem, next), null));

  /** An action needs a login and the form's CSRF token. */
  const guarded = {
    onRequest: async (request: FastifyRequest) => {
      if (sessions === null) throw new Problem(403, 'Actions are off', 'set serve.token in your settings to log in and change subscriptions here');
      if (!loggedIn(request, sessions)) throw new Problem(401, 'Log in first', 'this action needs a login: open /login');
    },
    preHandler: async (request: FastifyRequest) => {
      if (!sessions!.validCsrf(sessionOf(request)!, formOf(request)['_csrf'])) throw new Problem(403, 'Form expired', 'the form did not come from this session: reload the page and try again');
    },
  };
  /** A form's fields: strings of a sane length, the CSRF token among them (checked in preHandler). */
  const formSchema = (fields: Record<string, number>, required: string[] = []) => ({
    // The CSRF token is not required here: a form without one is refused by preHandler, saying why.
    type: 'object', required,
    properties: { _csrf: { type: 'string', maxLength: 100 }, ...Object.fromEntries(Object.entries(fields).map(([name, maxLength]) => [name, { type: 'string', maxLength }])) },
  });

  app.get<{ Querystring: { next?: string } }>('/login', { schema: { hide: true, querystring: { type: 'object', properties: { next: { type: 'string', maxLength: 2000 } } } } },
    async (request, reply) => page(reply, 200, null, localPath(request.query.next)));

  app.post('/login', { schema: { hide: true, body: { type: 'object', required: ['token'], properties: { token: { type: 'string', maxLength: 1000 }, next: { type: 'string', maxLength: 2000 } } } } }, async (request, reply) => {
    const next = localPath(formOf(request)['next']);
    if (token === null || sessions === null) return page(reply, 403, 'Logging in is off: set serve.token in your settings first.');
    const now = Date.now();
    const wait = limit.wait(request.ip, now);
    if (wait > 0) return page(reply.header('retry-after', String(wait)), 429, `Too many wrong tokens from this address: try again in ${wait} s.`);
    const given = formOf(request)['token'] ?? '';
    if (!sameSecret(given, token)) {
      limit.failed(request.ip, now);
      return page(reply, 401, 'That is not the token in serve.token.', next);
    }
    return back(reply.header('set-cookie', sessionCookie(request, sessions.create(now), sessions.lifetimeSeconds)), next ?? '/');
  });

  // Logging out ends the session on the server, for every copy of its cookie. It needs no form
  // token: the cookie is SameSite=Strict, so another site cannot make a browser log out with it.
  app.post('/logout', { schema: { hide: true } }, async (request, reply) => {
    sessions?.end(sessionOf(request));
    return back(reply.header('set-cookie', sessionCookie(request, '', 0)), '/');
  });

  app.post('/feeds', { ...guarded, schema: { hide: true, body: formSchema({ url: 2000, title: 500, tags: 1000 }, ['url']) } }, async (request, reply) => {
    const form = formOf(request);
    const tags = (form['tags'] ?? '').split(',').map((tag) => tag.trim()).filter(Boolean);
    const feed = await edits.add({ url: (form['url'] ?? '').trim(), ...(form['title']?.trim() ? { title: form['title'].trim() } : {}), ...(tags.length ? { tags } : {}) }, 'the form');
    return back(reply, feed ? `/feeds/${feed.id}` : '/');
  });

  // Archive a page that is in no feed (issue #67): queued for the daemon, listed with the pages archived by hand.
  app.post('/pages', { ...guarded, schema: { hide: true, body: formSchema({ url: 2000 }, ['url']) } }, async (request, reply) => {
    await store.addPages([pageUrl(formOf(request)['url'] ?? '')], new Date());
    return back(reply, `/articles?feed=${encodeURIComponent(HAND_LIST_URL)}&queued=1`);
  });

  app.post<{ Params: { id: number } }>('/feeds/:id/enabled', { ...guarded, schema: { hide: true, params: idParams, body: { ...formSchema({}, ['enabled']), properties: { ...formSchema({}).properties, enabled: { enum: ['true', 'false'] } } } } }, async (request, reply) => {
    await edits.setEnabled(request.params.id, formOf(request)['enabled'] === 'true');
    return back(reply, `/feeds/${request.params.id}`);
  });

  // Poll now: the feed is due at once; a running daemon polls it within seconds.
  app.post<{ Params: { id: number } }>('/feeds/:id/poll', { ...guarded, schema: { hide: true, params: idParams, body: formSchema({}) } }, async (request, reply) => {
    const feed = await edits.feed(request.params.id);
    await store.pollNow({ urls: [feed.url] }, new Date());
    return back(reply, `/feeds/${request.params.id}`);
  });

  app.post<{ Params: { id: number } }>('/feeds/:id/unsubscribe', { ...guarded, schema: { hide: true, params: idParams, body: formSchema({}) } }, async (request, reply) => {
    await edits.remove(request.params.id);
    return back(reply, '/');
  });
}
