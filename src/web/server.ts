import helmet from '@fastify/helmet';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import { loadCodec } from '../archive/codec.js';
import type { WebArchive } from '../archive/store.js';
import type { Settings } from '../config/settings.js';
import type { Logger } from '../util/logger.js';
import { FOREST_VERSION } from '../util/project-root.js';
import { createServer, type IncomingMessage, type RequestListener } from 'node:http';
import { actionRoutes, loggedIn, sessionOf, viewerOf } from './actions.js';
import { apiRoutes } from './api.js';
import { hasToken, writeRoutes } from './writes.js';
import { changeFeedRoutes } from './changes.js';
import { exportRoutes } from './exports.js';
import type { GuessLimit } from './guess-limit.js';
import type { HostNames } from './hosts.js';
import { capturePathOriginal, mementoRoutes } from './memento.js';
import { errorPage, pageRoutes, renderPage } from './pages.js';
import { Problem, problemDocument } from './problems.js';
import { captureTicket, Sessions, validCaptureTicket, type Viewer } from './session.js';
import { STYLESHEET } from './style.js';
import { originalCandidates } from './uri.js';
import { WEBSUB_PATH, websubRoutes } from './websub.js';

/** Where the server's two origins are, as browsers reach them (known once both listen: listen.ts). */
export interface Origins {
  /** The app's canonical origin: serve.publicUrl's, or the address it listens on. */
  app(): string;
  /** Every origin the app is reached at (the captures' frame-ancestors). */
  apps(): string[];
  /** The captures' origin. */
  capture(): string;
}

/** What both ports share: the names each answers to, and one count of wrong tokens (a guesser cannot switch ports). */
export interface Guards {
  hosts: HostNames;
  guesses: GuessLimit;
}

type ServeSettings = Pick<Settings, 'serve' | 'subscriptions' | 'websub' | 'database'>;

/**
 * A Node HTTP server with every timeout set (Node's own defaults leave a connection that sends
 * its body slowly, or nothing at all, open for minutes or forever): the headers and the whole
 * request must arrive within their limits, an idle connection is closed. The limits are checked
 * every second rather than Node's default 30.
 */
function timedServer(timeouts: Settings['serve']['timeouts']) {
  return (handler: RequestListener) => {
    const server = createServer({
      headersTimeout: Math.min(timeouts.headers, timeouts.request), requestTimeout: timeouts.request,
      keepAliveTimeout: Math.min(timeouts.idle, 5000), connectionsCheckingInterval: 1000,
    }, handler);
    server.setTimeout(timeouts.idle);
    return server;
  };
}

/** The first hook of either port: a request naming another host than this port's is answered 421 (hosts.ts). */
function ownNamesOnly(app: FastifyInstance, answers: (host: string | undefined) => boolean, where: () => string): void {
  app.addHook('onRequest', async (request) => {
    if (!answers(request.headers.host)) throw new Problem(421, 'Misdirected request', `this port answers as ${where()}, not as ${request.headers.host ?? '(no Host)'}; a name of your own goes in serve.allowedHosts`);
  });
}

/**
 * Every presentation of a token — a Bearer header on either port, here; the login form, in
 * actions.ts — is counted against the one limit of wrong tokens: past it, the client waits (429),
 * even with the right token.
 */
function countGuesses(app: FastifyInstance, token: string | null, guesses: GuessLimit): void {
  if (token === null) return;
  app.addHook('onRequest', async (request) => {
    if (request.headers.authorization === undefined) return;
    const now = Date.now();
    const wait = guesses.wait(request.ip, now);
    if (wait > 0) throw new Problem(429, 'Too many wrong tokens', `too many wrong tokens from this address: try again in ${wait} s`, { 'retry-after': String(wait) });
    if (!hasToken(request, token)) guesses.failed(request.ip, now);
  });
}

/**
 * `forest serve`: the archive in a browser and as JSON, read through the Store. Fastify (schema-
 * validated routes, a well-kept core) with @fastify/helmet (security headers and a Content
 * Security Policy: no script runs that the app did not send) and @fastify/swagger (the OpenAPI
 * document, built from the routes' own schemas). Errors under /api/ are problem documents
 * (RFC 9457); a browser gets an error page; neither ever shows a stack trace.
 */

