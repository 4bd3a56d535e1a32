/**
 * `npm run bench:trial -- --against=DIR`: issue #9's first trial — 1,000 feeds on 100 loopback
 * hosts, one backlog item each, `perHostDelay: 1s`, `defaultInterval: 10m`, `minInterval: 1m`,
 * for 2 minutes — run with this checkout's daemon and another's, alternately, on the same
 * bench web as bench:scale (bench/scale/web.ts). It prints the CPU per archived page of each.
 *
 *   npm run bench:trial -- --against=DIR [--rounds=2] [--feeds=1000] [--hosts=100] [--minutes=2] [--hot=0] [--json]
 *
 * Why beside bench:scale: the machine's speed drifts by a third or more between days (the same
 * code's CPU per page with it), so a figure from one day says little about another's. Run next
 * to the code an issue was measured on, the ratio of the two stands however fast the machine is
 * that hour. bench:scale's --against reads the archive through today's schema; this reads only
 * what every schema since the first round has (`extractions.item_id`, `items.guid`), so DIR may
 * be any Forest checkout, the code issue #9 was filed against (449d2c2) too, installed with its
 * own `npm ci`. A checkout whose settings know no `http.allowPrivateNetworks` (before the
 * address policy) is given none.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { z } from 'zod';
import { buildCheckout, sample, startWeb } from './scale/process.js';
import { serviceNodeFlags } from '../test/helpers/cli.js';

const { values: options } = parseArgs({
  options: {
    against: { type: 'string' }, rounds: { type: 'string', default: '2' }, feeds: { type: 'string', default: '1000' }, hosts: { type: 'string', default: '100' },
    minutes: { type: 'string', default: '2' }, hot: { type: 'string', default: '0' }, json: { type: 'boolean', default: false },
  },
});
const ROOT = join(import.meta.dirname, '..');
const counts = { feeds: Number(options.feeds), hosts: Number(options.hosts), hot: Number(options.hot) };
const MINUTES = Number(options.minutes);

interface Trial { pages: number; backlog: number; cpuS: number; cpuMsPerPage: number; rssMaxMb: number }

/** Whether the checkout's settings have the address policy (2026-11-22, #11): loopback feeds need it allowed. */
const knowsAddressPolicy = (root: string) => readFileSync(join(root, 'src', 'config', 'settings.ts'), 'utf8').includes('allowPrivateNetworks');

async function runOnce(root: string): Promise<Trial> {
  const work = mkdtempSync(join(tmpdir(), 'forest-trial-'));
  const web = await startWeb(counts);
  const database = join(work, 'forest.db');
  writeFileSync(join(work, 'feeds.yaml'), stringify(web.info.feeds.map((url) => ({ url }))));
  writeFileSync(join(work, 'settings.yaml'), stringify({
    subscriptions: join(work, 'feeds.yaml'), database: { path: database },
    http: { perHostDelay: '1s', ...(knowsAddressPolicy(root) ? { allowPrivateNetworks: ['127.0.0.0/8'] } : {}) },
    schedule: { defaultInterval: '10m', minInterval: '1m' }, log: { level: 'info', pretty: false },
  }));
  const log = openSync(join(work, 'forest.log'), 'w');
  const forest = spawn(process.execPath, [...(await serviceNodeFlags(root)), join(root, 'bin', 'forest.js'), 'run', '--config', join(work, 'settings.yaml')], { stdio: ['ignore', log, log] });
  const exited = new Promise<number | null>((done) => forest.once('exit', done));
  const started = Date.now();
  let rssMaxMb = 0;
  const timer = setInterval(() => {
    rssMaxMb = Math.max(rssMaxMb, sample(forest.pid!, Date.now() - started)?.rssMb ?? 0);
  }, 1000);
  await Promise.race([new Promise((done) => setTimeout(done, MINUTES * 60_000)), exited]);
  clearInterval(timer);
  const cpuMs = sample(forest.pid!, Date.now() - started)?.cpuMs;
  forest.kill('SIGTERM');
  const code = await exited;
  web.child.kill('SIGTERM');
  if (cpuMs === undefined || code !== 0) throw new Error(`the daemon of ${root} exited with ${code} (its log: ${join(work, 'forest.log')})`);
  const db = new Database(database, { readonly: true });
  const count = (sql: string) => z.number().parse(db.prepare(sql).pluck().get());
  const pages = count('SELECT COUNT(DISTINCT item_id) FROM extractions');
  const backlog = count("SELECT COUNT(DISTINCT extractions.item_id) FROM extractions JOIN items ON items.id = extractions.item_id WHERE items.guid LIKE 'b-%'");
  db.close();
  rmSync(work, { recursive: true, force: true });
  return { pages, backlog, cpuS: cpuMs / 1000, cpuMsPerPage: cpuMs / Math.max(1, pages), rssMaxMb };
}

async function main(): Promise<void> {
  if (!options.against) throw new Error('bench:trial needs --against=DIR: the Forest checkout to run beside this one');
  const against = resolve(options.against);
  buildCheckout(against);
  const runs: Array<{ label: string; round: number; trial: Trial }> = [];
  for (let round = 1; round <= Math.max(1, Number(options.rounds)); round++) {
    const order = [{ label: 'this checkout', root: ROOT }, { label: against, root: against }];
    if (round % 2 === 0) order.reverse();
    for (const { label, root } of order) {
      process.stderr.write(`round ${round}: ${label}\n`);
      runs.push({ label, round, trial: await runOnce(root) });
    }
  }
  if (options.json) return void console.log(JSON.stringify(runs));
  const f = (value: number, digits = 1) => value.toFixed(digits);
  console.log(`\n| ${counts.feeds} feeds on ${counts.hosts} hosts (${counts.hot} hot), ${MINUTES} min | pages archived (backlog) | CPU s | CPU ms per page | resident max |`);
  console.log('|---|---|---|---|---|');
  for (const { label, round, trial } of runs) {
    console.log(`| ${label}, run ${round} | ${trial.pages} (${trial.backlog} of ${counts.feeds}) | ${f(trial.cpuS)} | ${f(trial.cpuMsPerPage)} | ${f(trial.rssMaxMb, 0)} MB |`);
  }
  const mean = (label: string) => {
    const mine = runs.filter((run) => run.label === label);
    return mine.reduce((sum, run) => sum + run.trial.cpuMsPerPage, 0) / mine.length;
  };
  console.log(`\nCPU per page, this checkout against ${against}: ${f(mean('this checkout') / mean(against), 2)}×`);
}

await main();
