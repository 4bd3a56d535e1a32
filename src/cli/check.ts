import { Command } from 'commander';
import { printJson, settingsFor, withStore } from './context.js';

export function checkCommand(): Command {
  return new Command('check')
    .option('--json', 'one JSON object: ok, and each check with its problems')
    .description('verify the archive: SQLite integrity, foreign keys, the search index, stored bodies; exit 1 with the list when something is wrong (safe while the daemon runs)')
    .action(async (options: { json?: boolean }, command: Command) => {
      const checks = await withStore(settingsFor(command), (store) => store.verify());
      const ok = checks.every((check) => check.problems.length === 0);
      if (options.json) printJson({ ok, checks });
      else {
        for (const check of checks) {
          console.log(`${check.problems.length === 0 ? 'ok    ' : 'FAILED'}  ${check.name}`);
          for (const problem of check.problems) console.log(`        ${problem}`);
        }
        console.log(ok ? 'the archive is consistent' : 'problems found (see above)');
      }
      if (!ok) process.exitCode = 1;
    });
}
