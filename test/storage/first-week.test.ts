import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { finished, forest, startForest, waitFor } from '../helpers/cli.js';
import { startCluster } from '../helpers/pg-cluster.js';
import { workspace } from '../helpers/setup.js';
import { tempDir } from '../helpers/temp.js';

/*
 * A first week on PostgreSQL (issue #68, 4–7), against a throwaway cluster: the README's steps
 * run as written, a machine's own list stays its own, and status says what it knows of a daemon
 * that died.
 */

const cluster = startCluster();
const README = join(import.meta.dirname, '..', '..', 'README.md');

/** The shell lines of the README's first `sh` block under `heading`. */
function readmeBlock(heading: string): string[] {
  const text = readFileSync(README, 'utf8');
  const section = text.slice(text.indexOf(`\n${heading}\n`));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  assert.ok(block, `a sh block under ${heading}`);
  return block[1]!.split('\n').map((line) => line.trim()).filter(Boolean);
}

/** Words of a shell line: plain words, '…' and "…" (all the README's lines use). */
const words = (line: string) => [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]!);

/** The URL as this cluster is reached: its socket folder for the host name. */
const onCluster = (url: string) => `${url}?host=${encodeURIComponent(cluster.socket)}`;

let forestUrl = '';

test("the README's PostgreSQL steps run as written: a role, a database it owns, Forest creating its tables as that role", async () => {
  const lines = readmeBlock('## On PostgreSQL');
  assert.equal(lines.length, 4, lines.join('\n'));
  const superuserEnv = { ...process.env, PGHOST: cluster.socket, PGPORT: String(cluster.port), PGUSER: cluster.superuser };
  for (const line of lines.slice(0, 3)) {
    const [sudo, dashU, user, tool, ...args] = words(line);
    assert.deepEqual([sudo, dashU, user], ['sudo', '-u', 'postgres'], line);
    // `sudo -u postgres`: the cluster's superuser, on its socket.
    execFileSync(join(cluster.bin, tool!), args, { env: superuserEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  }
  const [assignment, npx, forestWord, command] = words(lines[3]!);
  assert.deepEqual([npx, forestWord, command], ['npx', 'forest', 'run']);
  const [variable, url] = assignment!.split(/=(.*)/s);
  assert.equal(variable, 'FOREST_DATABASE_URL');
  forestUrl = onCluster(url!);
  const dir = tempDir();
  const run = await forest(['run', '--exit-after', '2s'], { cwd: dir, env: { FOREST_DATABASE_URL: forestUrl } });
  assert.equal(run.code, 0, run.stderr);
  // Its tables are the role's own.
  const client = new pg.Client({ host: cluster.socket, port: cluster.port, user: cluster.superuser, database: 'forest' });
  await client.connect();
  try {
    const owners = await client.query<{ owner: string }>("SELECT DISTINCT tableowner AS owner FROM pg_tables WHERE schemaname = 'public'");
    assert.deepEqual(owners.rows.map((row) => row.owner), ['forest']);
  } finally {
    await client.end();
  }
});

test("feed commands on a shared archive send their edit and nothing else: this machine's file neither joins the shared list nor changes", async () => {
  assert.ok(forestUrl, 'the README test made the database');
  const ws = workspace([{ url: 'http://127.0.0.1:9/only-on-this-machine.xml' }], { database: { url: forestUrl } });
  const localList = readFileSync(ws.feeds, 'utf8');
  const listed = async () => (await forest([...ws.args, 'feeds', 'list', '--json'])).stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { url: string; enabled: boolean });
  assert.deepEqual(await listed(), [], 'listing the shared list does not add this machine\'s file to it');

  const shared = 'http://127.0.0.1:9/shared.xml';
  const add = await forest([...ws.args, 'feeds', 'add', shared, '--tag', 'city']);
  assert.equal(add.code, 0, add.stderr);
  assert.deepEqual((await listed()).map((feed) => feed.url), [shared]);
  // A feed another machine subscribed (in no local file) can be paused and removed from this one.
  assert.equal((await forest([...ws.args, 'feeds', 'disable', shared])).code, 0);
  assert.deepEqual((await listed()).map((feed) => [feed.url, feed.enabled]), [[shared, false]]);
  assert.equal((await forest([...ws.args, 'feeds', 'remove', shared])).code, 0);
  assert.deepEqual(await listed(), []);
  const missing = await forest([...ws.args, 'feeds', 'remove', shared]);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /the shared list of .*: url: not subscribed: /);
  assert.equal(readFileSync(ws.feeds, 'utf8'), localList, 'the local list was neither read into the archive nor written');
});

test('status: a killed daemon of this host is known dead at once by its pid; one elsewhere is presumed dead past its lease, not responding before', async () => {
  assert.ok(forestUrl, 'the README test made the database');
  const ws = workspace([], { database: { url: forestUrl } });
  const daemon = startForest([...ws.args, 'run']);
  try {
    // Running, with the settings file it runs with (issue #68, 7) in its first report (a heartbeat, 10 s).
    let shown = '';
    await waitFor(async () => /^daemon: running/m.test(shown = (await forest([...ws.args, 'status'])).stdout) && shown.includes(`settings: ${ws.config}`), 30_000, 'the daemon running, with its settings file');
  } finally {
    daemon.kill('SIGKILL');
    await finished(daemon);
  }
  const dead = await forest([...ws.args, 'status']);
  assert.match(dead.stdout, /^daemon: NOT RUNNING — its process has exited \(pid \d+ on .*; last heartbeat \d+m?s ago\); a new `forest run` takes its place$/m);

  // The same daemon as if it ran on another machine: only its heartbeat's age is known.
  const client = new pg.Client({ host: cluster.socket, port: cluster.port, user: cluster.superuser, database: 'forest' });
  await client.connect();
  try {
    // The heartbeat made `seconds` old, then `forest status`: the age it prints is that plus the
    // time status took to start and read (seconds on a loaded machine), never less.
    const statusAt = async (seconds: number) => {
      await client.query("UPDATE daemons SET host = 'host-b', heartbeat_at = $1", [new Date(Date.now() - seconds * 1000).toISOString()]);
      const started = Date.now();
      const { stdout } = await forest([...ws.args, 'status']);
      const age = /last heartbeat (?:(\d+)m )?(\d+)s ago/.exec(stdout);
      assert.ok(age, stdout);
      const shown = Number(age[1] ?? 0) * 60 + Number(age[2]);
      assert.ok(shown >= seconds && shown <= seconds + Math.ceil((Date.now() - started) / 1000) + 1, `${shown} s shown for a heartbeat ${seconds} s old`);
      return stdout;
    };
    assert.match(await statusAt(25), /^daemon: NOT RESPONDING \(heartbeats are due every 10s; presumed dead after 1m\) \(pid \d+ on host-b, .*; last heartbeat \d+s ago\)/m);
    assert.match(await statusAt(90), /^daemon: PRESUMED DEAD — no heartbeat for longer than its lease \(1m; pid \d+ on host-b, .*; last heartbeat 1m \d+s ago\)/m);
  } finally {
    await client.end();
  }
});