export async function buildServer(store: WebArchive, settings: ServeSettings, log: Logger, origins: Origins, guards: Guards): Promise<FastifyInstance> {
  // Mementos are decoded here, on this thread.
  await loadCodec();
  // Fastify's own request log stays off: Forest's log gets the failures, which a line per request would bury.
  const app = Fastify({ logger: false, serverFactory: timedServer(settings.serve.timeouts), ajv: { customOptions: { coerceTypes: true, removeAdditional: false } } });
  const { token } = settings.serve;
  const sessions = token === null ? null : new Sessions(token);
  const viewer = (request: FastifyRequest) => viewerOf(request, sessions);
  handleErrors(app, log, viewer);
  ownNamesOnly(app, guards.hosts.app, origins.app);
  // Forest serves plain HTTP (TLS belongs to a reverse proxy in front): no HSTS, and no
  // upgrade-insecure-requests, which would send a browser to an https port nobody listens on.
  // Images stay same-origin: an archived article's images would tell their site who reads it.
  // The capture view frames archived pages from their own origin (startWeb). Styles and fonts
  // come from the app alone (helmet's default would take them from any https: source).
  await app.register(helmet, {
    strictTransportSecurity: false,
    // Nobody frames the app (clickjacking), in the old header's words too.
    xFrameOptions: { action: 'deny' },
    // The app frames only the capture origin.
    contentSecurityPolicy: { directives: { upgradeInsecureRequests: null, frameAncestors: ["'none'"], frameSrc: ["'self'", () => origins.capture() || "'self'"],
      // A diff shows a version's pictures, served from the capture origin like every requisite.
      imgSrc: ["'self'", 'data:', () => origins.capture() || "'self'"], styleSrc: ["'self'"], fontSrc: ["'self'"] } },
  });
  await app.register(swagger, {
    openapi: {
      info: { title: 'Forest', version: FOREST_VERSION, description: 'The archive of a Forest feed archiver: feeds, articles, their versions and checks, search.' },
      servers: [{ url: `http://${settings.serve.host}:${settings.serve.port}` }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'serve.token' } } },
    },
  });
  decimalIds(app);
  countGuesses(app, token, guards.guesses);
  if (!settings.serve.public) requireToken(app, token, sessions);
  privateAnswers(app, settings.serve.public, sessions);
  apiRoutes(app, store);
  writeRoutes(app, store, settings);
  formBodies(app);
  actionRoutes(app, store, settings, sessions, guards.guesses);
  // With reads behind the token, the frame the app embeds carries a ticket for its one URL.
  const ticket = !settings.serve.public && token !== null ? (original: string) => captureTicket(token, original, Date.now()) : null;
  const captureLink = (path: string, original: string) => `${origins.capture()}${ticket ? `/t/${ticket(original)}` : ''}${path}`;
  pageRoutes(app, store, captureLink, viewer);
  // Archived bytes are never served from the app's origin (a capture's script would be the app's
  // own, for its `script-src 'self'`): the app's memento URLs lead to the capture origin.
  mementoRoutes(app, store, { captureLink });
  changeFeedRoutes(app, store, origins.app);
  // Browsers ask for it on every site: no icon, and no 404 in the log for it.
  app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) => reply.code(204).header('cache-control', 'public, max-age=86400').send());
  app.get('/forest.css', { schema: { hide: true } }, async (_request, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET));
  exportRoutes(app, store, settings, log);
  websubRoutes(app, store, log, settings.websub);
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}

/**
 * The origin archived pages are shown from: only the Memento routes, each capture sandboxed
 * (memento.ts). On a port (and by default a host name: origins.ts) of its own, a capture's
 * origin is never the app's, even where a browser ignores the sandbox. With `serve.public:
 * false` it asks for the same credential as the app: the token, or a capture ticket the app
 * minted for the frame it embeds (`/t/<ticket>/memento/…`) — never the app's cookie.
 */
export async function buildCaptureServer(store: WebArchive, settings: ServeSettings, log: Logger, origins: Origins, guards: Guards): Promise<FastifyInstance> {
  await loadCodec();
  const tickets = new WeakMap<IncomingMessage, string>();
  const app = Fastify({
    logger: false,
    serverFactory: timedServer(settings.serve.timeouts),
    // The ticket is a path prefix: a capture's original URL keeps its own query string.
    rewriteUrl: (request) => {
      const url = request.url ?? '/';
      const match = /^\/t\/([^/]+)(\/.*)$/.exec(url);
      if (!match) return url;
      tickets.set(request, match[1]!);
      return match[2]!;
    },
  });
  handleErrors(app, log, () => null);
  ownNamesOnly(app, guards.hosts.capture, origins.capture);
  // Every answer, 404s included, with the security headers; only the app's origins may frame a
  // capture (asked at each answer: the app's port is known only once it listens).
  await app.register(helmet, {
    strictTransportSecurity: false,
    xFrameOptions: false,
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: [() => origins.apps().join(' ')] } },
  });
  const { token } = settings.serve;
  countGuesses(app, token, guards.guesses);
  if (!settings.serve.public) {
    if (token === null) throw new Error(NO_TOKEN);
    app.addHook('onRequest', async (request) => {
      if (hasToken(request, token)) return;
      const ticket = tickets.get(request.raw);
      const original = capturePathOriginal(request.url);
      // The ticket was minted for the URL as stored; a browser may send it percent-encoded (uri.ts).
      if (ticket === undefined || original === null || !originalCandidates(original).some((candidate) => validCaptureTicket(token, ticket, candidate, Date.now()))) {
        throw new Problem(401, 'Token required', 'captures need `Authorization: Bearer <serve.token>` (serve.public is false), or to be opened from the app\'s capture view');
      }
    });
    // A redirect to another capture of the same URL keeps the ticket.
    app.addHook('onSend', async (request, reply) => {
      const ticket = tickets.get(request.raw);
      const location = reply.getHeader('location');
      if (ticket !== undefined && typeof location === 'string' && location.startsWith('/')) reply.header('location', `/t/${ticket}${location}`);
    });
  }
  // A capture's requisites are asked for by the capture itself: their links carry tickets of their own.
  const ticketFor = settings.serve.public || token === null ? null : (url: string) => captureTicket(token, url, Date.now());
  mementoRoutes(app, store, { frameAncestors: origins.apps, ticketFor });
  return app;
}

