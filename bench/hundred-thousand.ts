/**
 * `npm run bench:hundred-thousand`: Forest at 100,000 feeds on 5,000 loopback hosts, on one machine
 * (issue #70, item 3), in two phases:
 *
 * (a) `first-day`: every feed subscribed at once, each with one item to capture — bench:scale
 *     with the size, run until every feed's page is archived (`--until=archived`; at most
 *     `--first-day-minutes`, default 180): the time that takes, polls, pages archived, memory, CPU.
 * (b) `steady`: an archive that has followed the feeds for a month (bench/scale/history.ts writes
 *     it through the archive's own store on a virtual clock: ≈ 1 M articles, their revisits, a
 *     month of polls), then the daemon with the shipped defaults for M minutes against the web
 *     that goes on publishing (heavy-tailed rates: bench/scale/month.ts). Measured from outside:
 *     how late polls start against the time their feed's schedule planned (p50/p99/max; the
 *     issue's target: p99 within 60 s), resident memory (≤ 1 GB and flat), the cores used, the
 *     archive's growth extrapolated to a day, the archive methods that took the daemon's time
 *     (its minute reports' effort), and the reads an archivist makes, timed at that size.
 *
 *   npm run bench:hundred-thousand -- [--feeds=100000] [--hosts=5000] [--minutes=10] [--phases=first-day,steady] [--first-day-minutes=180] [--concurrency=N]
 *                                     [--db=sqlite|postgres] [--daemons=N] [--lead=MIN] [--json] [--keep]
 *
 * `--db=postgres` runs the first day on a throwaway PostgreSQL cluster with `--daemons` daemons
 * (default 2; bench:scale --daemons), and copies the month to one (`forest copy`) for as many
 * daemons in the steady state, their polls' lateness read from every daemon's log.
 *
 * `--concurrency=N`: the first day's http.concurrency (bench:scale --concurrency; default the shipped 8).
 *
 * `--lead`: the month ends this many minutes after the bench starts (default: enough for the
 * history to be written at 1,500 feeds a minute, and copied at 1,000 on PostgreSQL); the daemon starts then, so that the archive
 * is as fresh as the month left it. When the history takes longer, the daemon starts late and
 * the run says by how much (its first minutes catch up; lateness counts only polls planned
 * after the daemon started).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { z } from 'zod';
import { openStore } from '../src/archive/sqlite/store.js';
import { loadCodec } from '../src/archive/codec.js';
import { loadSettings } from '../src/config/settings.js';
import { serviceNodeFlags } from '../test/helpers/cli.js';
import { benchArgs } from './args.js';
import { busyCores, machineTicks } from './machine.js';
import { quantile } from './quantile.js';
import { inTimeOrder, pollLateness, readLog, sumEffort, type LogLine } from './scale/daemon-log.js';
import { fillMonth } from './scale/history.js';
import { sites } from './scale/pages.js';
import { sample, startWeb, type Sample } from './scale/process.js';
import { postgresBytes } from './scale/pg-size.js';
import { timedReads } from './scale/reads.js';
import { launchCluster } from '../test/helpers/pg-cluster.js';

const args = benchArgs();
const FEEDS = Number(args.get('feeds') ?? 100_000);
const HOSTS = Number(args.get('hosts') ?? 5000);
const MINUTES = Number(args.get('minutes') ?? 10);
const PHASES = (args.get('phases') ?? 'first-day,steady').split(',');
/** The first day ends when every page is archived; this is how long it may take before the bench gives up and says so. */
const FIRST_DAY_LIMIT_MINUTES = 180;
/** `--db=postgres`: the month copied to a throwaway PostgreSQL cluster, and `--daemons` daemons on it (default 2). */
const POSTGRES = (args.get('db') ?? 'sqlite') === 'postgres';
const DAEMONS = Number(args.get('daemons') ?? (POSTGRES ? 2 : 1));
if (!POSTGRES && DAEMONS !== 1) throw new Error('--daemons: a SQLite archive has one daemon (its lease); --db=postgres for several');
const LEAD_MIN = Number(args.get('lead') ?? Math.max(2, Math.ceil(FEEDS / (POSTGRES ? 1000 : 1500))));
const ROOT = join(import.meta.dirname, '..');
const DATASETS = join(ROOT, '..', 'shared', 'datasets');
const say = (text: string) => {
  if (!args.has('json')) process.stderr.write(`${text}\n`);
};

