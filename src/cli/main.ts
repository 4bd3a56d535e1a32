import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/errors.js';
import { articlesCommand, diffCommand, historyCommand, showCommand } from './articles.js';
import { backupCommand } from './backup.js';
import { checkCommand } from './check.js';
import { copyCommand } from './copy.js';
import { UsageError } from './context.js';
import { demoCommand } from './demo.js';
import { exportCommand } from './export.js';
import { extractCommand, learnCommand } from './extract.js';
import { feedsCommand } from './feeds.js';
import { parseFeedCommand } from './parse-feed.js';
import { runCommand } from './run.js';
import { scheduleSimCommand } from './schedule-sim.js';
import { searchCommand } from './search.js';
import { notifyCommand } from './notify.js';
import { serveCommand } from './serve.js';
import { serveSyntheticCommand } from './serve-synthetic.js';
import { statusCommand } from './status.js';
import { vacuumCommand } from './vacuum.js';
import { FOREST_VERSION } from '../util/project-root.js';

// `forest articles --json | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const program = new Command('forest')
  .description('Forest: a feed-monitoring archiver. Polls RSS/Atom/JSON feeds, captures the page behind every item, archives it in SQLite.')
  .option('--config <file>', 'settings file overriding config/default.yaml')
  .option('--db <path|url>', 'the archive: a SQLite file (overrides database.path) or postgres://… (overrides database.url)')
  .version(FOREST_VERSION, '-V, --version', 'print Forest\'s version');

for (const command of [runCommand(), feedsCommand(), statusCommand(), articlesCommand(), showCommand(), historyCommand(), diffCommand(), searchCommand(), exportCommand(), parseFeedCommand(), extractCommand(), learnCommand(), scheduleSimCommand(), demoCommand(), serveCommand(), serveSyntheticCommand(), vacuumCommand(), backupCommand(), copyCommand(), checkCommand(), notifyCommand()]) {
  program.addCommand(command);
}

/**
 * Usage errors of every command come back here (exitOverride) to get one exit code, and are
 * followed by one line saying where the usage is — not the whole help, which buries the error.
 */
function handleUsageErrors(command: Command, path: string): void {
  command.exitOverride().showHelpAfterError(`(see \`${path} --help\`)`);
  for (const sub of command.commands) handleUsageErrors(sub, `${path} ${sub.name()}`);
}
handleUsageErrors(program, 'forest');

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // commander has printed the error (or the help, or the version); a usage error exits 2 like
    // every other mistake in how forest was called.
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else if (error instanceof ConfigError || error instanceof UsageError) {
    process.stderr.write(`forest: ${error.message}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`forest: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
