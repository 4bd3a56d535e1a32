import { Command } from 'commander';
import { statSync } from 'node:fs';
import { applyRetention, vacuum } from '../archive/retention.js';
import { retentionAges } from '../daemon/service.js';
import { printJson, settingsFor, withDatabase } from './context.js';

const fileSize = (path: string) => ['', '-wal'].reduce((sum, suffix) => sum + (statSync(`${path}${suffix}`, { throwIfNoEntry: false })?.size ?? 0), 0);

export function vacuumCommand(): Command {
  return new Command('vacuum')
    .option('--full', 'also rewrite the file to give free space back to the file system (holds the write lock while it runs: the daemon waits)')
    .option('--json', 'one JSON object: rows summarised, bytes before and after')
    .description('summarise and drop polls and checks older than retention.polls / retention.checks (the daemon also does this daily); --full reclaims disk space')
    .action(async (options: { full?: boolean; json?: boolean }, command: Command) => {
      const settings = settingsFor(command);
      const path = settings.database.path;
      const before = fileSize(path);
      const summarised = await withDatabase(settings, (db) => {
        const report = applyRetention(db, retentionAges(settings), new Date());
        if (options.full) vacuum(db);
        return report;
      });
      const result = { ...summarised, full: Boolean(options.full), bytesBefore: before, bytesAfter: fileSize(path) };
      if (options.json) return printJson(result);
      console.log(`summarised and dropped ${result.polls} polls and ${result.checks} checks; database ${(before / 2 ** 20).toFixed(1)} MB → ${(result.bytesAfter / 2 ** 20).toFixed(1)} MB${options.full ? '' : ' (free pages are reused; --full gives them back to the file system)'}`);
    });
}
