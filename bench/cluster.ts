import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { benchArgs } from './args.js';
import { capCpu } from './cpu-quota.js';
import { PIN, pinPostgres, pinToCore } from './cpu-pin.js';
import { busyCores, machineTicks } from './machine.js';
import { sample, startWeb } from './scale/process.js';
import { serviceNodeFlags } from '../test/helpers/cli.js';
import { launchCluster } from '../test/helpers/pg-cluster.js';
import { LogFollower, readLog, sumEffort } from './scale/daemon-log.js';

/**
 * bench:cluster (issue #51): 1, 2 and 3 daemons, one worker thread each, on one PostgreSQL
 * archive (a throwaway cluster from Debian's binaries), against the scale benchmark's web: N
 * feeds on H loopback hosts, each with one backlog item whose page is a real page of
 * ../shared/datasets. For each count, a fresh archive and web, until every backlog page is
 * archived (or M minutes), then from the daemons' logs: the time until 99% of the backlog was
 * archived (first extractions) and the pages per second that makes, CPU per page (every daemon's
 * process, all threads, from /proc), polls, and double work — a page captured twice, a feed
 * polled twice within its minimum interval.
 *
 * `--sqlite` adds one daemon on a SQLite file, run the same way: what one daemon on PostgreSQL
 * costs against the embedded default.
 *
 * `--cpu-quota=0.2` caps each daemon at that fraction of a core (cpu-quota.ts, as root): N daemons
 * then have N times one daemon's CPU on a machine whose cores one daemon, the server and the web
 * would otherwise fill (issue #70) — what a second daemon adds is then measurable here.
 *
 * Each daemon starts with the node flags the service starts it with (ecosystem.config.js's
 * `node_args`, as bench:scale does); `--node-flags="…"` replaces them (`--node-flags=` for none).
 *
 * `--pin` puts every daemon on core 0 and the web, the PostgreSQL server and the bench itself on core 1
 * (cpu-pin.ts): the daemons' core is then the only one whose load changes with their count, so
 * what a second or third daemon costs is the daemons' coordination and not the rest of the machine
 * filling up. `--rounds=2` runs the counts again in the same order (1, 2, 3, 1, 2, 3): capped runs on
 * this machine differ by more from one to the next than the ratios the issue asks about.
 *
 * `--kill-after=S` adds a run of the largest count in which the last daemon is killed (SIGKILL,
 * no shutdown) S seconds in: the others must take over what it held once its lease is stale
 * (DAEMON_OPTIONS.lease.staleAfterMs) and archive the whole backlog, nothing captured twice, the
 * archive clean by `forest check` (issue #70: a `kill -9` mid-run losing nothing).
 *
 * Per daemon it prints where the time went, from the effort each minute's report carries
 * (src/daemon/effort.ts, summed over the run's whole minutes): CPU — the main thread's, the pool's
 * workers' and the rest (V8's compiler and collector threads, libuv's) — the main thread's busy time,
 * scheduler passes and those that started nothing, claims and those another daemon held, the
 * wall time of work by kind, and the time spent waiting on the archive with its costliest
 * methods. After the run, `forest check` reads the archive.
 *
 *   npm run bench:cluster -- [--feeds=6000] [--hosts=600] [--minutes=8] [--daemons=1,2,3] [--sqlite] [--cpu-quota=0.2] [--pin] [--rounds=1] [--kill-after=S] [--interval=10m] [--node-flags="…"] [--profile=DIR] [--json]
 */

const args = benchArgs();
const FEEDS = Number(args.get('feeds') ?? 6000);
const HOSTS = Number(args.get('hosts') ?? 600);
const MINUTES = Number(args.get('minutes') ?? 8);
const COUNTS = (args.get('daemons') ?? '1,2,3').split(',').map(Number);
const CPU_QUOTA = args.has('cpu-quota') ? Number(args.get('cpu-quota')) : null;
const PINNED = args.has('pin');
const ROUNDS = Math.max(1, Number(args.get('rounds') ?? 1));
const MIN_INTERVAL_S = 60;
const KILL_AFTER_S = args.has('kill-after') ? Number(args.get('kill-after')) : null;
/** `--interval`: the feeds' default poll interval (10m). A run longer than it polls every feed again — work a shorter run with more daemons never does; `--interval=2h` keeps long runs comparable. */
const INTERVAL = args.get('interval') ?? '10m';
/** `--profile=DIR`: V8 CPU profiles of every daemon (main thread and worker) in DIR, to see what a daemon's CPU per page is spent on. */
const PROFILE = args.get('profile') ? ['--cpu-prof', `--cpu-prof-dir=${args.get('profile')}`] : [];
const ROOT = join(import.meta.dirname, '..');
const NODE_FLAGS = args.has('node-flags') ? args.get('node-flags')!.split(' ').filter(Boolean) : await serviceNodeFlags(ROOT);

