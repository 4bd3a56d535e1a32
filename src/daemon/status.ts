import type { LeaseHolder } from '../archive/store.js';
import type { DaemonReport } from './daemon.js';
import { LEASE_STALE_MS } from './service.js';

/** The daemon working on this database, from its lease: who, since when, and its last report. */
export interface DaemonStatus {
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
    report = holder.status ? (JSON.parse(holder.status) as DaemonReport) : null;
  } catch {
    report = null;
  }
  return { pid: holder.pid, host: holder.host, startedAt: holder.startedAt, heartbeatAt: holder.heartbeatAt, stale: now - Date.parse(holder.heartbeatAt) > LEASE_STALE_MS, report };
}
