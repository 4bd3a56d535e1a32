import { Command } from 'commander';
import { resolve } from 'node:path';
import { printJson, settingsFor, withStore } from './context.js';

export function backupCommand(): Command {
  return new Command('backup')
    .argument('<file>', 'where to write the copy (a new SQLite file)')
    .option('--force', 'replace FILE if it exists')
    .option('--json', 'one JSON object: file, bytes, ms')
    .description('an online, consistent copy of the archive, safe while the daemon runs (SQLite\'s backup API); restore by pointing --db (or database.path) at the copy')
    .action(async (file: string, options: { force?: boolean; json?: boolean }, command: Command) => {
      const target = resolve(file);
      const report = await withStore(settingsFor(command), (store) => store.backup(target, { overwrite: Boolean(options.force) }));
      if (options.json) return printJson(report);
      console.log(`backed up the archive to ${report.file} (${(report.bytes / 2 ** 20).toFixed(1)} MB in ${(report.ms / 1000).toFixed(1)} s)`);
      console.log(`to restore: stop the daemon, then run it with --db ${report.file} (or copy the file to database.path); \`forest check --db ${report.file}\` verifies the copy`);
    });
}
