import type { FastifyInstance } from 'fastify';
import type { Store } from '../archive/store.js';
import type { Settings } from '../config/settings.js';
import type { Logger } from '../util/logger.js';
import { buildCaptureServer, buildServer } from './server.js';

/** The two origins `forest serve` listens on: the app, and the archived pages (sandboxed, on a port of their own). */
export interface RunningWeb {
  url: string;
  captureUrl: string;
  close(): Promise<void>;
}

const origin = (host: string, app: FastifyInstance) => {
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
};

/**
 * Starts the app on serve.host:serve.port and the captures on serve.capturePort (port + 1 by
 * default; with port 0, any free port too). Closing stops both; requests in flight finish.
 */
export async function startWeb(store: Store, settings: Pick<Settings, 'serve' | 'subscriptions'>, log: Logger): Promise<RunningWeb> {
  const { host, port } = settings.serve;
  let captureUrl = '';
  const app = await buildServer(store, settings, log, () => captureUrl);
  const captures = await buildCaptureServer(store, log);
  await app.listen({ host, port });
  try {
    await captures.listen({ host, port: settings.serve.capturePort ?? (port === 0 ? 0 : port + 1) });
  } catch (error) {
    await app.close();
    throw error;
  }
  captureUrl = settings.serve.captureOrigin ?? origin(host, captures);
  return {
    url: origin(host, app),
    captureUrl,
    async close() {
      await Promise.all([app.close(), captures.close()]);
    },
  };
}
