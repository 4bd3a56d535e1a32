import { z } from 'zod';
import type { Db } from './database.js';
import { checkedRow, integer, nullableText, text } from '../rows.js';
import type { LeaseHolder, LeaseRequest, LeaseResult } from '../store.js';

/**
 * An exclusive lease on the database for the daemon: two daemons on one archive would fetch
 * every page twice and interleave their versions. The holder renews the heartbeat; a lease
 * whose heartbeat is older than `staleAfterMs` belongs to a process that died, and is taken over.
 */

const leaseRow = z.object({ owner: text, pid: integer, host: text, started_at: text, heartbeat_at: text, status: nullableText });
type LeaseRow = z.infer<typeof leaseRow>;

const NAME = 'daemon';

const holderOf = (row: LeaseRow): LeaseHolder => ({
  owner: row.owner, pid: row.pid, host: row.host, startedAt: row.started_at, heartbeatAt: row.heartbeat_at, status: row.status,
});

export function leaseHolder(db: Db): LeaseHolder | null {
  const row = checkedRow(leaseRow, db.prepare('SELECT owner, pid, host, started_at, heartbeat_at, status FROM leases WHERE name = ?').get(NAME), 'leaseHolder');
  return row ? holderOf(row) : null;
}

/**
 * Takes the lease, or returns the live holder that has it. A holder is live while its heartbeat
 * is fresh and `isAlive` (which can tell for a process on this host) does not say it is gone.
 */
export function acquireLease(db: Db, { me, now, staleAfterMs, isAlive }: LeaseRequest): LeaseResult {
  return db.transaction((): LeaseResult => {
    const holder = leaseHolder(db);
    const live = holder && holder.owner !== me.owner && now.getTime() - Date.parse(holder.heartbeatAt) < staleAfterMs && isAlive(holder);
    if (holder && live) return { acquired: false, holder };
    const stamp = now.toISOString();
    db.prepare(`INSERT INTO leases (name, owner, pid, host, started_at, heartbeat_at, status) VALUES (?, ?, ?, ?, ?, ?, NULL)
      ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, host = excluded.host, started_at = excluded.started_at,
        heartbeat_at = excluded.heartbeat_at, status = NULL`).run(NAME, me.owner, me.pid, me.host, stamp, stamp);
    return { acquired: true };
  }).immediate();
}

/** Renews the heartbeat (and the status report); false if the lease was taken over meanwhile. */
export function renewLease(db: Db, owner: string, now: Date, status: unknown): boolean {
  const { changes } = db.prepare('UPDATE leases SET heartbeat_at = ?, status = ? WHERE name = ? AND owner = ?').run(now.toISOString(), JSON.stringify(status), NAME, owner);
  return changes === 1;
}

export function releaseLease(db: Db, owner: string): void {
  db.prepare('DELETE FROM leases WHERE name = ? AND owner = ?').run(NAME, owner);
}
