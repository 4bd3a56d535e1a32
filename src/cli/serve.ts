import { Command, InvalidArgumentError } from 'commander';
import { createLogger } from '../util/logger.js';
import { startWeb } from '../web/listen.js';
import { settingsFor, withStore } from './context.js';

function portOption(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError(`not a port: ${value} (0–65535; 0 picks a free one)`);
  return port;
}

export function serveCommand(): Command {
  return new Command('serve')
    .option('--host <address>', 'address to listen on (default: serve.host, 127.0.0.1)')
    .option('--port <port>', 'port to listen on (default: serve.port, 8080; 0 picks a free one)', portOption)
    .description('serve the archive: the web app (dashboard, article pages) and the HTTP API under /api/v1 (OpenAPI at /api/v1/openapi.json), reading the database the daemon writes; until SIGINT/SIGTERM')
    .action(async (options: { host?: string; port?: number }, command: Command) => {
      const settings = settingsFor(command);
      const serve = { ...settings.serve, host: options.host ?? settings.serve.host, port: options.port ?? settings.serve.port };
      await withStore(settings, async (store) => {
        const web = await startWeb(store, { serve, subscriptions: settings.subscriptions, websub: settings.websub, database: settings.database }, createLogger(settings.log));
        console.log(`listening on ${web.url}`);
        console.log(`archived pages from ${web.captureUrl}`);
        // Until a signal: then requests in flight finish, the port closes, the archive is closed.
        await new Promise<void>((resolve) => {
          const stop = () => {
            process.off('SIGINT', stop);
            process.off('SIGTERM', stop);
            resolve();
          };
          process.on('SIGINT', stop);
          process.on('SIGTERM', stop);
        });
        await web.close();
      });
      console.log('stopped');
    });
}
