/**
 * `npm run bench:scale`: Forest as a service at scale, measured from outside, in one run.
 *
 * N feeds (default 10,000) on H loopback hosts (default 500), each with one backlog item, a
 * hundred hot feeds publishing every 20–60 s, revisits on, for M minutes (default 8), with the
 * issue's settings (perHostDelay 1s, defaultInterval 10m, minInterval 1m, revisit.after [3m, 6m]).
 * A hot item's capture delay is mostly its feed's poll interval, which the schedule chooses
 * (one to three minutes for three items a minute to one: what the overflow risk allows a window
 * of ten): the table shows the service's part apart, from the poll that saw the item to its capture.
 * Only items published three minutes or more before the end count (SETTLE_S): the last ones
 * would be counted only when their poll came early.
 * The web runs in its own process (bench/scale/web.ts, real pages from ../shared/datasets); Forest
 * is the built daemon (`forest run`, with the node flags of the checkout's ecosystem.config.js, as
 * pm2 starts it), sampled once a second for resident memory and CPU time.
 * Then the pass cost on a synthetic archive of 1,000,000 snapshots.
 *
 *   npm run bench:scale -- [--feeds=10000] [--hosts=500] [--minutes=8] [--until=archived] [--hot=100] [--workers=auto] [--json] [--keep] [--profile=DIR]
 *                          [--against=DIR [--rounds=1]] [--node-flags="--flag …"] [--schedule=name=value,…]
 *                          [--db=sqlite,postgres | --db=sqlite,postgres://…] [--requisites=on,off] [--pin] [--daemons=N] [--concurrency=N]
 *
 * `--until=archived` ends the run as soon as every feed's backlog page is archived (read from the
 * daemons' logs every 5 s), `--minutes` being its limit: the time until all are archived, measured
 * to the end rather than extrapolated from the first minutes.
 *
 * `--requisites` lists the runs with requisites on (capture.requisites.kinds [images, styles],
 * the default) and off (`[]`: the HTML alone), side by side (default both): each page of the web
 * names its site's stylesheet and logo, a photograph of its own, and a CDN's fonts (bench/scale/
 * web.ts); the table adds stored bytes per article, what deduplication saved, and the web's
 * requests per page.
 *
 * `--db` lists the archives to run on, side by side in one run (default `sqlite`): `sqlite` (a
 * file), `postgres` (a throwaway cluster from Debian's binaries, as the tests start), or
 * `postgres://…` (an empty database on a server of yours; one run). On PostgreSQL the same
 * measures are read from a copy of the archive into SQLite (`forest copy`, after the daemon has
 * stopped: every row and time as it was), the archive's size from PostgreSQL's own tables, and
 * the table adds the cores the whole machine kept busy — the server's CPU is not the daemon's.
 *
 * `--against=DIR` runs another checkout's daemon (built first) and this one's alternately —
 * this, DIR; then DIR, this; … for `--rounds` rounds — and prints them side by side: the
 * machine's speed drifts by a quarter within an hour, so two runs compare only when they are
 * next to each other, and the order alternates so that a drift favours neither.
 *
 * `--node-flags` replaces the node flags the daemons start with (`--node-flags=` for none).
 *
 * `--daemons=N` (PostgreSQL only) runs N daemons on the one archive
 * (the first day at 100,000 feeds, bench:hundred-thousand --db=postgres): CPU is theirs summed,
 * memory the largest one's, and the log-read measures (backlog, hot polls) come from all logs.
 *
 * `--pin` pins the daemon to core 0 and everything else — the web, the PostgreSQL server — to core
 * 1 (bench/cpu-pin.ts), so that SQLite and PostgreSQL are compared with the daemon on a core of
 * its own either way and PostgreSQL's server not taking the daemon's CPU (issue #70, item 2).
 *
 * `--profile=DIR` writes V8 CPU profiles of the daemon (its main thread and each worker) to DIR
 * (open them in Chrome DevTools or speedscope) — to see where the CPU per page goes.
 */
