import { z } from 'zod';
import type { LeaseHolder } from '../archive/store.js';
import type { DaemonReport } from './daemon.js';
import { DAEMON_OPTIONS } from './options.js';

const count = z.number();

/** The report a daemon writes into its lease (daemon.ts), as read back: another version's is not trusted to have this shape. */
const daemonReport = z.object({
  at: z.string(), periodMs: count, done: z.object({ poll: count, capture: count, revisit: count, extract: count }),
  backlog: z.object({ duePolls: count, pendingCaptures: count, dueRevisits: count, queuedExtractions: count }),
  pollLagMs: count, waitedForSlots: count, inFlight: count, nextWorkAt: z.string().nullable(),
  memory: z.object({ rss: count, heap: count, external: count }), storageFullSince: z.string().nullable(),
}) satisfies z.ZodType<DaemonReport>;

/** The daemon working on this database, from its lease: who, since when, and its last report. */
export interface DaemonStatus {
  /** The daemon's id (a random one per process). */
  owner: string;
  pid: number;
  host: string;
  startedAt: string;
  heartbeatAt: string;
  /** The heartbeat is older than a live daemon's would be. */
  stale: boolean;
  report: DaemonReport | null;
}

/** What the lease's holder last said about itself (its status is the report it wrote as JSON). */
export function daemonStatus(holder: LeaseHolder | null, now = Date.now()): DaemonStatus | null {
  if (!holder) return null;
  let report: DaemonReport | null = null;
  try {
    // A report that is not JSON, or not of this shape (a daemon of another version), is no report.
    report = holder.status ? daemonReport.safeParse(JSON.parse(holder.status)).data ?? null : null;
  } catch {
    report = null;
  }
  return { owner: holder.owner, pid: holder.pid, host: holder.host, startedAt: holder.startedAt, heartbeatAt: holder.heartbeatAt, stale: now - Date.parse(holder.heartbeatAt) > DAEMON_OPTIONS.lease.staleAfterMs, report };
}
