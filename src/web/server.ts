import helmet from '@fastify/helmet';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { loadCodec } from '../archive/codec.js';
import type { Store } from '../archive/store.js';
import type { Settings } from '../config/settings.js';
import type { Logger } from '../util/logger.js';
import { FOREST_VERSION } from '../util/project-root.js';
import { actionRoutes, loggedIn, viewerOf } from './actions.js';
import { apiRoutes } from './api.js';
import { hasToken, writeRoutes } from './writes.js';
import { changeFeedRoutes } from './changes.js';
import { exportRoutes } from './exports.js';
import { mementoRoutes } from './memento.js';
import { errorPage, pageRoutes } from './pages.js';
import { Problem, problemDocument } from './problems.js';

/**
 * `forest serve`: the archive in a browser and as JSON, read through the Store. Fastify (schema-
 * validated routes, a well-kept core) with @fastify/helmet (security headers and a Content
 * Security Policy: no script runs that the app did not send) and @fastify/swagger (the OpenAPI
 * document, built from the routes' own schemas). Errors under /api/ are problem documents
 * (RFC 9457); a browser gets an error page; neither ever shows a stack trace.
 */

export async function buildServer(store: Store, settings: Pick<Settings, 'serve' | 'subscriptions'>, log: Logger, captureOrigin: () => string): Promise<FastifyInstance> {
  // Mementos are decoded here, on this thread.
  await loadCodec();
  // Fastify's own request log stays off: Forest's log gets the failures, which a line per request would bury.
  const app = Fastify({ logger: false, ajv: { customOptions: { coerceTypes: true, removeAdditional: false } } });
  // Forest serves plain HTTP (TLS belongs to a reverse proxy in front): no HSTS, and no
  // upgrade-insecure-requests, which would send a browser to an https port nobody listens on.
  // Images stay same-origin: an archived article's images would tell their site who reads it.
  // The capture view frames archived pages from their own origin (startWeb).
  await app.register(helmet, {
    strictTransportSecurity: false,
    // Nobody frames the app (clickjacking); the app frames only the capture origin.
    contentSecurityPolicy: { directives: { upgradeInsecureRequests: null, frameAncestors: ["'none'"], frameSrc: ["'self'", () => captureOrigin() || "'self'"] } },
  });
  await app.register(swagger, {
    openapi: {
      info: { title: 'Forest', version: FOREST_VERSION, description: 'The archive of a Forest feed archiver: feeds, articles, their versions and checks, search.' },
      servers: [{ url: `http://${settings.serve.host}:${settings.serve.port}` }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'serve.token' } } },
    },
  });
  handleErrors(app, log);
  if (!settings.serve.public) requireToken(app, settings.serve.token);
  apiRoutes(app, store);
  writeRoutes(app, store, settings);
  formBodies(app);
  actionRoutes(app, store, settings);
  pageRoutes(app, store, captureOrigin, (request) => viewerOf(request, settings.serve.token));
  mementoRoutes(app, store);
  changeFeedRoutes(app, store);
  exportRoutes(app, store, settings, log);
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}

/**
 * The origin archived pages are shown from: only the Memento routes, each capture sandboxed
 * (memento.ts). On a port of its own, a capture's origin is never the app's, even where a
 * browser ignores the sandbox.
 */
export async function buildCaptureServer(store: Store, log: Logger): Promise<FastifyInstance> {
  await loadCodec();
  const app = Fastify({ logger: false });
  handleErrors(app, log);
  mementoRoutes(app, store);
  return app;
}

/** The API and the exports answer errors with problem documents; pages, with a page. */
const forMachines = (url: string) => url.startsWith('/api/') || url.startsWith('/export.');

function handleErrors(app: FastifyInstance, log: Logger): void {
  app.setErrorHandler((error: FastifyError | Problem, request, reply) => {
    const problem = error instanceof Problem ? error
      : error.validation ? new Problem(400, 'Bad request', error.message)
        : (error.statusCode ?? 500) < 500 ? new Problem(error.statusCode!, 'Bad request', error.message)
          : null;
    if (!problem) log.error({ err: error, url: request.url }, 'request failed');
    const [status, title, detail] = problem ? [problem.status, problem.title, problem.detail] : [500, 'Internal error', 'the server could not answer; the error is in its log'];
    if (forMachines(request.url)) return reply.code(status).type('application/problem+json').send(problemDocument(status, title, detail, request.url));
    return reply.code(status).type('text/html; charset=utf-8').send(errorPage(status, title, detail));
  });
  app.setNotFoundHandler((request, reply) => {
    const detail = `nothing at ${request.url}`;
    if (forMachines(request.url)) return reply.code(404).type('application/problem+json').send(problemDocument(404, 'Not found', `${detail} (the routes are listed at /api/v1/openapi.json)`, request.url));
    return reply.code(404).type('text/html; charset=utf-8').send(errorPage(404, 'Not found', detail));
  });
}

/** The pages' forms send application/x-www-form-urlencoded (a few fields: parsed with URLSearchParams, no plugin needed). */
function formBodies(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
}

/**
 * With `serve.public: false`, every request needs `Authorization: Bearer <serve.token>`, or (a
 * browser) a login: only the login page is open.
 */
function requireToken(app: FastifyInstance, token: string | null): void {
  if (token === null) throw new Error('serve.public is false but serve.token is not set: set a token (e.g. `openssl rand -hex 32`) or make reads public');
  app.addHook('onRequest', async (request) => {
    if (request.url === '/login' || loggedIn(request, token)) return;
    if (!hasToken(request, token)) throw new Problem(401, 'Token required', 'this server needs `Authorization: Bearer <serve.token>` (serve.public is false), or a login in a browser: open /login');
  });
}
