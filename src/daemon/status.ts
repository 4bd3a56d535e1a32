import { hostname } from 'node:os';
import { z } from 'zod';
import type { LeaseHolder } from '../archive/store.js';
import type { DaemonReport } from './daemon.js';
import { DAEMON_OPTIONS } from './options.js';
import { effortReportSchema } from './effort.js';

const count = z.number();

/** The report a daemon writes into its lease (daemon.ts), as read back: another version's is not trusted to have this shape. */
const daemonReport = z.object({
  at: z.string(), periodMs: count, done: z.object({ poll: count, capture: count, revisit: count, extract: count }),
  // Older daemons did not count captures waiting for their requisites.
  backlog: z.object({ duePolls: count, pendingCaptures: count, dueRevisits: count, queuedExtractions: count, queuedRequisites: count.default(0) }),
  pollLagMs: count, waitedForSlots: count, inFlight: count, nextWorkAt: z.string().nullable(),
  // Older daemons did not count their passes nor say their slots.
  passes: count.default(0), passesAtCapacity: count.default(0), passesHeld: count.default(0), slots: count.nullable().default(null),
  memory: z.object({ rss: count, heap: count, external: count }), storageFullSince: z.string().nullable(),
  // Older daemons did not say.
  settingsFile: z.string().nullable().default(null),
  effort: effortReportSchema.optional(),
}) satisfies z.ZodType<DaemonReport>;

/**
 * What is known of a daemon from its lease: `running` (a recent heartbeat), `not-responding`
 * (beats missed, but still within its lease), `presumed-dead` (no heartbeat for longer than a lease
 * lasts: the next daemon takes over), `exited` (a daemon of this host whose process is gone —
 * known at once, by its pid).
 */
export type DaemonState = 'running' | 'not-responding' | 'presumed-dead' | 'exited';

/** The daemon working on this database, from its lease: who, since when, and its last report. */
export interface DaemonStatus {
  /** The daemon's id (a random one per process). */
  owner: string;
  pid: number;
  host: string;
  startedAt: string;
  heartbeatAt: string;
  /** How long ago its last heartbeat was (ms). */
  heartbeatAgeMs: number;
  state: DaemonState;
  /** It is not working: presumed dead or exited. */
  stale: boolean;
  report: DaemonReport | null;
}

/** Each state in a few words, for a table cell. */
export const daemonStateWords: Record<DaemonState, string> = {
  'running': 'running', 'not-responding': 'not responding', 'presumed-dead': 'presumed dead', 'exited': 'exited',
};

/** Whether a process of this host is running (a daemon killed with -9 leaves its lease behind). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The state of a lease's daemon: its pid when it is of this host, otherwise the age of its heartbeat. */
export function daemonState(holder: Pick<LeaseHolder, 'host' | 'pid' | 'heartbeatAt'>, now: number, alive: (pid: number) => boolean = processAlive): DaemonState {
  if (holder.host === hostname() && !alive(holder.pid)) return 'exited';
  const age = now - Date.parse(holder.heartbeatAt);
  if (age > DAEMON_OPTIONS.lease.staleAfterMs) return 'presumed-dead';
  // Two beats missed: one late beat is a busy moment, two are worth saying.
  return age > 2 * DAEMON_OPTIONS.lease.heartbeatMs ? 'not-responding' : 'running';
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
  const state = daemonState(holder, now);
  return {
    owner: holder.owner, pid: holder.pid, host: holder.host, startedAt: holder.startedAt, heartbeatAt: holder.heartbeatAt,
    heartbeatAgeMs: Math.max(0, now - Date.parse(holder.heartbeatAt)), state, stale: state === 'presumed-dead' || state === 'exited', report,
  };
}
