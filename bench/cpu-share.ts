import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { benchArgs } from './args.js';
import { capCpu } from './cpu-quota.js';
import { PIN, pinToCore } from './cpu-pin.js';

/**
 * bench:cpu-share — bench:cluster's control (issue #70, item 1): what the same extraction costs
 * when it is split between N capped processes on one core, with no archive, no network and no
 * coordination at all. Each process is one of bench:cluster's daemons reduced to its pool's work:
 * it loads the extraction code, then extracts its share of the pages bench:cluster's web serves
 * (the same real pages of ../shared/datasets, dressed the same way), each page once, and says its
 * CPU — loading, and extraction alone. Every process is pinned to core 0 and capped at
 * `--cpu-quota` of a core, as `bench:cluster --pin --cpu-quota` runs the daemons.
 *
 * If three processes spend more CPU on the same pages than one, that much of bench:cluster's
 * "CPU per page grows with the daemons" is not Forest's coordination but what a process costs
 * to start and warm (V8 compiling the extraction code again in each) and what processes sharing
 * a core cost each other. `--split=no` gives every process all the pages (no fixed cost spread
 * thinner, only the sharing).
 *
 *   npm run bench:cpu-share -- [--pages=1500] [--hosts=750] [--processes=1,3] [--cpu-quota=0.2] [--rounds=2] [--split=yes|no] [--json]
 */

const args = benchArgs();
const PAGES = Number(args.get('pages') ?? 1500);
const HOSTS = Number(args.get('hosts') ?? 750);
const COUNTS = (args.get('processes') ?? '1,3').split(',').map(Number);
const QUOTA = Number(args.get('cpu-quota') ?? 0.2);
const ROUNDS = Math.max(1, Number(args.get('rounds') ?? 2));
const SPLIT = args.get('split') !== 'no';
const CHILD = join(import.meta.dirname, 'cpu-share-child.ts');

interface ChildReport { loadCpuMs: number; extractCpuMs: number; pages: number; firstHundredMsPerPage: number; lastHundredMsPerPage: number }

function runChild(index: number, count: number): Promise<ChildReport> {
  const share = SPLIT ? { from: index, step: count } : { from: 0, step: 1 };
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, String(PAGES), String(HOSTS), String(share.from), String(share.step)], { stdio: ['ignore', 'pipe', 'inherit'] });
  // Capped and pinned before it has loaded anything: its whole life runs under the cap.
  const uncap = capCpu(child.pid!, QUOTA, `forest-cpu-share-${process.pid}-${index}`);
  pinToCore(child.pid!, PIN.daemon);
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  return new Promise((resolve, reject) => child.once('exit', (code) => {
    uncap();
    if (code !== 0) return reject(new Error(`cpu-share child exited ${code}`));
    resolve(JSON.parse(out) as ChildReport);
  }));
}

const results: Array<{ round: number; processes: number; wallS: number; loadCpuS: number; extractCpuS: number; pages: number; firstHundred: number; lastHundred: number }> = [];
for (let round = 1; round <= ROUNDS; round++) {
  for (const count of COUNTS) {
    const started = Date.now();
    const reports = await Promise.all(Array.from({ length: count }, (_, i) => runChild(i, count)));
    const total = (pick: (report: ChildReport) => number) => reports.reduce((sum, report) => sum + pick(report), 0);
    const mean = (pick: (report: ChildReport) => number) => total(pick) / reports.length;
    results.push({
      round, processes: count, wallS: (Date.now() - started) / 1000,
      loadCpuS: total((report) => report.loadCpuMs) / 1000, extractCpuS: total((report) => report.extractCpuMs) / 1000, pages: total((report) => report.pages),
      firstHundred: mean((report) => report.firstHundredMsPerPage), lastHundred: mean((report) => report.lastHundredMsPerPage),
    });
    if (process.stderr.isTTY) process.stderr.write(`round ${round}: ${count} process(es) done\n`);
  }
}

if (args.has('json')) {
  console.log(JSON.stringify(results));
} else {
  console.log(`\nbench:cpu-share — ${PAGES} pages of bench:cluster's web (${HOSTS} hosts), ${SPLIT ? 'split between' : 'each extracted by every one of'} N processes, each capped at ${QUOTA} of a core, all pinned to core ${PIN.daemon}\n`);
  console.log('| round | processes | pages extracted | wall s | CPU s: loading / extraction | extraction CPU ms per page | × one process | ms per page, a process\'s first 100 / last 100 |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const one = results.find((other) => other.round === r.round && other.processes === 1);
    const perPage = (x: typeof r) => (x.extractCpuS * 1000) / x.pages;
    console.log(`| ${r.round} | ${r.processes} | ${r.pages} | ${r.wallS.toFixed(1)} | ${r.loadCpuS.toFixed(1)} / ${r.extractCpuS.toFixed(1)} | ${perPage(r).toFixed(2)} | ${one ? (perPage(r) / perPage(one)).toFixed(2) : '—'} | ${r.firstHundred.toFixed(2)} / ${r.lastHundred.toFixed(2)} |`);
  }
}
