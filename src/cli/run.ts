import { Command, InvalidArgumentError } from 'commander';
import type { Store } from '../archive/store.js';
import { runDaemon } from '../daemon/service.js';
import { startWeb, type RunningWeb } from '../web/listen.js';
import { createLogger } from '../util/logger.js';
import { parseDuration } from '../util/units.js';
import { settingsFor } from './context.js';

export function durationOption(value: string): number {
  const millis = parseDuration(value);
  if (millis === undefined) throw new InvalidArgumentError(`not a duration: ${value} (use e.g. 30s, 5m, 2h)`);
  return millis;
}

export function runCommand(): Command {
  return new Command('run')
    .option('--exit-after <duration>', 'stop gracefully after this long (e.g. 90s, 10m)', durationOption)
    .option('--serve', 'also serve the web app and the HTTP API from this process, on serve.host:serve.port (as `forest serve`)')
    .description('run the archiver (the daemon): poll feeds, capture and extract the page of every new item, revisit articles and record their versions, until stopped')
    .addHelpText('after', `
What it does:
  Polls each subscribed feed (the list in config/feeds.yaml, or \`subscriptions\`) on a schedule
  learned from its publishing rhythm (or its cron expression), captures the page behind every new
  item, extracts the article object (a FOREST wrapper per site template once there are a few
  pages, single-page SIGFEED before), and revisits each article to record a new version when the
  article itself changed. Everything goes into the database (\`database.path\`, or --db); a
  restart carries on from it, and a second daemon on the same database is refused.

  It logs one line a minute (work done, work waiting, memory); \`forest status\` shows the same.
  SIGINT/SIGTERM stop it gracefully (in-flight work finishes within shutdown.deadline); SIGHUP
  re-reads the subscription list.

Settings that matter most (config/default.yaml documents them all; override with --config FILE):
  http.perHostDelay     time between two requests to one host (2s)
  http.concurrency      requests in flight over all hosts (8)
  schedule.minInterval  / maxInterval: bounds on a feed's poll interval (5m / 24h)
  revisit.after         gaps between revisits of an article ([1h, 6h, 1d, 3d, 7d, 30d])
  extract.learnAfter    pages of a template before a wrapper is learned (3)
  retention.polls       / checks: age after which poll and check logs are summarised (90d / 180d)
  workers               worker threads for CPU work (auto: one per core)
  log.level             debug, info, warn or error (info)
`)
    .action(async (options: { exitAfter?: number; serve?: boolean }, command: Command) => {
      const settings = settingsFor(command);
      const log = createLogger(settings.log, 1);
      let web: RunningWeb | null = null;
      const serve = async (store: Store) => {
        web = await startWeb(store, settings, log);
        log.info({ captures: web.captureUrl }, `listening on ${web.url}`);
      };
      await runDaemon({
        settings, log, exitAfter: options.exitAfter, handleSignals: true,
        // A server that cannot start (the port is taken) stops the daemon too: `--serve` asked for both.
        onReady: options.serve ? (store) => void serve(store).catch((error: unknown) => {
          log.error({ err: error }, 'the web server could not start; stopping');
          process.kill(process.pid, 'SIGTERM');
        }) : undefined,
        beforeClose: async () => {
          await web?.close();
        },
      });
      // The shutdown is complete (logs are written synchronously): exit now, even when an IPC
      // channel (pm2's) or another handle would keep the process alive — pm2 would otherwise wait
      // out its kill timeout and SIGKILL every stop and reload.
      process.exit(process.exitCode ?? 0);
    });
}