import { spawn, spawnSync } from 'node:child_process';
import { runOn } from '../src/archive/sqlite/sql.js';
import { mkdtempSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { z } from 'zod';
import { storedBlob } from '../src/archive/rules/captures.js';
import { quantile } from './quantile.js';
import { settledDelays } from './scale/delays.js';
import { buildCheckout, sampleAll, startWeb, type Sample } from './scale/process.js';
import { decodeStoredBody, loadCodec } from '../src/archive/codec.js';
import { openDatabase } from '../src/archive/sqlite/database.js';
import { dueCaptures, duePolls, dueRevisits, nextWorkAt, queuedExtractions } from '../src/archive/sqlite/queues.js';
import { fillArchive } from '../test/helpers/big-archive.js';
import { serviceNodeFlags } from '../test/helpers/cli.js';
import { launchCluster } from '../test/helpers/pg-cluster.js';
import { benchArgs } from './args.js';
import { busyCores, machineTicks } from './machine.js';
import { PIN, pinPostgres, pinToCore } from './cpu-pin.js';
import { postgresBytes } from './scale/pg-size.js';
import { inTimeOrder, LogFollower, pollLateness } from './scale/daemon-log.js';

/** The log lines a run counts for the requisite lane: captures whose requisites it gave up, and the minute reports (their passes that held new pages, daemon.ts). */
const LANE_TROUBLE = /"msg":"requisites given up|"passesHeld":/;

const args = benchArgs();
const FEEDS = Number(args.get('feeds') ?? 10000);
const HOSTS = Number(args.get('hosts') ?? 500);
const MINUTES = Number(args.get('minutes') ?? 8);
/** `--until=archived`: the run ends when every backlog page is archived, `--minutes` being then its limit. */
const UNTIL = args.get('until');
if (UNTIL !== undefined && UNTIL !== 'archived') throw new Error(`--until=${UNTIL}: the one end there is is \`archived\` (every backlog page extracted)`);
const HOT = Number(args.get('hot') ?? 100);
const REQUISITES = (args.get('requisites') ?? 'on,off').split(',').map((mode) => {
  if (mode !== 'on' && mode !== 'off') throw new Error(`--requisites=${mode}: on, off, or on,off`);
  return mode;
});
/**
 * `--schedule=name=value,…`: schedule settings on top of the (`--schedule=delayCost=32`),
 * to see what the schedule's trade of polls against delay does to the hot items. The daemon
 * validates them (a wrong name or value stops the run with its message).
 */
const SCHEDULE = Object.fromEntries((args.get('schedule') ?? '').split(',').filter(Boolean).map((pair): [string, string | number] => {
  const [name, value = ''] = pair.split('=');
  return [name!, value !== '' && Number.isFinite(Number(value)) ? Number(value) : value];
}));
const ROOT = join(import.meta.dirname, '..');
/**
 * `--daemons=N`: N daemons on one PostgreSQL archive (a SQLite archive takes one: its lease).
 * Their CPU is summed, their memory the largest one's, their logs read together.
 */
/** `--concurrency=N`: http.concurrency, the requests in flight over all hosts (default the shipped 8). */
const CONCURRENCY = args.has('concurrency') ? Number(args.get('concurrency')) : null;
if (CONCURRENCY !== null && !(Number.isInteger(CONCURRENCY) && CONCURRENCY >= 1)) throw new Error(`--concurrency=${args.get('concurrency')}: http.concurrency is a whole number of requests, 1 or more`);
const DAEMONS = Number(args.get('daemons') ?? 1);
if (!(Number.isInteger(DAEMONS) && DAEMONS >= 1)) throw new Error(`--daemons=${args.get('daemons')}: a whole number of daemons, 1 or more`);
if (DAEMONS > 1 && (args.get('db') ?? 'sqlite').split(',').includes('sqlite')) throw new Error('--daemons: a SQLite archive takes one daemon (its lease); --db=postgres for several');
/**
 * Hot items count towards the delay quantiles only when published this long before the run
 * stops (bench/scale/delays.ts): the hot feeds publish every 20–60 s and are polled every three
 * items or so (the overflow risk's interval at a window of ten: up to ~175 s), so an item of the
 * last three minutes may still be waiting for its poll.
 */
const SETTLE_S = 180;

/**
 * A scheduler pass's queries on a synthetic archive of a million snapshots (test/helpers/
 * big-archive.ts): busy, when every queue has more due work than a pass takes; quiet, ten minutes
 * earlier, when no feed is due yet — the steady state, where a query the due index cannot bound
 * reads every feed.
 */
function passCost(): { snapshots: number; passMs: number; quietPassMs: number } {
  const db = openDatabase(':memory:');
  const { snapshots } = fillArchive(db, { feeds: 2000, itemsPerFeed: 100, snapshotsPerItem: 5 });
  const median = (now: Date) => {
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const started = performance.now();
      duePolls(db, now, 64);
      dueCaptures(db, now, 64);
      dueRevisits(db, now, 64);
      nextWorkAt(db, { capture: true, revisit: true });
      queuedExtractions(db, 64);
      times.push(performance.now() - started);
    }
    return quantile(times, 0.5);
  };
  const now = new Date('2026-11-22T12:00:00Z');
  const passMs = median(now);
  const quietPassMs = median(new Date(now.getTime() - 600_000));
  db.close();
  return { snapshots, passMs, quietPassMs };
}

type Result = Awaited<ReturnType<typeof runOnce>>;

const logLine = z.object({ msg: z.string(), time: z.string(), url: z.string().optional() });

