import { DAEMON_OPTIONS } from './options.js';

/** What the capacity rule reads of a daemon's report (daemon.ts DaemonReport). */
export interface CapacityCounts {
  periodMs: number;
  passes: number;
  passesAtCapacity: number;
  /** http.concurrency; null in an older daemon's report. */
  slots: number | null;
  /** The main thread's busy time in the period (effort.ts), when the report carries it. */
  effort?: { mainBusyMs: number };
}

/**
 * Whether the daemon was at capacity in a report period: due work waited for a free request slot
 * (http.concurrency) in most of its scheduler passes. A daemon at capacity does what its slots or
 * its main thread allow and no more; at 100,000 feeds on a ten-minute interval the polls alone
 * want more requests a second than 8 slots turn over (bench:hundred-thousand,
 * docs/measurements.md), and the pages of new items get the one slot polls leave them.
 * Pure, so that the rule is tested without a clock.
 */
export function atCapacity(period: Pick<CapacityCounts, 'passes' | 'passesAtCapacity'>): boolean {
  const { minPasses, passShare } = DAEMON_OPTIONS.capacity;
  return period.passes >= minPasses && period.passesAtCapacity >= passShare * period.passes;
}

/**
 * What to do about it. While the main thread has time to spare, more slots turn more work over;
 * once it is busy nearly all the time, it is the bound, and more slots would only queue on it.
 */
export function capacityAdvice(period: CapacityCounts): string {
  const waited = `due work waited for a request slot in ${period.passesAtCapacity} of ${period.passes} scheduler passes`;
  const busy = period.effort && period.periodMs > 0 ? period.effort.mainBusyMs / period.periodMs : null;
  if (busy !== null && busy >= DAEMON_OPTIONS.capacity.mainBusyShare) {
    return `${waited}, and the main thread was busy ${Math.round(100 * busy)} % of the time, so more request slots would not help: poll less often (schedule.defaultInterval) or share the feeds between daemons on a PostgreSQL archive, each on a machine of its own`;
  }
  const now = period.slots === null ? '' : ` (now ${period.slots})`;
  return `${waited}: raise http.concurrency${now}, the requests in flight over all hosts — each host keeps its own pace (http.perHostDelay)`;
}

/** The advice when the period was at capacity, else null: what the log, `forest status` and the dashboard show. */
export const capacityNote = (period: CapacityCounts): string | null => (atCapacity(period) ? capacityAdvice(period) : null);
