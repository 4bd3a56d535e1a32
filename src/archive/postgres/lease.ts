import { z } from 'zod';
import { checkedRow, integer, nullableText, text } from '../rows.js';
import type { LeaseHolder, LeaseRequest, LeaseResult } from '../store.js';
import type { Sql } from './database.js';

/** The daemon's lease on PostgreSQL (as lease.ts on SQLite): one daemon per archive, its heartbeat and report. */

const leaseRow = z.object({ owner: text, pid: integer, host: text, started_at: text, heartbeat_at: text, status: nullableText });
const NAME = 'daemon';

export async function leaseHolder(sql: Sql): Promise<LeaseHolder | null> {
  const row = checkedRow(leaseRow, await sql.get('SELECT owner, pid, host, started_at, heartbeat_at, status FROM leases WHERE name = ?', [NAME]), 'leaseHolder');
  return row ? { owner: row.owner, pid: row.pid, host: row.host, startedAt: row.started_at, heartbeatAt: row.heartbeat_at, status: row.status } : null;
}

/** In the caller's transaction; the row is locked, so two daemons starting at once take turns. */
export async function acquireLease(sql: Sql, { me, now, staleAfterMs, isAlive }: LeaseRequest): Promise<LeaseResult> {
  await sql.get('SELECT pg_advisory_xact_lock(4242002)');
  const holder = await leaseHolder(sql);
  const live = holder && holder.owner !== me.owner && now.getTime() - Date.parse(holder.heartbeatAt) < staleAfterMs && isAlive(holder);
  if (holder && live) return { acquired: false, holder };
  const stamp = now.toISOString();
  await sql.run(`INSERT INTO leases (name, owner, pid, host, started_at, heartbeat_at, status) VALUES (?, ?, ?, ?, ?, ?, NULL)
    ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, host = excluded.host, started_at = excluded.started_at,
      heartbeat_at = excluded.heartbeat_at, status = NULL`, [NAME, me.owner, me.pid, me.host, stamp, stamp]);
  return { acquired: true };
}

export async function renewLease(sql: Sql, owner: string, now: Date, status: unknown): Promise<boolean> {
  return (await sql.run('UPDATE leases SET heartbeat_at = ?, status = ? WHERE name = ? AND owner = ?', [now.toISOString(), JSON.stringify(status), NAME, owner])) === 1;
}

export async function releaseLease(sql: Sql, owner: string): Promise<void> {
  await sql.run('DELETE FROM leases WHERE name = ? AND owner = ?', [NAME, owner]);
}
