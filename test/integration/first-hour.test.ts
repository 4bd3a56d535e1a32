import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { toOpml } from '../../src/config/opml.js';
import { SyntheticWeb } from '../../src/synthetic/server.js';
import { PROJECT_ROOT } from '../../src/util/project-root.js';
import { forest } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

/*
 * The README's first hour, run as written (issue #68): every command of the section, in its
 * order, from a project folder of its own with no settings file — the defaults' paths
 * (config/feeds.yaml, data/forest.db, data/demo.db) under it. What a reader fills in is filled
 * in: ID and WORD from the archive, the example feed and OPML file from the synthetic web (allowed
 * on loopback through FOREST_HTTP_ALLOW_PRIVATE_NETWORKS, as a reader's real feed needs nothing),
 * and `run` stops by itself (--exit-after) where a reader presses Ctrl-C.
 */

const web = new SyntheticWeb();
before(() => web.start());
after(() => web.stop());

/** The section's commands: its code spans that are Forest commands, whitespace as on one line. */
function firstHourCommands(): string[] {
  const text = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const start = text.indexOf('\n## The first hour\n');
  const section = text.slice(start, text.indexOf('\n## ', start + 1));
  const spans = [...section.matchAll(/`([^`]+)`/g)].map((match) => match[1]!.replace(/\s+/g, ' ').trim());
  return spans.flatMap((span) => {
    if (span.startsWith('npx forest ')) return [span.slice('npx forest '.length)];
    // "then `history ID`, `diff ID` and `search WORD`": the same command, its first word a subcommand.
    return /^(history|diff|search|export) /.test(span) ? [span] : [];
  });
}

const words = (line: string) => [...line.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2]!);

test("the README's first hour runs as written, command by command", async () => {
  const commands = firstHourCommands();
  assert.ok(commands.length >= 15, commands.join('\n'));
  const project = tempDir();
  const env = { FOREST_HTTP_ALLOW_PRIVATE_NETWORKS: '[127.0.0.0/8]', FOREST_HTTP_PER_HOST_DELAY: '20ms' };
  writeFileSync(join(project, 'subscriptions.opml'), toOpml([{ url: web.site('orbit').feedUrl, title: 'Orbit', tags: [], enabled: true }]));
  let db: string | null = null;
  const filled = async (args: string[]) => {
    const onDb = db ? ['--db', db] : [];
    // The article a reader would pick: the most edited one (the demo's report says edits were found).
    const some = async () => (await forest(['articles', '--json', ...onDb], { cwd: project, env })).stdout.trim().split('\n')
      .map((line) => JSON.parse(line) as { id: number; title: string; versions: number }).sort((a, b) => b.versions - a.versions)[0]!;
    const out: string[] = [];
    for (const arg of args) {
      if (arg === 'ID') out.push(String((await some()).id));
      else if (arg === 'WORD' || arg === 'words') out.push((await some()).title.split(' ').find((word) => word.length > 4)!);
      else if (arg === 'https://example.org/feed.xml') out.push(web.site('ledger').feedUrl);
      else out.push(arg);
    }
    return out;
  };
  for (const command of commands) {
    let args = await filled(words(command));
    if (args[0] === '--version') {
      assert.match((await forest(args, { cwd: project, env })).stdout, /\d+\.\d+\.\d+/);
      continue;
    }
    // Step 2's `--db data/demo.db` holds for the commands after it, until step 3 turns to the reader's own archive.
    if (args.includes('--db') && args[args.indexOf('--db') + 1] === 'data/demo.db') db = 'data/demo.db';
    if (args[0] === 'feeds') db = null;
    if (args[0] === 'run') args = [...args, '--exit-after', '8s'];
    if (db && !args.includes('--db') && ['history', 'diff', 'search'].includes(args[0]!)) args = [...args, '--db', db];
    const result = await forest(args, { cwd: project, env });
    // Step 5 on the reader's own archive, minutes old: no article has been edited yet, and diff says so.
    if (args[0] === 'diff' && db === null && /has a single version: nothing to compare/.test(result.stderr)) continue;
    assert.equal(result.code, 0, `forest ${args.join(' ')}\n${result.stdout}\n${result.stderr}`);
  }
  // What the section says is where it says.
  for (const file of ['config/feeds.yaml', 'data/forest.db', 'data/demo.db', 'data/demo.log', 'archive.warc.gz', 'backups/forest-2026-11-22.db']) {
    assert.ok(existsSync(join(project, file)), file);
  }
  const list = readFileSync(join(project, 'config', 'feeds.yaml'), 'utf8');
  assert.ok(list.includes(web.site('ledger').feedUrl) && list.includes(web.site('orbit').feedUrl), list);
});
