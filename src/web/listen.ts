import type { FastifyInstance } from 'fastify';
import type { WebArchive } from '../archive/store.js';
import type { Settings } from '../config/settings.js';
import type { Logger } from '../util/logger.js';
import { appOrigins, captureHostName, captureListenHost, httpOrigin, otherLoopbackName } from './origins.js';
import { GuessLimit } from './guess-limit.js';
import { hostNames } from './hosts.js';
import { buildCaptureServer, buildServer, type Guards, type Origins } from './server.js';

/** The two origins `forest serve` listens on: the app, and the archived pages (sandboxed, on a port of their own). */
export interface RunningWeb {
  url: string;
  captureUrl: string;
  close(): Promise<void>;
}

const portOf = (app: FastifyInstance) => {
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : 0;
};

/**
 * Starts the app on serve.host:serve.port and the captures on serve.capturePort (port + 1 by
 * default; with port 0, any free port too). Closing stops both; requests in flight finish.
 */
export async function startWeb(store: WebArchive, settings: Pick<Settings, 'serve' | 'subscriptions' | 'websub' | 'database'>, log: Logger): Promise<RunningWeb> {
  const { host, port, publicUrl, captureOrigin, allowedHosts } = settings.serve;
  let appPort = 0;
  let capturePort = 0;
  const origins: Origins = {
    app: () => (publicUrl ? new URL(publicUrl).origin : httpOrigin(host, appPort)),
    apps: () => appOrigins(publicUrl, host, appPort, allowedHosts),
    capture: () => captureOrigin ?? httpOrigin(captureHostName(settings.serve), capturePort),
  };
  const guards: Guards = { hosts: hostNames(settings.serve, captureHostName(settings.serve)), guesses: new GuessLimit() };
  const app = await buildServer(store, settings, log, origins, guards);
  const captures = await buildCaptureServer(store, settings, log, origins, guards);
  await app.listen({ host, port });
  appPort = portOf(app);
  try {
    await captures.listen({ host: captureListenHost(host), port: settings.serve.capturePort ?? (port === 0 ? 0 : port + 1) });
  } catch (error) {
    await app.close();
    throw error;
  }
  capturePort = portOf(captures);
  if (captureOrigin === null && otherLoopbackName(host) === null && settings.serve.token !== null) {
    log.warn(`the captures are served on ${host} too, so a browser sends them the app's login cookie (cookies ignore ports): give them a host name of their own with serve.captureOrigin`);
  }
  return {
    url: httpOrigin(host, appPort),
    captureUrl: origins.capture(),
    async close() {
      await Promise.all([app.close(), captures.close()]);
    },
  };
}