/**
 * When each page was first extracted (by URL), from the daemon's log ("extracted", once per
 * queued extraction). Not from the database: an extraction row is rewritten when a re-learned
 * wrapper extracts its page again, so its time says when the page was last extracted — the
 * earliest such time over an item's captures put backlog pages archived at 60 s at 240–400 s.
 */
function firstExtractions(log: readonly string[]): Map<string, string> {
  const first = new Map<string, string>();
  for (const text of log) {
    if (!text.includes('"msg":"extracted"')) continue;
    const line = logLine.parse(JSON.parse(text));
    if (line.msg !== 'extracted' || !line.url) continue;
    const seen = first.get(line.url);
    if (seen === undefined || line.time < seen) first.set(line.url, line.time);
  }
  return first;
}

/** Where a run's archive lives: a SQLite file of the run's own, or an empty PostgreSQL database. */
type Backend = { name: 'SQLite' } | { name: 'PostgreSQL'; url: () => Promise<string>; dataDir: () => string | null };

/**
 * `--db`'s list. `postgres` starts one throwaway cluster for the bench (a new database per run);
 * a postgres:// URL is a database of the user's, used by one run only.
 */
function backends(): { list: Backend[]; dispose(): void } {
  let cluster: ReturnType<typeof launchCluster> | null = null;
  let made = 0;
  const list = (args.get('db') || 'sqlite').split(',').map((name): Backend => {
    if (name === 'sqlite') return { name: 'SQLite' };
    if (name === 'postgres') {
      return { name: 'PostgreSQL', url: () => (cluster ??= launchCluster()).createDatabase(`scale_${++made}`), dataDir: () => (cluster ? join(cluster.socket, 'data') : null) };
    }
    if (/^postgres(ql)?:\/\//.test(name)) {
      let used = false;
      return { name: 'PostgreSQL', url: async () => {
        if (used) throw new Error(`--db=${name}: a database of yours serves one run (its archive must be empty); use --db=postgres for a throwaway cluster per run`);
        used = true;
        return name;
      }, dataDir: () => null };
    }
    throw new Error(`--db: "${name}" is none of sqlite, postgres, postgres://…`);
  });
  return { list, dispose: () => cluster?.dispose() };
}

/**
 * One run of the daemon of the checkout at `root` (built) against a fresh web and archive. On
 * PostgreSQL the archive is copied into a SQLite file after the run, with this checkout's
 * `forest copy`, and measured there.
 */
