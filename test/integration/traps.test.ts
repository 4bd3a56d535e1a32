import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import { loadCodec } from '../../src/archive/codec.js';
import { finished, forest, startForest, waitFor } from '../helpers/cli.js';
import { workspace } from '../helpers/setup.js';
import { smallArchive } from '../helpers/small-archive.js';
import { tempDir } from '../helpers/temp.js';

// Issue #53, item 5: what tripped a new user, each tried through the real command.

let site: Server;
let feedUrl = '';

before(async () => {
  await loadCodec();
  site = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/rss+xml' }).end('<?xml version="1.0"?><rss version="2.0"><channel><title>Local</title><link>http://127.0.0.1/</link><item><title>One</title><link>http://127.0.0.1:1/one</link><guid>one</guid></item></channel></rss>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const address = site.address();
  feedUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/feed.xml`;
});
after(() => new Promise((resolve) => site.close(resolve)));

const lastResult = async (args: string[]) => {
  const status = await forest([...args, 'status', '--json']);
  assert.equal(status.code, 0, status.stderr);
  return JSON.parse(status.stdout.trim().split('\n')[0]!) as { result: string | null; lastError: string | null; nextPoll: string | null };
};

test('a feed on a refused address: feeds add warns naming the setting, the log line names it, and once allowed the next run polls it at once', async () => {
  // Loopback refused (the default), and a five-minute floor, so that a failure backs off for minutes.
  const ws = workspace([], { http: { allowPrivateNetworks: false }, schedule: { defaultInterval: '10m', minInterval: '5m', maxInterval: '1h', jitter: 0 }, capture: { enabled: false } });
  const added = await forest([...ws.args, 'feeds', 'add', feedUrl]);
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stderr, /warning: 127\.0\.0\.1 is a loopback address, which Forest refuses to fetch: to archive it, allow the address in http\.allowPrivateNetworks/);

  const refused = await forest([...ws.args, 'run', '--exit-after', '2s']);
  assert.equal(refused.code, 0, refused.stderr);
  assert.match(refused.stdout + refused.stderr, /"error":"blocked: 127\.0\.0\.1 is a loopback address","fix":"to archive it, allow the address in http\.allowPrivateNetworks/);
  const failed = await lastResult(ws.args);
  assert.equal(failed.result, 'error');
  assert.ok(Date.parse(failed.nextPoll!) - Date.now() > 60_000, `backed off: next poll ${failed.nextPoll}`);
  const status = await forest([...ws.args, 'status']);
  assert.match(status.stdout, /last error: blocked: 127\.0\.0\.1 is a loopback address \(to archive it, allow the address in http\.allowPrivateNetworks/);

  // The user allows loopback and starts the daemon again: the feed is polled at once.
  writeFileSync(ws.config, readFileSync(ws.config, 'utf8').replace(/allowPrivateNetworks: false/, 'allowPrivateNetworks:\n    - 127.0.0.1/32'));
  const allowed = await forest([...ws.args, 'run', '--exit-after', '2s']);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(allowed.stdout + allowed.stderr, /polled again now/);
  assert.equal((await lastResult(ws.args)).result, 'ok');
});

test('feeds poll makes a feed due now; an unknown URL is refused with what to do', async () => {
  const ws = workspace([{ url: feedUrl }], { schedule: { defaultInterval: '10m', minInterval: '5m', maxInterval: '1h', jitter: 0 }, capture: { enabled: false } });
  assert.equal((await forest([...ws.args, 'run', '--exit-after', '1s'])).code, 0);
  assert.ok(Date.parse((await lastResult(ws.args)).nextPoll!) - Date.now() > 60_000, 'scheduled minutes away');
  const poll = await forest([...ws.args, 'feeds', 'poll', feedUrl]);
  assert.equal(poll.code, 0, poll.stderr);
  assert.match(poll.stdout, /due now/);
  assert.ok(Date.parse((await lastResult(ws.args)).nextPoll!) <= Date.now());
  const unknown = await forest([...ws.args, 'feeds', 'poll', 'https://nowhere.example/feed']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /not an enabled subscription: https:\/\/nowhere\.example\/feed \(see `forest feeds list`/);
});

test('backup makes its folder; export --out - writes to standard output, the report to standard error', async () => {
  const dir = tempDir();
  const database = join(dir, 'archive.db');
  await smallArchive(database, ['One', 'Two']).close();
  const target = join(dir, 'backups', '2026', 'forest-2026-11-22.db');
  const backup = await forest(['backup', target, '--db', database]);
  assert.equal(backup.code, 0, backup.stderr);
  assert.ok(statSync(target).size > 0);

  const jsonl = await forest(['export', '--out', '-', '--db', database]);
  assert.equal(jsonl.code, 0, jsonl.stderr);
  const articles = jsonl.stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: number });
  assert.deepEqual(articles.map((article) => article.id).sort(), [1, 2]);
  assert.match(jsonl.stderr, /wrote standard output: 2 articles/);
  const warc = startForest(['export', '--out', '-', '--format', 'warc', '--db', database]);
  const chunks: Buffer[] = [];
  warc.stdout!.removeAllListeners('data');
  warc.stdout!.setEncoding('latin1' as BufferEncoding);
  warc.stdout!.on('data', (chunk: string) => chunks.push(Buffer.from(chunk, 'latin1')));
  const done = await finished(warc);
  assert.equal(done.code, 0, done.stderr);
  assert.match(gunzipSync(Buffer.concat(chunks)).toString('latin1'), /^WARC\/1\.1\r\n(?:[^\r]*\r\n)*?WARC-Type: warcinfo\r\n/, 'gzipped records, the warcinfo first');
});

test('demo refuses to replace an archive another process has open, and leaves it as it was', async () => {
  const cwd = tempDir();
  mkdirSync(join(cwd, 'data'));
  const database = join(cwd, 'data', 'demo.db');
  await smallArchive(database, ['Mine']).close();
  writeFileSync(join(cwd, 'feeds.yaml'), stringify([]));
  const server = startForest(['serve', '--db', database, '--port', '0'], { cwd });
  try {
    await waitFor(() => /listening on/.test(server.output.stdout), 15_000, `forest serve (stderr: ${server.output.stderr})`);
    const before = readFileSync(database);
    const demo = await forest(['demo'], { cwd });
    assert.equal(demo.code, 1, demo.stdout);
    assert.match(demo.stderr, /data\/demo\.db is open in another process .*stop it first, or give this demo another archive with --db/);
    assert.ok(existsSync(database));
    assert.deepEqual(readFileSync(database), before, 'the archive is untouched');
  } finally {
    server.kill('SIGTERM');
    await finished(server);
  }
});
