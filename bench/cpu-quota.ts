import { mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A CPU cap for a process in a benchmark (Linux, as root: cgroup v1's `cpu` controller). Each
 * capped process gets a group of its own under /sys/fs/cgroup/cpu with `cpu.cfs_quota_us` set to
 * `cores` of each `cpu.cfs_period_us` (CFS bandwidth control); writing its pid to `cgroup.procs`
 * moves all its threads, and the threads it starts later (the worker pool) stay in the group —
 * so N capped daemons have N times one daemon's CPU, whatever the machine's cores.
 */

const CPU_CGROUP = '/sys/fs/cgroup/cpu';
const PERIOD_US = 100_000;

/** Caps process `pid` at `cores` of a core; returns how to undo it (the group is removed once empty). */
export function capCpu(pid: number, cores: number, name: string): () => void {
  const group = join(CPU_CGROUP, name);
  try {
    mkdirSync(group, { recursive: true });
    writeFileSync(join(group, 'cpu.cfs_period_us'), String(PERIOD_US));
    writeFileSync(join(group, 'cpu.cfs_quota_us'), String(Math.round(cores * PERIOD_US)));
    writeFileSync(join(group, 'cgroup.procs'), String(pid));
  } catch (error) {
    throw new Error(`--cpu-quota needs cgroup v1's cpu controller at ${CPU_CGROUP}, writable (run as root): ${(error as Error).message}`);
  }
  return () => {
    try {
      rmdirSync(group);
    } catch {
      // Still in use (the process has not exited yet) or already gone: nothing to undo.
    }
  };
}