/** The API and the exports answer errors with problem documents; pages, with a page. */
const forMachines = (url: string) => url.startsWith('/api/') || url.startsWith('/export.');

function handleErrors(app: FastifyInstance, log: Logger, viewer: (request: FastifyRequest) => Viewer): void {
  app.setErrorHandler((error: FastifyError | Problem, request, reply) => {
    const problem = error instanceof Problem ? error
      : error.validation ? new Problem(400, 'Bad request', error.message)
        : (error.statusCode ?? 500) < 500 ? new Problem(error.statusCode!, 'Bad request', error.message)
            : null;
    if (!problem) log.error({ err: error, url: request.url }, 'request failed');
    const [status, title, detail] = problem ? [problem.status, problem.title, problem.detail] : [500, 'Internal error', 'the server could not answer; the error is in its log'];
    if (problem) reply.headers(problem.headers);
    if (forMachines(request.url)) return reply.code(status).type('application/problem+json').send(problemDocument(status, title, detail, request.url));
    return reply.code(status).type('text/html; charset=utf-8').send(renderPage(errorPage(status, title, detail), viewer(request)));
  });
  app.setNotFoundHandler((request, reply) => {
    const detail = `nothing at ${request.url}`;
    if (forMachines(request.url)) return reply.code(404).type('application/problem+json').send(problemDocument(404, 'Not found', `${detail} (the routes are listed at /api/v1/openapi.json)`, request.url));
    return reply.code(404).type('text/html; charset=utf-8').send(renderPage(errorPage(404, 'Not found', detail), viewer(request)));
  });
}

/** The pages' forms send application/x-www-form-urlencoded (a few fields: parsed with URLSearchParams, no plugin needed). */
function formBodies(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
}

const NO_TOKEN = 'serve.public is false but serve.token is not set: set a token (e.g. `openssl rand -hex 32`) or make reads public';

/**
 * With `serve.public: false`, every request needs `Authorization: Bearer <serve.token>`, or (a
 * browser) a login: only the login page and its stylesheet are open.
 */
function requireToken(app: FastifyInstance, token: string | null, sessions: Sessions | null): void {
  if (token === null || sessions === null) throw new Error(NO_TOKEN);
  app.addHook('onRequest', async (request, reply) => {
    // A WebSub hub calls its callback without the token: the callback's own id and signature stand for it (websub.ts).
    if (request.url.split('?')[0] === '/login' || request.url === '/forest.css' || request.url === '/favicon.ico' || request.url.startsWith(WEBSUB_PATH) || loggedIn(request, sessions)) return;
    if (hasToken(request, token)) return;
    // A browser asking for a page is led to the login, and back to the page after it.
    if (request.method === 'GET' && !forMachines(request.url) && request.headers.authorization === undefined && /text\/html/.test(request.headers.accept ?? '')) {
      return reply.code(303).header('location', `/login?next=${encodeURIComponent(request.url)}`).send();
    }
    throw new Problem(401, 'Token required', 'this server needs `Authorization: Bearer <serve.token>` (serve.public is false), or a login in a browser: open /login');
  });
}

/**
 * What a signed-in reader sees, the API's answers, and everything when reads need the token, is
 * never kept by a browser's or a proxy's cache (`no-store`): the next person at the machine, or
 * behind the proxy, must not be shown it.
 */
function privateAnswers(app: FastifyInstance, open: boolean, sessions: Sessions | null): void {
  app.addHook('onSend', async (request, reply) => {
    if (reply.hasHeader('cache-control')) return;
    const signedIn = request.headers.authorization !== undefined || (sessions !== null && sessionOf(request) !== undefined);
    if (!open || signedIn || forMachines(request.url)) reply.header('cache-control', 'no-store');
  });
}

/**
 * A route's numeric path parameters (`:id`, `:n`) are decimal digits: the schema's coercion
 * would otherwise read `0x10` as 16 or `1e1` as 10, one article under many names.
 */
function decimalIds(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const params = request.params;
    if (typeof params !== 'object' || params === null) return;
    for (const [name, value] of Object.entries(params)) {
      if ((name === 'id' || name === 'n') && !/^\d{1,15}$/.test(String(value))) throw new Problem(400, 'Bad request', `params/${name} must be a whole number in decimal digits, got ${String(value)}`);
    }
  });
}
