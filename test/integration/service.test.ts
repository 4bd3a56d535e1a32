import assert from 'node:assert/strict';
import { fork, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { SyntheticWeb } from '../../src/synthetic/server.js';
import { PROJECT_ROOT } from '../../src/util/project-root.js';
import { CLEAN_ENV, FOREST_BIN, finished, forest, serviceNodeFlags, startForest, waitFor } from '../helpers/cli.js';
import { scalar, workspace } from '../helpers/setup.js';
import { tempDir } from '../helpers/temp.js';

const web = new SyntheticWeb();
before(() => web.start());
after(() => web.stop());

test('pm2, the forest command and the README\'s systemd unit start node with the same flags', async () => {
  // The flags are written three times (ecosystem.config.js, bin/forest.js's first line, the unit's ExecStart): a change to one must reach the others.
  const pm2 = await serviceNodeFlags();
  assert.ok(pm2.length > 0, 'ecosystem.config.js passes node flags');
  const shebang = readFileSync(FOREST_BIN, 'utf8').split('\n')[0]!;
  assert.deepEqual(shebang.replace(/^#!\/usr\/bin\/env -S node\s*/, '').split(/\s+/).filter(Boolean), pm2, shebang);
  const execStart = /^ExecStart=\S*node((?:\s+--\S+)*)\s+\S*bin\/forest\.js run --config \S+\/config\/settings\.yaml$/m.exec(readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8'));
  assert.ok(execStart, 'the README has a systemd unit starting bin/forest.js run');
  assert.deepEqual(execStart[1]!.split(/\s+/).filter(Boolean), pm2, execStart[0]);
});

test('under a process manager (an IPC channel open, as pm2 forks), SIGINT and SIGTERM end the process within the shutdown deadline', async () => {
  const ws = workspace([{ url: web.site('ledger').feedUrl }], { shutdown: { deadline: '3s' } });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    // With pm2's node flags (ecosystem.config.js), as pm2 starts it.
    const child = fork(FOREST_BIN, [...ws.args, 'run'], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: CLEAN_ENV, execArgv: await serviceNodeFlags() });
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await waitFor(() => /"msg":"forest running"/.test(stdout), 20_000, 'the daemon to start');
    const sent = Date.now();
    child.kill(signal);
    const code = await Promise.race([
      new Promise<number | null>((resolve) => child.once('exit', resolve)),
      new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 10_000)),
    ]);
    if (code === 'still running') child.kill('SIGKILL');
    const took = Date.now() - sent;
    assert.equal(code, 0, stdout);
    assert.ok(took < 3000 + 2000, `${signal}: exited after ${took} ms (deadline 3 s)`);
    assert.match(stdout, /"msg":"stopped"/);
  }
});

test('a worker pool closed while its workers still load their module does not abort the process', async () => {
  // A worker terminated while it loads aborted the whole process (Node 20's require(esm):
  // "v8::Module::IsGraphAsync must be used on an instantiated module"; CI, `forest run --serve`
  // stopped at once). The pool now lets its workers finish loading before it terminates them
  // (src/daemon/pool.ts). The built pool, with the daemon's node flags, is closed 30 times at
  // 250–650 ms after it was made, inside the workers' loading; before, a close between 400 and
  // 600 ms aborted in every run.
  const pool = pathToFileURL(join(PROJECT_ROOT, 'dist', 'src', 'daemon', 'pool.js')).href;
  const script = `const { createPool } = await import(${JSON.stringify(pool)});
    for (let i = 0; i < 30; i++) {
      const pool = createPool(2);
      await new Promise((resolve) => setTimeout(resolve, 250 + (400 * i) / 29));
      await pool.close();
    }
    process.stdout.write('closed 30');`;
  const child = spawn(process.execPath, [...(await serviceNodeFlags()), '--input-type=module', '-e', script], { env: CLEAN_ENV });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal(code, 0, output);
  assert.match(output, /closed 30/);
});