/** The archive's bytes in use: its pages less the free ones (a WAL not yet checkpointed counted too). */
function archiveBytes(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    const pages = z.number().parse(db.pragma('page_count', { simple: true }));
    const free = z.number().parse(db.pragma('freelist_count', { simple: true }));
    const size = z.number().parse(db.pragma('page_size', { simple: true }));
    return (pages - free) * size;
  } finally {
    db.close();
  }
}

/** A daemon of the run: its process, its log, its samples. */
interface Daemon { child: ChildProcess; log: string; exited: Promise<number | null>; samples: Sample[]; stderr: string }

function startDaemon(config: string, log: string, nodeFlags: string[], started: number): Daemon {
  const child = spawn(process.execPath, [...nodeFlags, join(ROOT, 'bin', 'forest.js'), 'run', '--config', config], { stdio: ['ignore', openSync(log, 'w'), 'pipe'] });
  const daemon: Daemon = { child, log, exited: new Promise((resolve) => child.once('exit', resolve)), samples: [], stderr: '' };
  child.stderr!.on('data', (chunk: Buffer) => (daemon.stderr = (daemon.stderr + chunk.toString()).slice(-4000)));
  const timer = setInterval(() => {
    const s = sample(child.pid!, Date.now() - started);
    if (s) daemon.samples.push(s);
  }, 1000);
  void daemon.exited.then(() => clearInterval(timer));
  return daemon;
}

