import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { finished, forest, startForest, waitFor } from '../helpers/cli.js';
import { workspace } from '../helpers/setup.js';
import { tempDir, writeFile } from '../helpers/temp.js';

// What a new user sees from the command line: versions, refusals, messages that say what to do,
// output that stays usable on a large archive. Everything through the built `forest` command.

const dir = tempDir();
const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

test('forest --version and -V print the version', async () => {
  for (const flag of ['--version', '-V']) {
    const result = await forest([flag]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), version);
  }
});

test('read-only commands refuse a missing database, name it, say how to make one, and create nothing', async () => {
  const missing = join(dir, 'missing-dir', 'none.db');
  const commands = [['status'], ['articles'], ['show', '1'], ['history', '1'], ['diff', '1'], ['search', 'word'], ['export', '--out', join(dir, 'x.jsonl')], ['check'], ['backup', join(dir, 'copy.db')]];
  for (const command of commands) {
    const result = await forest([...command, '--db', missing]);
    assert.equal(result.code, 1, `${command[0]}: ${result.stderr}`);
    assert.ok(result.stderr.includes(missing), `${command[0]} names the path: ${result.stderr}`);
    assert.match(result.stderr, /forest run/);
    assert.equal(existsSync(join(dir, 'missing-dir')), false, `${command[0]} created the folder`);
  }
  // Without --db, from another folder: the default path is relative to it, and nothing appears.
  const elsewhere = tempDir();
  const result = await forest(['status'], { cwd: elsewhere });
  assert.equal(result.code, 1);
  assert.ok(result.stderr.includes(join(elsewhere, 'data', 'forest.db')), result.stderr);
  assert.equal(existsSync(join(elsewhere, 'data')), false);
});

test('a bad flag value names the flag and the allowed values', async () => {
  const cases = [
    { args: ['export', '--out', join(dir, 'x.pdf'), '--format', 'pdf'], allowed: /jsonl, warc/ },
    { args: ['show', '1', '--format', 'pdf'], allowed: /text, html, json/ },
    { args: ['diff', '1', '--format', 'side'], allowed: /word, unified, json/ },
  ];
  for (const { args, allowed } of cases) {
    const result = await forest(args);
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, /--format/);
    assert.match(result.stderr, allowed);
  }
  const limit = await forest(['articles', '--limit', 'many']);
  assert.equal(limit.code, 2);
  assert.match(limit.stderr, /--limit.*not a positive whole number: many/);
});

test('an export into a folder that does not exist says which folder, never the temporary file', async () => {
  const ws = workspace();
  assert.equal((await forest([...ws.args, 'feeds', 'list'])).code, 0); // creates the archive
  const result = await forest([...ws.args, 'export', '--out', '/nonexistent/dir/x.warc']);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /the folder \/nonexistent\/dir does not exist/);
  assert.doesNotMatch(result.stderr, /partial|ENOENT/);
});

test('a YAML error points at the line to fix and does not end with a dangling colon', async () => {
  const config = writeFile(dir, 'syntax.yaml', 'database:\n  path: x.db\nhttp: [a, b\nlog:\n  level: info\n');
  const result = await forest(['status', '--config', config]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /syntax\.yaml:3: invalid YAML: .*\]/);
  assert.doesNotMatch(result.stderr.trim(), /:$/);
});

