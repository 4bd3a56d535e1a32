import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';

/**
 * What bench:scale and bench:trial share: the bench web as a process of its own, another
 * checkout's daemon built from its own source, and the daemon's memory and CPU read from /proc.
 */

/** Builds the Forest checkout at `dir` (`--against=DIR`), whose daemon is then run as this one's is. */
export function buildCheckout(dir: string): void {
  if (!existsSync(join(dir, 'bin', 'forest.js'))) throw new Error(`--against: no Forest checkout at ${dir} (bin/forest.js missing)`);
  const built = spawnSync('npm', ['run', 'build'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  if (built.status !== 0) throw new Error(`--against: \`npm run build\` failed in ${dir}`);
}

const TICKS_PER_SECOND = 100;

/** `cpuMs`: every thread of the daemon; `mainCpuMs`: its main thread alone (the rest is the pool and V8's helper threads). */
export interface Sample { t: number; rssMb: number; cpuMs: number; mainCpuMs: number }

/** User + system CPU (ms) of a /proc stat file: the whole process, or one thread under task/. */
function cpuOf(path: string): number {
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** The process's resident memory and CPU at `t` (ms into the run); null once it is gone. */
export function sample(pid: number, t: number): Sample | null {
  try {
    const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return { t, rssMb: Number(rss?.[1] ?? 0) / 1024, cpuMs: cpuOf(`/proc/${pid}/stat`), mainCpuMs: cpuOf(`/proc/${pid}/task/${pid}/stat`) };
  } catch {
    return null;
  }
}

/** Several daemons' samples as one: their CPU summed, the largest one's memory; null once one is gone. */
export function sampleAll(pids: readonly number[], t: number): Sample | null {
  const all = pids.map((pid) => sample(pid, t)).filter((one): one is Sample => one !== null);
  if (all.length < pids.length) return null;
  return { t, rssMb: Math.max(...all.map((one) => one.rssMb)), cpuMs: all.reduce((sum, one) => sum + one.cpuMs, 0), mainCpuMs: all.reduce((sum, one) => sum + one.mainCpuMs, 0) };
}

/** The web's first line: its feeds' URLs (feed n at index n, the hot ones first) and when it started. */
const webInfo = z.object({ feeds: z.array(z.string()), started: z.number(), cdn: z.string(), port: z.number() });
export type WebInfo = z.infer<typeof webInfo>;

/** Starts bench/scale/web.ts (its own process, so that its CPU is not the daemon's) and waits for its first line. */
export async function startWeb(options: { feeds: number; hosts: number; hot: number; month?: number }): Promise<{ child: ChildProcess; info: WebInfo }> {
  const args = [`--feeds=${options.feeds}`, `--hosts=${options.hosts}`, `--hot=${options.hot}`, ...(options.month === undefined ? [] : [`--month=${options.month}`])];
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'web.ts'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bench web exited with ${code}`)));
  });
  return { child, info: webInfo.parse(JSON.parse(line)) };
}