async function steady() {
  const work = mkdtempSync(join(tmpdir(), 'forest-hundred-'));
  const benchStart = Date.now();
  const epoch = benchStart + LEAD_MIN * 60_000;
  const web = await startWeb({ feeds: FEEDS, hosts: HOSTS, hot: 0, month: epoch });
  const database = join(work, 'forest.db');
  const cluster = POSTGRES ? launchCluster() : null;
  try {
    const url = cluster ? await cluster.createDatabase('hundred') : null;
    writeFileSync(join(work, 'feeds.yaml'), stringify(web.info.feeds.map((feed) => ({ url: feed }))));
    writeFileSync(join(work, 'settings.yaml'), stringify({
      subscriptions: join(work, 'feeds.yaml'), database: url === null ? { path: database } : { url },
      http: { allowPrivateNetworks: ['127.0.0.0/8'] }, log: { level: 'info', pretty: false },
    }));
    const settings = loadSettings({ configFile: join(work, 'settings.yaml') });
    const store = openStore(database, { create: true });
    const fill = await fillMonth(store, { feeds: web.info.feeds, hosts: HOSTS, sites: sites(DATASETS), cdn: web.info.cdn, epoch, settings, progress: say });
    await store.close();
    // The month's comparison keys were made from one extraction per real page (history.ts): marked
    // as the previous extractor's, an article's first revisit compares like with like.
    const writer = new Database(database);
    writer.prepare('UPDATE articles SET compare_extractor = compare_extractor - 1').run();
    const planned = new Map(z.array(z.object({ url: z.string(), at: z.string() })).parse(writer.prepare('SELECT url, next_poll_at AS at FROM feeds').all()).map((row) => [row.url, Date.parse(row.at)]));
    const counts = Object.fromEntries(['polls', 'items', 'snapshots', 'articles', 'versions', 'checks', 'contents', 'blobs'].map((table) => [table, z.number().parse(writer.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get())]));
    writer.pragma('wal_checkpoint(TRUNCATE)');
    writer.close();
    say(`history: ${fill.polls.toLocaleString('en')} polls (${fill.notModified.toLocaleString('en')} not modified), ${fill.articles.toLocaleString('en')} articles, ${fill.revisits.toLocaleString('en')} revisits in ${fill.seconds.toFixed(0)} s`);
    let copySeconds = 0;
    if (url !== null) {
      // The same month on PostgreSQL: forest copy, every row as it was (bench:copy measures it).
      const copied = Date.now();
      const copy = spawnSync(process.execPath, [join(ROOT, 'bin', 'forest.js'), 'copy', database, url, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      if (copy.status !== 0) throw new Error(`forest copy to PostgreSQL failed: ${copy.stderr}`);
      copySeconds = (Date.now() - copied) / 1000;
      say(`history copied to PostgreSQL in ${copySeconds.toFixed(0)} s`);
    }
    const bytes = () => (url === null ? Promise.resolve(archiveBytes(database)) : postgresBytes(url));
    const lateStartS = Math.max(0, (Date.now() - epoch) / 1000);
    if (Date.now() < epoch) await new Promise((resolve) => setTimeout(resolve, epoch - Date.now()));
    const bytesBefore = await bytes();

    const started = Date.now();
    const ticksBefore = machineTicks();
    const nodeFlags = await serviceNodeFlags(ROOT);
    const daemons = Array.from({ length: DAEMONS }, (_, i) => startDaemon(join(work, 'settings.yaml'), join(work, `forest-${i + 1}.log`), nodeFlags, started));
    const progress = setInterval(() => {
      if (!process.stderr.isTTY || args.has('json')) return;
      const rss = daemons.map((daemon) => daemon.samples.at(-1)?.rssMb.toFixed(0) ?? '?').join('+');
      process.stderr.write(`\r${Math.round((Date.now() - started) / 1000)} s  rss ${rss} MB   `);
    }, 1000);
    await Promise.race([new Promise((resolve) => setTimeout(resolve, MINUTES * 60_000)), ...daemons.map((daemon) => daemon.exited)]);
    clearInterval(progress);
    const machine = busyCores(ticksBefore, machineTicks());
    const alive = daemons.filter((daemon) => daemon.child.exitCode === null);
    if (alive.length < daemons.length) throw new Error(`a daemon died during the run: ${daemons.map((daemon) => daemon.stderr).join('\n')}`);
    for (const daemon of daemons) daemon.child.kill('SIGTERM');
    const codes = await Promise.all(daemons.map((daemon) => daemon.exited));
    web.child.kill('SIGTERM');
    if (codes.some((code) => code !== 0)) throw new Error(`forest exited with ${codes.join(', ')}: ${daemons.map((daemon) => daemon.stderr).join('\n')}`);
    const bytesAfter = await bytes();

    const logs = daemons.map((daemon) => readLog(daemon.log));
    // Every daemon's poll lines in time order: a feed's next poll may be another daemon's.
    const rawLog = inTimeOrder(...daemons.map((daemon) => readFileSync(daemon.log, 'utf8').split('\n').filter((text) => text.startsWith('{'))));
    // Planned by the previous poll of the run, or for a feed's first poll in it by the archive as the month left it.
    const late = pollLateness(rawLog, { planned, from: started });
    // A message and its variants ("revisited: same object" is a revisit too).
    const count = (msg: string) => logs.flat().filter((entry: LogLine) => entry.msg === msg || entry.msg.startsWith(`${msg}:`)).length;
    const effort = sumEffort(logs.flat().flatMap((entry) => (entry.effort ? [entry.effort] : [])), 8);
    const reads = await timedReads(url === null ? { path: database } : { url }, started);
    const check = spawnSync(process.execPath, [join(ROOT, 'bin', 'forest.js'), 'check', '--db', url ?? database], { encoding: 'utf8' });
    const seconds = Math.min(...daemons.map((daemon) => daemon.samples.at(-1)!.t)) / 1000;
    const cpuMs = daemons.reduce((sum, daemon) => sum + daemon.samples.at(-1)!.cpuMs, 0);
    const peak = Math.max(...daemons.flatMap((daemon) => daemon.samples.map((s) => s.rssMb)));
    const peakAt = Math.max(...daemons.map((daemon) => daemon.samples.reduce((max, s) => (s.rssMb > max.rssMb ? s : max), daemon.samples[0]!)).map((s) => s.t)) / 1000;
    // Growth over the second half, the largest of the daemons'.
    const growth = Math.max(...daemons.map((daemon) => {
      const half = daemon.samples.filter((s) => s.t >= (seconds * 1000) / 2);
      return half.length ? (half.at(-1)!.rssMb - half[0]!.rssMb) / half[0]!.rssMb : NaN;
    }));
    const result = {
      feeds: FEEDS, hosts: HOSTS, minutes: MINUTES, archive: url === null ? 'SQLite' : 'PostgreSQL', daemons: DAEMONS,
      history: { ...fill, rows: counts, bytes: bytesBefore, copySeconds }, lateStartS,
      polls: late.length, pollsLogged: count('polled'), captures: count('captured'), revisits: count('revisited'), extracted: count('extracted'),
      lateP50s: quantile(late, 0.5), lateP99s: quantile(late, 0.99), lateMaxs: quantile(late, 1), lateOver60: late.filter((s) => s > 60).length,
      rssMaxMb: peak, rssMaxAtS: peakAt, rssGrowthSecondHalf: growth,
      coresUsed: cpuMs / (seconds * 1000), machineBusyCores: machine,
      bytesPerDay: ((bytesAfter - bytesBefore) / seconds) * 86_400, archiveBytes: bytesAfter,
      storeMs: effort.storeMs, storeCalls: effort.storeCalls, storeTop: effort.top.map(([method, { calls, ms }]) => ({ method, calls, ms, meanMs: ms / calls })),
      reads, check: check.status === 0 ? 'clean' : `exit ${check.status}: ${(check.stdout + check.stderr).trim().split('\n').slice(-3).join(' ')}`,
    };
    if (args.has('keep')) say(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
    return result;
  } finally {
    web.child.kill('SIGTERM');
    cluster?.dispose();
  }
}

/** Phase (a): bench:scale at the size (on PostgreSQL, with `--daemons` daemons), its JSON. */
function firstDay(): unknown {
  const archive = POSTGRES ? ['--db=postgres', `--daemons=${DAEMONS}`] : [];
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'scale.ts'), `--feeds=${FEEDS}`, `--hosts=${HOSTS}`, `--minutes=${args.get('first-day-minutes') ?? FIRST_DAY_LIMIT_MINUTES}`, '--until=archived', '--requisites=on', '--hot=100', ...archive, ...(args.has('keep') ? ['--keep'] : []), ...(args.has('concurrency') ? [`--concurrency=${args.get('concurrency')}`] : []), '--json'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 2 ** 20 });
  if (run.status !== 0) throw new Error(`the first day (bench:scale) failed with ${run.status}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!);
}

/** What the first day's table shows of bench:scale's JSON. */
const firstDaySummary = z.object({
  archive: z.string(), daemons: z.number(), concurrency: z.number(), ranS: z.number(), polls: z.number(), pollsPerSecond: z.number(), pages: z.number(), pagesPerSecond: z.number(),
  backlog50s: z.number().nullable(), backlog99s: z.number().nullable(), backlog100s: z.number().nullable(), backlogArchived: z.number(),
  hotP95s: z.number().nullable(), hotPollsLateP95s: z.number().nullable(), hotPollsLateMaxs: z.number().nullable(), hotPollsPastRiskP95s: z.number().nullable(), hotPollsPastRiskMaxs: z.number().nullable(),
  rssMaxMb: z.number(), rssMaxAtS: z.number(), rssGrowthSecondHalf: z.number().nullable(), coresUsed: z.number(), machineBusyCores: z.number(),
  cpuMsPerPage: z.number(), mainThreadCpuMsPerPage: z.number(), dbKbPerArticle: z.number(), checksLeft: z.number(),
});

function printFirstDay(r: z.infer<typeof firstDaySummary>): void {
  const n = (value: number | null, digits = 1) => f(value ?? NaN, digits);
  console.log(`\n| ${FEEDS.toLocaleString('en')} feeds on ${HOSTS.toLocaleString('en')} hosts: the first day, ${r.archive}, ${r.daemons} daemon${r.daemons > 1 ? 's' : ''}, http.concurrency ${r.concurrency} | value |`);
  console.log('|---|---|');
  const rows: Array<[string, string]> = [
    ['every page archived after', r.backlog100s === null ? `not in the run (${r.backlogArchived.toLocaleString('en')} of ${FEEDS.toLocaleString('en')} in ${n(r.ranS / 60)} min)` : `${n(r.backlog100s / 60)} min`],
    ['half / 99 % of the pages archived after', `${n((r.backlog50s ?? NaN) / 60)} / ${n((r.backlog99s ?? NaN) / 60)} min`],
    ['polls (per second)', `${r.polls.toLocaleString('en')} (${n(r.pollsPerSecond)})`],
    ['pages archived (per second)', `${r.pages.toLocaleString('en')} (${n(r.pagesPerSecond)})`],
    ['hot items\' capture delay p95; hot feeds\' polls late p95 / max', `${n(r.hotP95s, 0)} s; ${n(r.hotPollsLateP95s)} / ${n(r.hotPollsLateMaxs)} s`],
    ['hot feeds\' polls past their items\' risk time, p95 / max', `${n(r.hotPollsPastRiskP95s)} / ${n(r.hotPollsPastRiskMaxs)} s`],
    ['revisits due and not done at the end', `${r.checksLeft.toLocaleString('en')}`],
    ['resident memory: max / growth over the 2nd half', `${n(r.rssMaxMb, 0)} MB (at ${n(r.rssMaxAtS, 0)} s) / ${n(100 * (r.rssGrowthSecondHalf ?? NaN))} %`],
    [`cores: the daemon${r.daemons > 1 ? 's' : ''} / the machine (of ${availableParallelism()})`, `${n(r.coresUsed, 2)} / ${n(r.machineBusyCores, 2)}`],
    ['CPU ms per archived page (the main thread\'s part)', `${n(r.cpuMsPerPage)} (${n(r.mainThreadCpuMsPerPage)})`],
    ['database per article', `${n(r.dbKbPerArticle)} KB`],
  ];
  for (const [name, value] of rows) console.log(`| ${name} | ${value} |`);
}

const f = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

async function main(): Promise<void> {
  await loadCodec();
  const out: Record<string, unknown> = {};
  if (PHASES.includes('first-day')) out['firstDay'] = firstDay();
  if (PHASES.includes('steady')) {
    const r = await steady();
    out['steady'] = r;
    if (!args.has('json')) {
      const h = r.history;
      console.log(`\n| ${FEEDS.toLocaleString('en')} feeds on ${HOSTS.toLocaleString('en')} hosts: steady state, ${MINUTES} min after a month | value | target |`);
      console.log('|---|---|---|');
      const rows: Array<[string, string, string]> = [
        ['archive, daemons', `${r.archive}, ${r.daemons}`, ''],
        ['the month (written in)', `${h.articles.toLocaleString('en')} articles, ${h.polls.toLocaleString('en')} polls (${h.notModified.toLocaleString('en')} 304), ${h.revisits.toLocaleString('en')} revisits (${f(h.seconds, 0)} s)`, '≈ 1 M articles'],
        ['archive rows', Object.entries(h.rows).map(([table, n]) => `${table} ${n.toLocaleString('en')}`).join(', '), ''],
        ['archive size after the month', `${f(h.bytes / 2 ** 30, 2)} GB`, ''],
        ['daemon started past the month\'s end', `${f(r.lateStartS, 0)} s`, '0'],
        ['polls planned in the run (logged)', `${r.polls} (${r.pollsLogged})`, ''],
        ['captures / revisits / extractions', `${r.captures} / ${r.revisits} / ${r.extracted}`, ''],
        ['poll start past its planned time: p50 / p99 / max', `${f(r.lateP50s)} / ${f(r.lateP99s)} / ${f(r.lateMaxs)} s (${r.lateOver60} over 60 s)`, 'p99 ≤ 60 s'],
        ['resident memory: max / growth over the 2nd half', `${f(r.rssMaxMb, 0)} MB (at ${f(r.rssMaxAtS, 0)} s) / ${f(100 * r.rssGrowthSecondHalf)} %`, '≤ 1 GB, flat'],
        [`cores: the daemon${r.daemons > 1 ? 's' : ''} / the machine (of ${availableParallelism()})`, `${f(r.coresUsed, 2)} / ${f(r.machineBusyCores, 2)}`, ''],
        ['archive growth, extrapolated to a day', `${f(r.bytesPerDay / 2 ** 20, 0)} MB`, ''],
        ['time waiting on the archive (calls)', `${f(r.storeMs / 1000)} s (${r.storeCalls.toLocaleString('en')})`, ''],
        ...r.storeTop.map((m): [string, string, string] => [`  archive method ${m.method}`, `${f(m.ms / 1000)} s over ${m.calls.toLocaleString('en')} calls (${f(m.meanMs, 2)} ms each)`, '']),
        ...r.reads.map((read): [string, string, string] => [`  read: ${read.read}`, `${f(read.ms, 1)} ms`, '']),
        ['forest check after the run', r.check, 'clean'],
      ];
      for (const [name, value, target] of rows) console.log(`| ${name} | ${value} | ${target} |`);
    }
  }
  if (args.has('json')) console.log(JSON.stringify(out));
  else if (out['firstDay']) printFirstDay(firstDaySummary.parse(out['firstDay']));
}

await main();