async function runOnce(root: string, backend: Backend, requisites: 'on' | 'off') {
  const work = mkdtempSync(join(tmpdir(), 'forest-scale-'));
  const web = await startWeb({ feeds: FEEDS, hosts: HOSTS, hot: HOT });
  const database = join(work, 'forest.db');
  const url = backend.name === 'PostgreSQL' ? await backend.url() : null;
  writeFileSync(join(work, 'feeds.yaml'), stringify(web.info.feeds.map((url) => ({ url }))));
  writeFileSync(join(work, 'settings.yaml'), stringify({
    subscriptions: join(work, 'feeds.yaml'), database: url === null ? { path: database } : { url },
    http: { perHostDelay: '1s', allowPrivateNetworks: ['127.0.0.0/8'], ...(CONCURRENCY === null ? {} : { concurrency: CONCURRENCY }) }, schedule: { defaultInterval: '10m', minInterval: '1m', ...SCHEDULE }, revisit: { after: ['3m', '6m'] },
    log: { level: 'info', pretty: false },
    capture: { requisites: { kinds: requisites === 'on' ? ['images', 'styles'] : [] } },
    // The pool's size (`workers`, default auto: one thread per core), to see what each thread buys.
    ...(args.has('workers') ? { workers: args.get('workers') === 'auto' ? 'auto' : Number(args.get('workers')) } : {}),
  }));
  const started = Date.now();
  const ticksBefore = machineTicks();
  const profile = args.get('profile') ? ['--cpu-prof', `--cpu-prof-dir=${args.get('profile')}`] : [];
  // The daemon as pm2 starts it (that checkout's ecosystem.config.js), or with the flags given.
  const nodeFlags = args.has('node-flags') ? args.get('node-flags')!.split(' ').filter(Boolean) : await serviceNodeFlags(root);
  // `--daemons`: each its own log (forest.log, forest-2.log, …), all on the one archive.
  const logs = Array.from({ length: DAEMONS }, (_, n) => join(work, n === 0 ? 'forest.log' : `forest-${n + 1}.log`));
  const daemons = logs.map((log) => spawn(process.execPath, [...profile, ...nodeFlags, join(root, 'bin', 'forest.js'), 'run', '--config', join(work, 'settings.yaml')], { stdio: ['ignore', openSync(log, 'w'), 'pipe'] }));
  if (args.has('pin')) {
    for (const forest of daemons) pinToCore(forest.pid!, PIN.daemon);
    pinToCore(web.child.pid!, PIN.others);
    const dataDir = backend.name === 'PostgreSQL' ? backend.dataDir() : null;
    if (backend.name === 'PostgreSQL' && dataDir === null) throw new Error('--pin pins the throwaway cluster of --db=postgres; a server of yours is pinned by you');
    if (dataDir !== null) pinPostgres(dataDir, PIN.others);
  }
  let stderr = '';
  for (const forest of daemons) forest.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  // Listening from the start: a daemon that dies during the run is reported, not waited for.
  const exits = daemons.map((forest) => new Promise<number | null>((resolve) => forest.once('exit', resolve)));
  const exited = Promise.race(exits);
  let died = false;
  void exited.then(() => (died = true));
  const samples: Sample[] = [];
  // The lines the measures below read (each page's extraction, each poll), kept as the logs grow.
  const followers = logs.map((log) => new LogFollower(log, (text) => text.includes('"msg":"extracted"') || text.includes('"msg":"poll') || LANE_TROUBLE.test(text)));
  const backlogDone = new Set<string>();
  let archivedAll: () => void = () => {};
  const allArchived = new Promise<void>((resolve) => (archivedAll = resolve));
  const timer = setInterval(() => {
    const t = Date.now() - started;
    const s = sampleAll(daemons.map((forest) => forest.pid!), t);
    if (s) samples.push(s);
    if (Math.round(t / 1000) % 5 === 0) {
      for (const line of followers.flatMap((follower) => follower.follow())) {
        const backlogPage = line.includes('"msg":"extracted"') ? /"url":"[^"]*\/a\/(\d+)\/0"/.exec(line) : null;
        if (backlogPage) backlogDone.add(backlogPage[1]!);
      }
      if (UNTIL === 'archived' && backlogDone.size >= FEEDS) archivedAll();
    }
    const progress = `${Math.round(t / 1000)} s  rss ${s?.rssMb.toFixed(0)} MB  cpu ${((s?.cpuMs ?? 0) / 1000).toFixed(0)} s  backlog archived ${backlogDone.size}/${FEEDS}`;
    // A line in place on a terminal; a line a minute in a log (a first day runs for an hour or more).
    if (process.stderr.isTTY && !args.has('json')) process.stderr.write(`\r${progress}   `);
    else if (!process.stderr.isTTY && Math.round(t / 1000) % 60 === 0) process.stderr.write(`${progress}\n`);
  }, 1000);
  let limit: NodeJS.Timeout | undefined;
  await Promise.race([new Promise((resolve) => (limit = setTimeout(resolve, MINUTES * 60_000))), exited, allArchived]);
  // A run that ended early must not keep the bench alive until its limit (it kept a first day's 180 minutes).
  clearTimeout(limit);
  clearInterval(timer);
  if (died) {
    for (const forest of daemons) forest.kill('SIGTERM');
    web.child.kill('SIGTERM');
    throw new Error(`forest died during the run: ${stderr}`);
  }
  const last = samples.at(-1)!;
  const stopped = Date.now();
  const machineBusy = busyCores(ticksBefore, machineTicks());
  for (const forest of daemons) forest.kill('SIGTERM');
  const code = (await Promise.all(exits)).find((exit) => exit !== 0) ?? 0;
  const webRequests = z.record(z.string(), z.number()).parse(await (await fetch(`${web.info.cdn}/_stats`)).json());
  web.child.kill('SIGTERM');
  if (code !== 0) throw new Error(`forest exited with ${code}: ${stderr}`);
  const archiveBytes = url === null ? null : await postgresBytes(url);
  if (url !== null) {
    const copy = spawnSync(process.execPath, [join(ROOT, 'bin', 'forest.js'), 'copy', url, database, '--json'], { encoding: 'utf8' });
    if (copy.status !== 0) throw new Error(`forest copy of the PostgreSQL archive failed: ${copy.stderr}`);
  }

  const db = new Database(database, { readonly: true });
  const at = (iso: string) => Date.parse(iso) - started;
  // The daemon's log, one JSON line each (read once for the two measures taken from it).
  for (const follower of followers) follower.follow();
  // Every daemon's lines in time order: a feed's next poll may be another daemon's (pollLateness below).
  const logLines = inTimeOrder(...followers.map((follower) => follower.lines));
  // Captures whose requisites the lane gave up, and how often new pages were held for it (daemon.ts).
  const givenUp = logLines.filter((line) => line.includes('"msg":"requisites given up')).length;
  const holds = logLines.reduce((sum, line) => sum + Number(/"passesHeld":(\d+)/.exec(line)?.[1] ?? 0), 0);
  const extracted = firstExtractions(logLines);
  const backlog = z.array(z.string()).parse(db.prepare("SELECT link FROM items WHERE guid LIKE 'b-%'").pluck().all());
  const archived = backlog.flatMap((link) => extracted.get(link) ?? []).map(at).sort((a, b) => a - b);
  const backlogAt = (share: number) => (archived.length >= Math.ceil(share * FEEDS) ? archived[Math.ceil(share * FEEDS) - 1]! / 1000 : NaN);
  // Hot items published after the start (the ones before are the hot feeds' backlog).
  const hotRows = db.prepare(`SELECT items.published, items.first_seen AS seen, MIN(snapshots.fetched_at) AS fetched FROM items LEFT JOIN snapshots ON snapshots.item_id = items.id
    WHERE items.guid LIKE 'h-%' AND items.published > ? GROUP BY items.id`).all(new Date(web.info.started).toISOString());
  const hot = z.array(z.object({ published: z.string(), seen: z.string(), fetched: z.string().nullable() })).parse(hotRows);
  const captured = hot.filter((row): row is typeof row & { fetched: string } => row.fetched !== null);
  const hotDelays = settledDelays(hot.map((row) => ({ published: Date.parse(row.published), fetched: row.fetched === null ? null : Date.parse(row.fetched) })), stopped, SETTLE_S);
  // As reported before 2026-11-27: every captured item, however close to the end (optimistic).
  const everyCaptured = captured.map((row) => (Date.parse(row.fetched) - Date.parse(row.published)) / 1000);
  // The service's part: from the poll that saw the item to its capture.
  const hotServiceDelays = captured.map((row) => (Date.parse(row.fetched) - Date.parse(row.seen)) / 1000);
  const hotFeeds = web.info.feeds.slice(0, HOT);
  // A hot item's delay is its feed's interval plus this lateness plus the capture's part.
  const hotPollsLate = pollLateness(logLines, { feeds: new Set(hotFeeds) });
  // Past the time the items were at risk: a poll later than that may have lost items.
  const hotPollsPastRisk = pollLateness(logLines, { feeds: new Set(hotFeeds), past: 'risk' });
  const count = (sql: string, ...params: string[]) => z.number().parse(db.prepare(sql).pluck().get(...params));
  const polls = count('SELECT COUNT(*) FROM polls');
  const hotPolls = count(`SELECT COUNT(*) FROM polls JOIN feeds ON feeds.id = polls.feed_id WHERE feeds.url IN (${hotFeeds.map(() => '?').join(', ')})`, ...hotFeeds);
  const pages = count('SELECT COUNT(DISTINCT item_id) FROM extractions');
  // Each feed's first poll: a first day is done only when every subscribed feed has been polled once.
  const feedsSubscribed = count('SELECT COUNT(*) FROM feeds');
  const firstPolls = z.array(z.string()).parse(db.prepare('SELECT MIN(started_at) FROM polls GROUP BY feed_id').pluck().all()).map(at).sort((a, b) => a - b);
  const articles = count('SELECT COUNT(*) FROM articles');
  const checks = count("SELECT COUNT(*) FROM checks WHERE reason IS NOT 'first capture'");
  // Checks that fell due and were not done by the end: when there are many, the machine was
  // saturated and the CPU per page is the machine's capacity over the pages, not their cost.
  const left = z.object({ n: z.number(), oldest: z.string().nullable() }).parse(db.prepare(`SELECT COUNT(*) AS n, MIN(next_check_at) AS oldest FROM articles
    WHERE next_check_at IS NOT NULL AND feed_enabled = 1 AND next_check_at <= ?`).get(new Date(stopped).toISOString()));
  const blobs = z.object({ n: z.number(), stored: z.number(), raw: z.number() })
    .parse(db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(length(data)), 0) AS stored, COALESCE(SUM(size), 0) AS raw FROM blobs').get());
  const againstReference = count("SELECT COUNT(*) FROM blobs WHERE encoding = 'zstd-dict'");
  // Requisites: what the captures list (each listing's bytes, as if stored each time) against what is stored (once per sha256).
  const listed = z.object({ listings: z.number(), kept: z.number(), listedBytes: z.number() }).parse(db.prepare(`SELECT COUNT(*) AS listings, COUNT(requisites.sha256) AS kept,
    COALESCE(SUM(blobs.size), 0) AS listedBytes FROM requisites LEFT JOIN blobs ON blobs.sha256 = requisites.sha256`).get());
  const requisiteBlobs = z.object({ n: z.number(), raw: z.number(), stored: z.number() }).parse(db.prepare(`SELECT COUNT(*) AS n, COALESCE(SUM(size), 0) AS raw, COALESCE(SUM(length(data)), 0) AS stored
    FROM blobs WHERE sha256 IN (SELECT sha256 FROM requisites)`).get());
  const siteSheets = z.object({ listings: z.number(), blobs: z.number() }).parse(db.prepare(`SELECT COUNT(*) AS listings, COUNT(DISTINCT sha256) AS blobs FROM requisites WHERE url LIKE '%/assets/site.css'`).get());
  const gzipped = gzipComparison(db);
  db.close();
  const dbBytes = archiveBytes ?? ['', '-wal'].reduce((sum, suffix) => sum + (statSync(`${database}${suffix}`, { throwIfNoEntry: false })?.size ?? 0), 0);
  const seconds = last.t / 1000;
  const half = samples.filter((s) => s.t >= last.t / 2);
  const growth = half.length ? (half.at(-1)!.rssMb - half[0]!.rssMb) / half[0]!.rssMb : NaN;
  // When the peak came: the daemon's log says what it was doing then.
  const peak = samples.reduce((max, s) => (s.rssMb > max.rssMb ? s : max), samples[0]!);
  const result = {
    archive: backend.name, daemons: DAEMONS, concurrency: CONCURRENCY ?? 8, feeds: FEEDS, hosts: HOSTS, minutes: MINUTES, ranS: (stopped - started) / 1000, hot: HOT, schedule: SCHEDULE, hotPolls,
    pollsPerSecond: polls / seconds, polls, pagesPerSecond: pages / seconds, pages, revisits: checks,
    checksLeft: left.n, checksLeftOldestS: left.oldest === null ? 0 : (stopped - Date.parse(left.oldest)) / 1000,
    backlog50s: backlogAt(0.5), backlog99s: backlogAt(0.99), backlog100s: backlogAt(1), backlogArchived: archived.length,
    feedsSubscribed, feedsPolled: firstPolls.length, firstPoll99s: (firstPolls[Math.ceil(0.99 * firstPolls.length) - 1] ?? NaN) / 1000, lastFirstPollS: (firstPolls.at(-1) ?? NaN) / 1000,
    hotItems: hot.length, hotSettled: hotDelays.length, hotSettledCaptured: hotDelays.filter(Number.isFinite).length,
    hotP50s: quantile(hotDelays, 0.5), hotP95s: quantile(hotDelays, 0.95), hotP95EveryCapturedS: quantile(everyCaptured, 0.95), hotSeenToCapturedP95s: quantile(hotServiceDelays, 0.95),
    hotPollsLateP95s: quantile(hotPollsLate, 0.95), hotPollsLateMaxs: quantile(hotPollsLate, 1),
    hotPollsAtRisk: hotPollsPastRisk.length, hotPollsPastRiskP95s: quantile(hotPollsPastRisk, 0.95), hotPollsPastRiskMaxs: quantile(hotPollsPastRisk, 1),
    rssMaxMb: peak.rssMb, rssMaxAtS: peak.t / 1000, rssGrowthSecondHalf: growth,
    coresUsed: last.cpuMs / last.t, machineBusyCores: machineBusy, cpuMsPerPage: last.cpuMs / Math.max(1, pages),
    // The main thread's work per page hardly depends on the pool's: when it moves between runs of
    // the same code, the machine did (bench/pool.ts measures the pool's part steadily).
    mainThreadCpuMsPerPage: last.mainCpuMs / Math.max(1, pages),
    // The daemon takes whatever the first captures leave for revisits: this is its cost per unit of work.
    cpuMsPerExtraction: last.cpuMs / Math.max(1, pages + checks),
    dbKbPerArticle: dbBytes / 1024 / Math.max(1, articles), bytesPerStoredCapture: blobs.n ? blobs.stored / blobs.n : NaN, rawBytesPerCapture: blobs.n ? blobs.raw / blobs.n : NaN,
    gzipBytesPerCapture: gzipped.gzipBytes, storedBytesPerSampledCapture: gzipped.storedBytes,
    storedCaptures: blobs.n, storedAgainstReference: againstReference, gzipSample: gzipped.captures,
    requisites, storedBytesPerArticle: blobs.stored / Math.max(1, articles), requisiteListings: listed.listings, requisitesKept: listed.kept, requisitesGivenUp: givenUp, capturesHeld: holds,
    requisiteListedBytes: listed.listedBytes, requisiteBlobs: requisiteBlobs.n, requisiteRawBytes: requisiteBlobs.raw, requisiteStoredBytes: requisiteBlobs.stored,
    siteSheetListings: siteSheets.listings, siteSheetBlobs: siteSheets.blobs,
    webRequests, webRequestsPerPage: Object.entries(webRequests).filter(([kind]) => kind !== 'feed' && kind !== 'notModified').reduce((sum, [, n]) => sum + n, 0) / Math.max(1, pages),
  };
  if (args.has('keep')) process.stderr.write(`\nkept ${work}\n`);
  else rmSync(work, { recursive: true, force: true });
  return result;
}

