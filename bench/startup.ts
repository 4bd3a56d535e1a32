import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchArgs } from './args.js';
import { quantile } from './quantile.js';

/**
 * bench:startup (issue #66): how long `forest --version`, `forest status` and `forest articles`
 * take from spawn to exit, as a user runs them (bin/forest.js, the built dist/), on a small
 * SQLite archive. With `--before=DIR` (another checkout, built) the two are run alternately, one
 * run of each in turn, so that the machine's drift falls on both alike; the table gives each
 * command's median and its fastest and slowest run.
 *
 *   npm run bench:startup -- [--runs=9] [--before=/path/to/other/checkout] [--json]
 */

const args = benchArgs();
const RUNS = Number(args.get('runs') ?? 9);
const CHECKOUTS: Array<[string, string]> = [
  ...(args.get('before') ? [['before', resolve(args.get('before')!)] as [string, string]] : []),
  ['this', resolve(import.meta.dirname, '..')],
];
const COMMANDS: Array<[string, string[]]> = [['--version', ['--version']], ['status', ['status']], ['articles', ['articles']]];

const work = mkdtempSync(join(tmpdir(), 'forest-startup-'));

/** A settings file and an archive of one subscribed feed, made by `root`'s own forest (each checkout its own schema). */
function archiveFor(name: string, root: string): string[] {
  const dir = join(work, name);
  const config = join(dir, 'settings.yaml');
  spawnSync('mkdir', ['-p', dir]);
  writeFileSync(config, `subscriptions: ${join(dir, 'feeds.yaml')}\ndatabase: { path: ${join(dir, 'forest.db')} }\n`);
  const made = spawnSync(process.execPath, [join(root, 'bin', 'forest.js'), '--config', config, 'feeds', 'add', 'https://a.example/feed'], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`${root}: forest feeds add failed: ${made.stderr}`);
  return ['--config', config];
}

const globals = new Map(CHECKOUTS.map(([name, root]) => [name, archiveFor(name, root)]));
const times = new Map<string, number[]>();
try {
  for (let run = 0; run < RUNS; run++) {
    for (const [command, words] of COMMANDS) {
      for (const [name, root] of CHECKOUTS) {
        const started = process.hrtime.bigint();
        const result = spawnSync(process.execPath, [join(root, 'bin', 'forest.js'), ...(command === '--version' ? [] : globals.get(name)!), ...words], { encoding: 'utf8' });
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (result.status !== 0) throw new Error(`${name}: forest ${words.join(' ')} exited ${result.status}: ${result.stderr}`);
        const key = `${command}\t${name}`;
        times.set(key, [...(times.get(key) ?? []), ms]);
      }
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const rows = COMMANDS.flatMap(([command]) => CHECKOUTS.map(([name]) => {
  const all = times.get(`${command}\t${name}`)!;
  return { command, checkout: name, median: quantile(all, 0.5), fastest: Math.min(...all), slowest: Math.max(...all), runs: all.length };
}));
if (args.has('json')) {
  console.log(JSON.stringify(rows));
} else {
  console.log(`forest start to exit, ms (${RUNS} runs each, alternated)`);
  console.log('| command | checkout | median | fastest | slowest |');
  console.log('|---|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.command} | ${row.checkout} | ${Math.round(row.median)} | ${Math.round(row.fastest)} | ${Math.round(row.slowest)} |`);
}
