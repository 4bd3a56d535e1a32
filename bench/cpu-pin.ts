import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

/**
 * Pinning a benchmark's processes to cores (Linux: util-linux's `taskset`), so that a daemon has a
 * core to itself and its database server the other (issue #70, item 2). `taskset -a` sets every
 * thread a process has; the threads and processes it starts later inherit the affinity (a
 * worker pool's threads, a PostgreSQL server's backends, forked per connection).
 */

/** The cores the daemon and the rest (database server, test web) are pinned to. */
export const PIN = { daemon: 0, others: 1 } as const;

/** Pins process `pid`, every thread of it, to `core`. */
export function pinToCore(pid: number, core: number): void {
  // The machine's cores, not this process's: a bench that pinned itself sees one in availableParallelism().
  if (cpus().length < 2) throw new Error(`--pin needs two cores or more; this machine has ${cpus().length}`);
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' });
  } catch (error) {
    throw new Error(`--pin: taskset (util-linux) could not pin process ${pid} to core ${core}: ${(error as Error).message}`);
  }
}

/**
 * Pins a PostgreSQL cluster's server to `core`: its postmaster (the first line of
 * data/postmaster.pid) and the processes it has already started (checkpointer, WAL writer…);
 * the backends it forks later inherit the postmaster's affinity.
 */
export function pinPostgres(dataDir: string, core: number): void {
  const file = join(dataDir, 'postmaster.pid');
  if (!existsSync(file)) throw new Error(`--pin: no postmaster.pid in ${dataDir}: the server is not running`);
  const postmaster = Number(readFileSync(file, 'utf8').split('\n')[0]);
  pinToCore(postmaster, core);
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], { encoding: 'utf8' }).split('\n').map((line) => Number(line.trim())).filter((pid) => pid > 0);
  for (const child of children) pinToCore(child, core);
}
