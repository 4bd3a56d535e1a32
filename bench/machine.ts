import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/**
 * The whole machine's CPU ticks (/proc/stat), busy and in all: how many of its cores a run kept
 * busy — the daemons, a PostgreSQL server and the bench web together, where the daemon's own
 * CPU leaves the server's out.
 */
export function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  // idle and iowait
  return { busy: total - fields[3]! - fields[4]!, total };
}

/** The cores kept busy between two readings. */
export function busyCores(before: { busy: number; total: number }, after: { busy: number; total: number }): number {
  return ((after.busy - before.busy) / Math.max(1, after.total - before.total)) * availableParallelism();
}