test('a second daemon on the same database refuses to start and names the first; after the first stops, it starts', async () => {
  const ws = workspace([{ url: web.site('orbit').feedUrl }]);
  const first = startForest([...ws.args, 'run']);
  try {
    await waitFor(() => existsSync(ws.db) && scalar<number>(ws.db, 'SELECT COUNT(*) FROM leases') === 1, 20_000, 'the first daemon to take the lease');
    const second = await forest([...ws.args, 'run', '--exit-after', '2s']);
    assert.equal(second.code, 1);
    assert.match(second.stderr, new RegExp(`another forest daemon is running on .*forest\\.db: pid ${first.pid} on `));
    const status = await forest([...ws.args, 'status']);
    assert.match(status.stdout, new RegExp(`daemon: running \\(pid ${first.pid} on `));
  } finally {
    first.kill('SIGTERM');
    await finished(first);
  }
  assert.equal(scalar<number>(ws.db, 'SELECT COUNT(*) FROM leases'), 0, 'the lease is released on stop');
  const again = await forest([...ws.args, 'run', '--exit-after', '1s']);
  assert.equal(again.code, 0, again.stderr);
});

test("the README's pm2 lines run as written: the daemon runs with config/settings.yaml, and status names it", async () => {
  const text = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const section = text.slice(text.indexOf('**pm2.**'));
  const lines = /```sh\n([\s\S]*?)```/.exec(section)![1]!.split('\n').map((line) => line.trim()).filter(Boolean);
  assert.deepEqual(lines[0], 'npm install -g pm2');
  // A scratch copy of the project (its process file, its command, the user's settings), so that
  // nothing is written into this checkout; pm2 is the project's dev dependency, its home scratch too.
  const project = tempDir();
  copyFileSync(join(PROJECT_ROOT, 'ecosystem.config.js'), join(project, 'ecosystem.config.js'));
  symlinkSync(join(PROJECT_ROOT, 'bin'), join(project, 'bin'));
  mkdirSync(join(project, 'config'));
  // The user's settings: without them the loopback feed is refused (http.allowPrivateNetworks).
  writeFileSync(join(project, 'config', 'feeds.yaml'), `- url: ${web.site('ledger').feedUrl}\n`);
  writeFileSync(join(project, 'config', 'settings.yaml'), 'http:\n  allowPrivateNetworks: [127.0.0.0/8]\n  perHostDelay: 20ms\nlog:\n  level: info\n');
  const env = { ...CLEAN_ENV, PM2_HOME: join(project, '.pm2') };
  const pm2 = join(PROJECT_ROOT, 'node_modules', '.bin', 'pm2');
  const shell = (line: string) => new Promise<{ code: number | null; out: string }>((resolve) => {
    const [command, ...args] = line.split(/\s+/);
    const child = command === 'npx'
      ? spawn(process.execPath, [FOREST_BIN, ...args.slice(1)], { cwd: project, env })
      : spawn(command === 'pm2' ? pm2 : command!, args, { cwd: project, env });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('close', (code) => resolve({ code, out }));
  });
  try {
    const [, start, status, stop] = lines;
    assert.equal(start, 'pm2 start ecosystem.config.js');
    const started = await shell(start);
    assert.equal(started.code, 0, started.out);
    let shown = '';
    await waitFor(async () => {
      shown = (await shell(status!)).out;
      return shown.includes(`settings: ${join(project, 'config', 'settings.yaml')}`) && /last poll .*: ok/.test(shown);
    }, 60_000, 'status naming the settings file, and the loopback feed polled under them');
    assert.match(shown, /^daemon: running/m);
    const stopped = await shell(stop!);
    assert.equal(stopped.code, 0, stopped.out);
    await waitFor(async () => /^daemon: not running/m.test((await shell(status!)).out), 30_000, 'the daemon stopped by pm2');
  } finally {
    await shell('pm2 kill');
  }
});
