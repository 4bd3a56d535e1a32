import { Command } from 'commander';
import { runDaemon } from '../daemon/service.js';
import { createLogger } from '../util/logger.js';
import { parseDuration } from '../util/units.js';
import { settingsFor } from './context.js';

export function durationOption(value: string): number {
  const millis = parseDuration(value);
  if (millis === undefined) throw new Error(`not a duration: ${value} (use e.g. 30s, 5m, 2h)`);
  return millis;
}

export function runCommand(): Command {
  return new Command('run')
    .option('--exit-after <duration>', 'stop gracefully after this long (e.g. 90s, 10m)', durationOption)
    .description('run the archiver: poll feeds on their schedules and capture the pages of new items (SIGHUP re-reads the list)')
    .action(async (options: { exitAfter?: number }, command: Command) => {
      const settings = settingsFor(command);
      const log = createLogger(settings.log, 1);
      await runDaemon({ settings, log, exitAfter: options.exitAfter, handleSignals: true });
      // The shutdown is complete (logs are written synchronously): exit now, even when an IPC
      // channel (pm2's) or another handle would keep the process alive — pm2 would otherwise wait
      // out its kill timeout and SIGKILL every stop and reload.
      process.exit(process.exitCode ?? 0);
    });
}
