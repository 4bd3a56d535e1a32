import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/errors.js';
import { UsageError } from './context.js';
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

/**
 * Each command's module, loaded when the command is used: `forest --version` loads none, `forest
 * status` its own and what it needs — not the daemon, the web server, the extractor and every
 * other command's dependencies. `--help`, no command or an unknown one load them all (the help
 * lists them; commander names the unknown one). In the order the help lists them.
 */
const COMMANDS: ReadonlyArray<[names: string[], load: () => Promise<Command[]>]> = [
  [['run'], async () => [(await import('./run.js')).runCommand()]],
  [['feeds'], async () => [(await import('./feeds.js')).feedsCommand()]],
  [['status'], async () => [(await import('./status.js')).statusCommand()]],
  [['capture'], async () => [(await import('./capture.js')).captureCommand()]],
  [['articles', 'show', 'history', 'diff'], async () => {
    const module = await import('./articles.js');
    return [module.articlesCommand(), module.showCommand(), module.historyCommand(), module.diffCommand()];
  }],
  [['search'], async () => [(await import('./search.js')).searchCommand()]],
  [['export'], async () => [(await import('./export.js')).exportCommand()]],
  [['parse-feed'], async () => [(await import('./parse-feed.js')).parseFeedCommand()]],
  [['extract', 'learn'], async () => {
    const module = await import('./extract.js');
    return [module.extractCommand(), module.learnCommand()];
  }],
  [['schedule-sim'], async () => [(await import('./schedule-sim.js')).scheduleSimCommand()]],
  [['demo'], async () => [(await import('./demo.js')).demoCommand()]],
  [['serve'], async () => [(await import('./serve.js')).serveCommand()]],
  [['serve-synthetic'], async () => [(await import('./serve-synthetic.js')).serveSyntheticCommand()]],
  [['vacuum'], async () => [(await import('./vacuum.js')).vacuumCommand()]],
  [['backup'], async () => [(await import('./backup.js')).backupCommand()]],
  [['copy'], async () => [(await import('./copy.js')).copyCommand()]],
  [['check'], async () => [(await import('./check.js')).checkCommand()]],
  [['notify'], async () => [(await import('./notify.js')).notifyCommand()]],
];

/** The command `argv` names (the first word after the global options), null when it names none. */
function commandWord(argv: readonly string[]): string | null {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--config' || word === '--db') i++;
    else if (!word.startsWith('-')) return word;
  }
  return null;
}

const args = process.argv.slice(2);
const word = commandWord(args);
const asked = COMMANDS.filter(([names]) => word !== null && names.includes(word));
const versionOnly = word === null && args.some((arg) => arg === '-V' || arg === '--version') && !args.some((arg) => arg === '-h' || arg === '--help');
const loaded = versionOnly ? [] : asked.length > 0 ? asked : COMMANDS;
for (const commands of await Promise.all(loaded.map(([, load]) => load()))) {
  for (const command of commands) program.addCommand(command);
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
