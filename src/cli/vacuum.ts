import { Command } from 'commander';
import { retentionAges } from '../daemon/service.js';
import { printJson, settingsFor, withStore } from './context.js';

export function vacuumCommand(): Command {
  return new Command('vacuum')
    .option('--full', 'also rewrite the file to give free space back to the file system (holds the write lock while it runs: the daemon waits)')
    .option('--json', 'one JSON object: rows summarised, bytes before and after')
    .description('summarise and drop polls and checks older than retention.polls / retention.checks, drop the requisites no kept capture lists (the daemon also does this daily); --full reclaims disk space')
    .action(async (options: { full?: boolean; json?: boolean }, command: Command) => {
      const settings = settingsFor(command);
      const result = await withStore(settings, async (store) => {
        const bytesBefore = await store.size();
        const report = await store.applyRetention(retentionAges(settings), new Date());
        if (options.full) await store.compact();
        return { ...report, full: Boolean(options.full), bytesBefore, bytesAfter: await store.size() };
      });
      const before = result.bytesBefore;
      if (options.json) return printJson(result);
      console.log(`summarised and dropped ${result.polls} polls and ${result.checks} checks; dropped ${result.requisites} requisites of captures found unchanged; database ${(before / 2 ** 20).toFixed(1)} MB → ${(result.bytesAfter / 2 ** 20).toFixed(1)} MB${options.full ? '' : ' (free pages are reused; --full gives them back to the file system)'}`);
    });
}