const f = (value: number, digits = 1) => (value === Number.POSITIVE_INFINITY ? '∞' : Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/** The table's rows: a name, the value of each run, the target. */
function rows(results: Result[], pass: { snapshots: number; passMs: number; quietPassMs: number }): Array<[string, string[], string]> {
  const each = (value: (r: Result) => string) => results.map(value);
  return [
    ...(DAEMONS > 1 ? [['daemons on the archive (CPU: all of them; memory: the largest)', each((r) => `${r.daemons}`), ''] as [string, string[], string]] : []),
    ...(UNTIL === 'archived' ? [[`the run: until every backlog page was archived, at most ${MINUTES} min`, each((r) => `${f(r.ranS / 60)} min`), ''] as [string, string[], string]] : []),
    ['polls/s (polls)', each((r) => `${f(r.pollsPerSecond)} (${r.polls})`), ''],
    ...(Object.keys(SCHEDULE).length > 0 ? [['schedule settings over the issue\'s', each(() => JSON.stringify(SCHEDULE)), ''] as [string, string[], string]] : []),
    ['polls of the hot feeds', each((r) => `${r.hotPolls}`), ''],
    ['pages archived/s (pages)', each((r) => `${f(r.pagesPerSecond)} (${r.pages})`), ''],
    ['revisits', each((r) => `${r.revisits}`), ''],
    ['checks due and not done at the end (the oldest due for)', each((r) => `${r.checksLeft} (${f(r.checksLeftOldestS, 0)} s)`), ''],
    ['feeds polled at least once; their first polls 99% / 100% done after', each((r) => `${r.feedsPolled}/${r.feedsSubscribed}; ${f(r.firstPoll99s, 0)} s / ${f(r.lastFirstPollS, 0)} s`), 'every feed'],
    ['backlog archived: 50% / 99% / 100%', each((r) => `${f(r.backlog50s, 0)} s / ${f(r.backlog99s, 0)} s / ${f(r.backlog100s, 0)} s (${r.backlogArchived}/${r.feeds})`), '99% ≤ 300 s, 100% in the run'],
    [`hot items published ${SETTLE_S / 60} min or more before the end: p50 / p95 capture delay`, each((r) => `${f(r.hotP50s, 0)} s / ${f(r.hotP95s, 0)} s (${r.hotSettledCaptured}/${r.hotSettled} captured)`), 'p95 ≤ 120 s'],
    ['hot items: p95 over every captured one (the last minutes\' too)', each((r) => `${f(r.hotP95EveryCapturedS, 0)} s`), ''],
    ['hot items: p95 from the poll that saw them to capture', each((r) => `${f(r.hotSeenToCapturedP95s, 1)} s`), ''],
    ['hot feeds\' polls: start past their planned time, p95 / max', each((r) => `${f(r.hotPollsLateP95s, 1)} s / ${f(r.hotPollsLateMaxs, 1)} s`), ''],
    ['hot feeds\' polls: start past their items\' risk time (of polls with one), p95 / max', each((r) => `${f(r.hotPollsPastRiskP95s, 1)} s / ${f(r.hotPollsPastRiskMaxs, 1)} s (${r.hotPollsAtRisk})`), ''],
    ['resident memory: max / growth over 2nd half', each((r) => `${f(r.rssMaxMb, 0)} MB (at ${f(r.rssMaxAtS, 0)} s) / ${f(100 * r.rssGrowthSecondHalf)}%`), '≤ 600 MB / ≤ 5%'],
    ['CPU cores used', each((r) => f(r.coresUsed, 2)), ''],
    [`cores the machine kept busy (of ${availableParallelism()}: the daemon, the web${results.some((r) => r.archive === 'PostgreSQL') ? ', PostgreSQL' : ''})`, each((r) => f(r.machineBusyCores, 2)), ''],
    ['CPU ms per archived page', each((r) => f(r.cpuMsPerPage)), '≤ 40'],
    ['CPU ms per extraction (first captures and revisits)', each((r) => f(r.cpuMsPerExtraction)), ''],
    ['of the CPU per page, the main thread\'s (the rest: the pool, V8\'s helpers)', each((r) => f(r.mainThreadCpuMsPerPage)), ''],
    ['database per article', each((r) => `${f(r.dbKbPerArticle)} KB`), '≤ 30 KB'],
    ['requisites', each((r) => r.requisites), ''],
    ['stored bytes per article, after deduplication (pages and requisites)', each((r) => `${f(r.storedBytesPerArticle / 1024)} KB`), ''],
    ['requisites listed with captures (kept) / distinct bodies stored', each((r) => `${r.requisiteListings} (${r.requisitesKept}) / ${r.requisiteBlobs}`), ''],
    ['captures whose requisites were given up / passes that held new pages for them', each((r) => `${r.requisitesGivenUp} / ${r.capturesHeld}`), ''],
    ['requisite bytes as listed / stored (deduplication ratio)', each((r) => `${f(r.requisiteListedBytes / 2 ** 20)} MB / ${f(r.requisiteStoredBytes / 2 ** 20)} MB (${f(r.requisiteListedBytes / Math.max(1, r.requisiteRawBytes), 2)}×)`), ''],
    ['site stylesheets: listed / stored (one per site whatever the pages)', each((r) => `${r.siteSheetListings} / ${r.siteSheetBlobs}`), 'stored once per site'],
    ['the web\'s requests per archived page (pages, site files, photographs, CDN; 304s)', each((r) => `${f(r.webRequestsPerPage, 2)} (${['page', 'site', 'photo', 'cdn'].map((kind) => r.webRequests[kind] ?? 0).join(', ')}; ${r.webRequests['notModified'] ?? 0})`), ''],
    ['bytes per stored capture (raw)', each((r) => `${f(r.bytesPerStoredCapture, 0)} (${f(r.rawBytesPerCapture, 0)}); ${r.storedAgainstReference} of ${r.storedCaptures} stored against their site's reference`), ''],
    ['the same captures as plain gzip (a sample)', each((r) => `${f(r.gzipBytesPerCapture, 0)} against ${f(r.storedBytesPerSampledCapture, 0)} stored (${r.gzipSample})`), ''],
    [`pass cost at ${pass.snapshots.toLocaleString('en')} snapshots, busy / quiet`, [`${f(pass.passMs, 2)} / ${f(pass.quietPassMs, 2)} ms`, ...results.slice(1).map(() => '')], ''],
  ];
}

async function main(): Promise<void> {
  const against = args.get('against');
  if (against !== undefined) buildCheckout(against);
  const rounds = against === undefined ? 1 : Math.max(1, Number(args.get('rounds') ?? 1));
  const archives = backends();
  const labelled = against !== undefined || archives.list.length > 1 || REQUISITES.length > 1;
  const runs: Array<{ label: string; result: Result }> = [];
  try {
    for (let round = 1; round <= rounds; round++) {
      const order = [{ label: 'this checkout', root: ROOT }, ...(against === undefined ? [] : [{ label: against, root: against }])];
      if (round % 2 === 0) order.reverse();
      for (const { label, root } of order) {
        for (const backend of archives.list) {
          for (const requisites of REQUISITES) {
            const where = archives.list.length > 1 ? (against === undefined ? backend.name : `${label} on ${backend.name}`) : label;
            const named = REQUISITES.length > 1 ? `${where}, requisites ${requisites}` : where;
            if (labelled) process.stderr.write(`\nround ${round}: ${named}\n`);
            runs.push({ label: rounds > 1 ? `${named}, run ${round}` : named, result: await runOnce(root, backend, requisites) });
          }
        }
      }
    }
  } finally {
    archives.dispose();
  }
  const pass = passCost();
  if (args.has('json')) {
    const withPass = runs.map(({ label, result }) => ({ ...(labelled ? { label } : {}), ...result, passSnapshots: pass.snapshots, passMs: pass.passMs, quietPassMs: pass.quietPassMs }));
    return void console.log(JSON.stringify(labelled ? withPass : withPass[0]));
  }
  const labels = labelled ? runs.map((run) => run.label) : ['value'];
  console.log(`\n\n| ${FEEDS} feeds on ${HOSTS} hosts, ${MINUTES} min | ${labels.join(' | ')} | target |`);
  console.log(`|---|${labels.map(() => '---|').join('')}---|`);
  for (const [name, values, target] of rows(runs.map((run) => run.result), pass)) console.log(`| ${name} | ${values.join(' | ')} | ${target} |`);
}

/** What plain gzip (one stream per page, as Forest stored captures before) would take for a sample of the stored captures. */
function gzipComparison(db: Database.Database): { captures: number; gzipBytes: number; storedBytes: number } {
  const hashes = z.array(z.string()).parse(db.prepare('SELECT sha256 FROM blobs ORDER BY rowid LIMIT 2000').pluck().all());
  let gzipBytes = 0;
  let storedBytes = 0;
  for (const hash of hashes) {
    const stored = runOn(db, storedBlob(hash))!;
    storedBytes += stored.data.byteLength;
    gzipBytes += gzipSync(decodeStoredBody(stored)).byteLength;
  }
  return { captures: hashes.length, gzipBytes: hashes.length ? gzipBytes / hashes.length : NaN, storedBytes: hashes.length ? storedBytes / hashes.length : NaN };
}

await loadCodec();
await main();