test('a broken OPML file says in words which element is wrong, and nothing is subscribed', async () => {
  const ws = workspace();
  const opml = writeFile(ws.dir, 'bad.opml', '<?xml version="1.0"?>\n<opml version="2.0">\n<body>\n<outline text="A" xmlUrl="https://a.example/feed.xml">\n</opml>\n');
  const result = await forest([...ws.args, 'feeds', 'import', opml]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /bad\.opml:4: invalid XML: <outline> is opened here and not closed before <\/opml>/);
  assert.doesNotMatch(result.stderr, /\[/);
  assert.deepEqual(parse(readFileSync(ws.feeds, 'utf8')), []);
});

test('feeds export → import keeps a disabled feed disabled and its cron schedule', async () => {
  const from = workspace();
  assert.equal((await forest([...from.args, 'feeds', 'add', 'https://a.example/feed.xml', '--disabled'])).code, 0);
  assert.equal((await forest([...from.args, 'feeds', 'add', 'https://b.example/feed.xml', '--schedule', '*/30 * * * *'])).code, 0);
  const opml = join(from.dir, 'out.opml');
  assert.equal((await forest([...from.args, 'feeds', 'export', opml])).code, 0);
  const to = workspace();
  const imported = await forest([...to.args, 'feeds', 'import', opml]);
  assert.equal(imported.code, 0, imported.stderr);
  const listed = (await forest([...to.args, 'feeds', 'list', '--json'])).stdout.trim().split('\n').map((line) => JSON.parse(line) as { url: string; enabled: boolean; schedule: string | null });
  assert.deepEqual(listed.map((feed) => [feed.url, feed.enabled, feed.schedule]), [
    ['https://a.example/feed.xml', false, null],
    ['https://b.example/feed.xml', true, '*/30 * * * *'],
  ]);
});

test('status summarises a long list of feeds; --all lists every one', async () => {
  const ws = workspace();
  const outlines = Array.from({ length: 15 }, (_, i) => `<outline type="rss" text="Feed ${i}" xmlUrl="https://h${i}.example/feed.xml"/>`).join('\n');
  const opml = writeFile(ws.dir, 'many.opml', `<opml version="2.0"><body>\n${outlines}\n</body></opml>\n`);
  const imported = await forest([...ws.args, 'feeds', 'import', opml]);
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(imported.stdout, /imported 15 new feeds/);
  assert.equal(imported.stderr, '', 'no progress line off a terminal');
  const summary = await forest([...ws.args, 'status']);
  assert.equal(summary.code, 0, summary.stderr);
  assert.match(summary.stdout, /15 feeds: 0 fine · 0 failing · 15 not polled yet · 0 disabled/);
  assert.match(summary.stdout, /--all/);
  assert.doesNotMatch(summary.stdout, /h3\.example/);
  const all = await forest([...ws.args, 'status', '--all']);
  for (let i = 0; i < 15; i++) assert.ok(all.stdout.includes(`https://h${i}.example/feed.xml`), `feed ${i} listed`);
});

test('--help of every command with --json says whether it prints one JSON object or JSON lines; run --help explains the daemon', async () => {
  const lines = [['status'], ['articles'], ['search'], ['feeds', 'list']];
  const objects = [['show'], ['history'], ['diff'], ['export'], ['demo'], ['vacuum']];
  const help = (commands: string[][]) => Promise.all(commands.map(async (command) => (await forest([...command, '--help'])).stdout));
  const [lineHelps, objectHelps, [run]] = await Promise.all([help(lines), help(objects), help([['run']])]);
  lineHelps.forEach((text, i) => assert.match(text, /--json\s+JSON lines: one object per/, lines[i]!.join(' ')));
  objectHelps.forEach((text, i) => assert.match(text, /--json\s+.*one JSON object/, objects[i]!.join(' ')));
  for (const words of ['What it does', 'http.perHostDelay', 'revisit.after', 'workers', 'SIGHUP']) assert.ok(run!.includes(words), words);
});

test('serve-synthetic --edit-every is real time whatever --speed, and its help says the default in words (issue #68, 9)', async () => {
  const help = await forest(['serve-synthetic', '--help']);
  assert.match(help.stdout.replace(/\s+/g, ' '), /--edit-every <duration> real time between two edits, whatever --speed \(default 1m\)/);
  assert.doesNotMatch(help.stdout, /60000/);
  const server = startForest(['serve-synthetic', '--speed', '60', '--edits', '2', '--edit-every', '2s']);
  try {
    await waitFor(() => (server.output.stdout.match(/^\S+Z {2}[a-z-]+: http/gm) ?? []).length === 2, 20_000, 'two edits');
    const [first, second] = [...server.output.stdout.matchAll(/^(\S+Z) {2}[a-z-]+: http/gm)].map((match) => Date.parse(match[1]!));
    // Two seconds apart on the wall (at --speed 60 they were 33 ms apart on the synthetic clock's terms).
    assert.ok(second! - first! >= 1500, `${second! - first!} ms between the edits`);
  } finally {
    server.kill('SIGINT');
    await finished(server);
  }
});

test('serve-synthetic --edits edits articles as it serves, and says which and when', async () => {
  const server = startForest(['serve-synthetic', '--edits', '3', '--edit-every', '1s']);
  try {
    // The preamble may arrive in several reads: wait for its last line, then check the sites were before it.
    await waitFor(() => /Editing 3 articles, one every 1s/.test(server.output.stdout), 10_000, 'the edits announced');
    assert.equal((server.output.stdout.split('Editing')[0]!.match(/feed: http/g) ?? []).length, 4, 'the four sites listed first');
    // Every article's headline before the edits (the first comes a second after the start).
    const before = new Map<string, string>();
    for (const [, site] of server.output.stdout.matchAll(/ (http:\/\/127\.0\.0\.1:\d+\/) {2}feed:/g)) {
      const index = await (await fetch(site!)).text();
      for (const [, path, title] of index.matchAll(/<a href="\/(articles\/[^"]+)">([^<]+)<\/a>/g)) before.set(`${site}${path}`, title!);
    }
    // The third edit changes a headline: the page shows the new one once the line is printed.
    await waitFor(() => /change-headline: http/.test(server.output.stdout), 10_000, 'the headline edit');
    assert.match(server.output.stdout, /correct-word: http\S+\n.*add-paragraph: http\S+\n.*change-headline: http/);
    const url = /change-headline: (\S+)/.exec(server.output.stdout)![1]!;
    const headline = before.get(url);
    assert.ok(headline, `${url} was listed before the edit`);
    const page = await (await fetch(url)).text();
    assert.ok(page.includes(`${headline} `) && /Confirmed/.test(page), `the new headline extends "${headline}"`);
  } finally {
    server.kill('SIGINT');
    await finished(server);
  }
});

const demoDb = join(dir, 'demo.db');

test('the demo keeps its log in a file and counts first captures, revisits, unchanged, changed and failed apart', async () => {
  const result = await forest(['demo', '--db', demoDb, '--edits', '3', '--edit-every', '1s']);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr, '', 'no log lines and no progress line off a terminal');
  const log = join(dir, 'demo.log');
  assert.ok(readFileSync(log, 'utf8').split('\n').length > 20, 'the log went to the file');
  assert.ok(result.stdout.includes(log));
  assert.match(result.stdout, /revisits each article 2s, 5s, 10s, 18s, … after its capture/);
  const checks = /Checks: (\d+) first captures, then (\d+) revisits: (\d+) unchanged, (\d+) changed, (\d+) gone, (\d+) unavailable, (\d+) failed\./.exec(result.stdout);
  assert.ok(checks, result.stdout);
  const [firstCaptures, revisits, unchanged, changed, gone, unavailable, failed] = checks.slice(1).map(Number) as [number, number, number, number, number, number, number];
  assert.equal(changed, 3, 'the three edits, not the first captures');
  assert.equal(gone + unavailable, 0, 'no article of the demo is taken down, and no edit is mistaken for one');
  assert.equal(revisits, unchanged + changed + gone + unavailable + failed);
  const pages = Number(/Archived \d+ items and (\d+) pages/.exec(result.stdout)![1]);
  assert.equal(firstCaptures, pages);
  const versions = Number(/Versions: (\d+)/.exec(result.stdout)![1]);
  assert.equal(versions, pages + 3);
  const methods = /Extracted (.*)\./.exec(result.stdout)![1]!;
  const byMethod = [...methods.matchAll(/(\d+) (with a FOREST wrapper|from the single page)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
  assert.equal(byMethod, versions, `versions by method (${methods}) add up to the versions`);
});

test('articles shows the guid and pages its output; search pages too', async () => {
  const all = (await forest(['articles', '--db', demoDb, '--json', '--limit', '1000'])).stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: number; guid: string });
  assert.ok(all.length >= 20);
  const first = await forest(['articles', '--db', demoDb, '--limit', '2']);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout.match(/^ +\d+ {2}/gm)?.length, 2);
  assert.ok(first.stdout.includes(`guid ${all[0]!.guid}`));
  assert.ok(first.stdout.includes(`articles 1–2 of ${all.length}; next page: --offset 2`));
  const second = await forest(['articles', '--db', demoDb, '--limit', '2', '--offset', '2', '--json']);
  assert.deepEqual(second.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { id: number }).id), [all[2]!.id, all[3]!.id]);
  const last = await forest(['articles', '--db', demoDb, '--offset', String(all.length - 1)]);
  assert.ok(last.stdout.includes(`articles ${all.length}–${all.length} of ${all.length}`) && !last.stdout.includes('next page'));

  const hits = (await forest(['search', 'harbour OR museum OR school OR park', '--db', demoDb, '--json', '--limit', '3'])).stdout.trim().split('\n').map((line) => JSON.parse(line) as { article: number });
  assert.equal(hits.length, 3);
  const next = (await forest(['search', 'harbour OR museum OR school OR park', '--db', demoDb, '--json', '--limit', '3', '--offset', '1'])).stdout.trim().split('\n').map((line) => JSON.parse(line) as { article: number });
  assert.deepEqual(next.slice(0, 2).map((hit) => hit.article), hits.slice(1).map((hit) => hit.article));
  const text = await forest(['search', 'harbour OR museum OR school OR park', '--db', demoDb, '--limit', '3']);
  assert.match(text.stdout, /results 1–3; more may follow: --offset 3/);

  // A query that starts with a minus is the query (issue #68, 8), quoted or not; a mistyped option is still an error.
  const quoted = await forest(['search', '-harbour museum', '--db', demoDb, '--json']);
  assert.equal(quoted.code, 0, quoted.stderr);
  const unquoted = await forest(['search', '-harbour', 'museum', '--db', demoDb, '--json']);
  assert.equal(unquoted.code, 0, unquoted.stderr);
  assert.equal(unquoted.stdout, quoted.stdout, 'words given apart are one query');
  const positive = await forest(['search', 'museum', '--db', demoDb, '--json', '--limit', '1000']);
  const count = (out: string) => out.trim().split('\n').filter(Boolean).length;
  assert.ok(count(quoted.stdout) > 0 && count(quoted.stdout) <= count(positive.stdout), 'the minus excludes, it does not fail');
  const typo = await forest(['search', 'museum', '--limt', '3', '--db', demoDb]);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /unknown option --limt/);
});