// The bench's own reading and sampling stay off the daemons' core.
if (PINNED) pinToCore(process.pid, PIN.others);

async function runWith(daemons: number, database: { url: string } | { path: string }, round: number, killAfterS: number | null = null) {
  const work = mkdtempSync(join(tmpdir(), 'forest-cluster-'));
  const web = await startWeb({ feeds: FEEDS, hosts: HOSTS, hot: 0 });
  if (PINNED) pinToCore(web.child.pid!, PIN.others);
  writeFileSync(join(work, 'feeds.yaml'), stringify(web.info.feeds.map((feed) => ({ url: feed }))));
  writeFileSync(join(work, 'settings.yaml'), stringify({
    subscriptions: join(work, 'feeds.yaml'), database: 'url' in database ? database : { path: join(work, 'forest.db') },
    http: { perHostDelay: '1s', allowPrivateNetworks: ['127.0.0.0/8'] }, schedule: { defaultInterval: INTERVAL, minInterval: `${MIN_INTERVAL_S}s` },
    revisit: { after: ['3m', '6m'] }, log: { level: 'info', pretty: false }, workers: 1,
  }));
  const started = Date.now();
  const ticksBefore = machineTicks();
  const children: ChildProcess[] = [];
  const uncap: Array<() => void> = [];
  const cpu = new Map<number, number>();
  for (let i = 0; i < daemons; i++) {
    const log = openSync(join(work, `forest-${i}.log`), 'w');
    const child = spawn(process.execPath, [...PROFILE, ...NODE_FLAGS, join(ROOT, 'bin', 'forest.js'), 'run', '--config', join(work, 'settings.yaml')], { stdio: ['ignore', log, 'inherit'] });
    children.push(child);
    if (PINNED) pinToCore(child.pid!, PIN.daemon);
    if (CPU_QUOTA !== null) uncap.push(capCpu(child.pid!, CPU_QUOTA, `forest-bench-${process.pid}-${i}`));
  }
  const timer = setInterval(() => {
    for (const child of children) {
      const s = sample(child.pid!, Date.now() - started);
      if (s) cpu.set(child.pid!, s.cpuMs);
    }
    if (process.stderr.isTTY && !args.has('json')) process.stderr.write(`\r${daemons} daemon(s): ${Math.round((Date.now() - started) / 1000)} s   `);
  }, 1000);
  // Until every backlog page is archived (read from the logs every few seconds, each line once:
  // reading the whole logs again each time cost the bench more CPU the longer the run), or the time is up.
  const followers = children.map((_, i) => new LogFollower(join(work, `forest-${i}.log`), (text) => text.includes('"msg":"extracted"')));
  const archived = new Set<string>();
  const archivedSoFar = () => {
    for (const text of followers.flatMap((follower) => follower.follow())) {
      const url = /"url":"([^"]+)"/.exec(text)?.[1];
      if (url) archived.add(url);
    }
    return archived.size;
  };
  const killed = children.at(-1)!;
  const kill = killAfterS === null ? undefined : setTimeout(() => killed.kill('SIGKILL'), killAfterS * 1000);
  while (Date.now() - started < MINUTES * 60_000 && archivedSoFar() < FEEDS) await new Promise((resolve) => setTimeout(resolve, 3000));
  clearInterval(timer);
  clearTimeout(kill);
  const killedAtS = killed.signalCode === 'SIGKILL' ? killAfterS : null;
  const seconds = (Date.now() - started) / 1000;
  const ticksAfter = machineTicks();
  const machineBusy = busyCores(ticksBefore, ticksAfter);
  await Promise.all(children.filter((child) => child.exitCode === null && child.signalCode === null).map((child) => new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  })));
  web.child.kill('SIGTERM');
  for (const undo of uncap) undo();
  const logs = children.map((_, i) => readLog(join(work, `forest-${i}.log`)));
  const all = logs.flat();
  const firstExtracted = new Map<string, number>();
  for (const entry of all.filter((one) => one.msg === 'extracted' && one.url)) {
    const at = Date.parse(entry.time) - started;
    if (!firstExtracted.has(entry.url!) || at < firstExtracted.get(entry.url!)!) firstExtracted.set(entry.url!, at);
  }
  const extracted = new Set(firstExtracted.keys());
  const times = [...firstExtracted.values()].sort((a, b) => a - b);
  const t99 = times.length >= Math.ceil(0.99 * FEEDS) ? times[Math.ceil(0.99 * FEEDS) - 1]! / 1000 : NaN;
  const captured = all.filter((entry) => entry.msg === 'captured').map((entry) => entry.url!);
  const polls = all.filter((entry) => entry.msg === 'polled');
  const pollTimes = new Map<string, number[]>();
  for (const poll of polls) pollTimes.set(poll.feed!, [...(pollTimes.get(poll.feed!) ?? []), Date.parse(poll.time)]);
  const closePolls = [...pollTimes.values()].reduce((sum, times) => {
    const sorted = times.sort((a, b) => a - b);
    return sum + sorted.slice(1).filter((at, i) => at - sorted[i]! < MIN_INTERVAL_S * 1000 * 0.9).length;
  }, 0);
  const cpuMs = [...cpu.values()].reduce((sum, ms) => sum + ms, 0);
  const checked = spawnSync(process.execPath, [join(ROOT, 'bin', 'forest.js'), 'check', '--config', join(work, 'settings.yaml')], { encoding: 'utf8' });
  rmSync(work, { recursive: true, force: true });
  return {
    backend: 'url' in database ? 'PostgreSQL' : 'SQLite', daemons, round, killedAtS, seconds: Math.round(seconds), pages: extracted.size, backlog99: t99, pagesPerSecond: (0.99 * FEEDS) / t99, cpuMsPerPage: cpuMs / Math.max(1, extracted.size),
    polls: polls.length, capturedTwice: captured.length - new Set(captured).size, polledWithinInterval: closePolls,
    machineBusyCores: machineBusy,
    perDaemon: logs.map((log) => log.filter((entry) => entry.msg === 'extracted').length),
    backlog50: times.length >= Math.ceil(0.5 * FEEDS) ? times[Math.ceil(0.5 * FEEDS) - 1]! / 1000 : NaN,
    effort: logs.map((log) => sumEffort(log.flatMap((entry) => (entry.effort ? [entry.effort] : [])))),
    // How long each daemon took from its spawn to its first poll (loading, the pool, the list's sync: under a cap, slow).
    firstPollS: logs.map((log) => {
      const first = log.find((entry) => entry.msg === 'polled');
      return first ? (Date.parse(first.time) - started) / 1000 : NaN;
    }),
    // What the killed daemon left half done: pages it captured and had not extracted when it died, and how many of those another daemon then extracted.
    leftByKilled: killedAtS === null ? null : (() => {
      const killedLog = logs.at(-1)!;
      const itsExtracted = new Set(killedLog.filter((entry) => entry.msg === 'extracted').map((entry) => entry.url));
      const left = new Set(killedLog.filter((entry) => entry.msg === 'captured' && !itsExtracted.has(entry.url)).map((entry) => entry.url!));
      return { captured: left.size, extractedByOthers: [...left].filter((url) => extracted.has(url)).length };
    })(),
    check: checked.status === 0 ? 'clean' : `exit ${checked.status}: ${(checked.stdout + checked.stderr).trim().split('\n').slice(-2).join(' ')}`,
  };
}

const cluster = launchCluster();
try {
  if (PINNED) pinPostgres(join(cluster.socket, 'data'), PIN.others);
  const results: Array<Awaited<ReturnType<typeof runWith>>> = [];
  for (let round = 1; round <= ROUNDS; round++) {
    if (args.has('sqlite')) results.push(await runWith(1, { path: 'forest.db' }, round));
    for (const daemons of COUNTS) results.push(await runWith(daemons, { url: await cluster.createDatabase(`cluster_${daemons}_${round}`) }, round));
  }
  const most = Math.max(...COUNTS);
  if (KILL_AFTER_S !== null && most >= 2) results.push(await runWith(most, { url: await cluster.createDatabase(`cluster_${most}_killed`) }, ROUNDS, KILL_AFTER_S));
  if (args.has('json')) {
    console.log(JSON.stringify(results));
  } else {
    // Each round's counts are measured against that round's one daemon: the machine drifts between rounds.
    type Run = (typeof results)[number];
    const baseOf = (r: Run) => results.find((result) => result.daemons === 1 && result.backend === 'PostgreSQL' && result.round === r.round && result.killedAtS === null);
    const label = (r: Run) => `${ROUNDS > 1 ? `${r.daemons} (round ${r.round})` : String(r.daemons)}${r.killedAtS !== null ? `, daemon ${r.daemons} killed (SIGKILL) at ${r.killedAtS} s` : ''}`;
    console.log(`\nbench:cluster — ${FEEDS} feeds on ${HOSTS} hosts (one backlog page each), until archived or ${MINUTES} min, one worker thread per daemon (node ${NODE_FLAGS.join(' ') || 'without flags'})${CPU_QUOTA !== null ? `, each capped at ${CPU_QUOTA} of a core` : ''}${PINNED ? `, daemons pinned to core ${PIN.daemon}, the web and the server to core ${PIN.others}` : ''}, one PostgreSQL archive\n`);
    console.log('| archive | daemons | pages archived | backlog 50% / 99% | pages/s | × one PostgreSQL daemon (backlog p99) | CPU ms/page | machine busy | polls | captured twice | polled within interval | forest check | pages per daemon |');
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    // A backlog not archived within the run: its p99 is past the run's length, which bounds the ratio.
    const backlog = (r: Run) => `${Number.isFinite(r.backlog50) ? r.backlog50.toFixed(0) : `> ${r.seconds}`} / ${Number.isFinite(r.backlog99) ? `${r.backlog99.toFixed(0)} s` : `> ${r.seconds} s (${r.pages} of ${FEEDS} archived)`}`;
    const times = (one: Run, r: Run) => {
      if (Number.isFinite(one.backlog99) && Number.isFinite(r.backlog99)) return (one.backlog99 / r.backlog99).toFixed(2);
      if (Number.isFinite(r.backlog99)) return `≥ ${(one.seconds / r.backlog99).toFixed(2)}`;
      return 'n/a';
    };
    for (const r of results) {
      const base = baseOf(r);
      console.log(`| ${r.backend} | ${label(r)} | ${r.pages} | ${backlog(r)} | ${(Number.isFinite(r.pagesPerSecond) ? r.pagesPerSecond : r.pages / r.seconds).toFixed(2)} | ${base ? times(base, r) : '—'} | ${r.cpuMsPerPage.toFixed(1)}${base && base !== r ? ` (${r.cpuMsPerPage >= base.cpuMsPerPage ? '+' : ''}${Math.round((r.cpuMsPerPage / base.cpuMsPerPage - 1) * 100)} %)` : ''} | ${r.machineBusyCores.toFixed(2)} of ${cpus().length} cores | ${r.polls} | ${r.capturedTwice} | ${r.polledWithinInterval} | ${r.check} | ${r.perDaemon.join(' / ')} |`);
    }
    for (const r of results.filter((one) => one.leftByKilled !== null)) {
      console.log(`\nDaemon ${r.daemons} killed (SIGKILL) at ${r.killedAtS} s: it had captured ${r.leftByKilled!.captured} page(s) it had not extracted; the others extracted ${r.leftByKilled!.extractedByOthers} of them once its lease was stale; ${r.pages} of ${FEEDS} backlog pages archived, ${r.capturedTwice} captured twice, forest check ${r.check}.`);
    }
    const s = (ms: number) => (ms / 1000).toFixed(1);
    console.log('\nwhere each daemon\'s time went (its minute reports summed: work and archive times add up over concurrent units):\n');
    console.log('| archive | daemons | daemon | first poll after | minutes | CPU s: all (main / pool / rest) | main thread busy s | passes (started nothing) | pass s | claimed (held by another) | work s: poll / capture / revisit / extract | archive wait s (calls) | costliest archive calls, s |');
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    const split = (e: { cpuMs: number; mainCpuMs: number; poolCpuMs: number }) =>
      (Number.isFinite(e.mainCpuMs) && Number.isFinite(e.poolCpuMs) ? `${s(e.cpuMs)} (${s(e.mainCpuMs)} / ${s(e.poolCpuMs)} / ${s(e.cpuMs - e.mainCpuMs - e.poolCpuMs)})` : s(e.cpuMs));
    for (const r of results) {
      r.effort.forEach((e, i) => {
        console.log(`| ${r.backend} | ${label(r)} | ${i + 1} | ${r.firstPollS[i]!.toFixed(1)} s | ${e.minutes} | ${split(e)} | ${s(e.mainBusyMs)} | ${e.passes} (${e.emptyPasses}) | ${s(e.passMs)} | ${e.claimed} (${e.refused}) | ${s(e.work.poll)} / ${s(e.work.capture)} / ${s(e.work.revisit)} / ${s(e.work.extract)} | ${s(e.storeMs)} (${e.storeCalls}) | ${e.top.map(([method, entry]) => `${method} ${s(entry.ms)}`).join(', ')} |`);
      });
    }
  }
} finally {
  cluster.dispose();
}
