import { z } from 'zod';
import { checkedRow, checkedRows, integer, nullableText, text } from '../rows.js';
import type { ClaimRef, LeaseHolder, LeaseRequest } from '../store.js';
import type { PgDatabase, Sql } from './database.js';

/**
 * Several daemons on one PostgreSQL archive (migrations/postgres/0002): each registers in
 * `daemons` and beats its heartbeat there; each unit of work is claimed in `claims` (owner,
 * expiry, fencing token), and each request takes its host in `hosts` first. Rows are taken
 * with SKIP LOCKED: a daemon never waits on another one's claiming, it passes to other work.
 */

const daemonRow = z.object({ owner: text, pid: integer, host: text, started_at: text, heartbeat_at: text, status: nullableText });
const holderOf = (row: z.infer<typeof daemonRow>): LeaseHolder => ({
  owner: row.owner, pid: row.pid, host: row.host, startedAt: row.started_at, heartbeatAt: row.heartbeat_at, status: row.status,
});

export async function daemonsOf(sql: Sql): Promise<LeaseHolder[]> {
  return checkedRows(daemonRow, await sql.all('SELECT owner, pid, host, started_at, heartbeat_at, status FROM daemons ORDER BY started_at, owner'), 'daemons').map(holderOf);
}

/** The daemon heard from last (what `leaseHolder` means with several). */
export async function latestDaemon(sql: Sql): Promise<LeaseHolder | null> {
  const row = checkedRow(daemonRow, await sql.get('SELECT owner, pid, host, started_at, heartbeat_at, status FROM daemons ORDER BY heartbeat_at DESC LIMIT 1'), 'latestDaemon');
  return row ? holderOf(row) : null;
}

/** Registers a daemon; daemons whose heartbeat stopped (their claims expire by themselves) leave the list. */
export async function registerDaemon(sql: Sql, { me, now, staleAfterMs }: LeaseRequest): Promise<void> {
  const stamp = now.toISOString();
  await sql.run('DELETE FROM daemons WHERE heartbeat_at < ? AND owner <> ?', [new Date(now.getTime() - staleAfterMs).toISOString(), me.owner]);
  await sql.run(`INSERT INTO daemons (owner, pid, host, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (owner) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`, [me.owner, me.pid, me.host, stamp, stamp]);
}

/** The heartbeat: the daemon's report, and its claims and hosts extended by `ttlMs`. */
export async function heartbeat(sql: Sql, owner: string, now: Date, status: unknown, ttlMs: number): Promise<boolean> {
  const until = new Date(now.getTime() + ttlMs).toISOString();
  const known = await sql.run('UPDATE daemons SET heartbeat_at = ?, status = ? WHERE owner = ?', [now.toISOString(), JSON.stringify(status), owner]);
  await sql.run('UPDATE claims SET expires_at = ? WHERE owner = ?', [until, owner]);
  await sql.run('UPDATE hosts SET expires_at = ? WHERE owner = ?', [until, owner]);
  return known === 1;
}

export async function leave(sql: Sql, owner: string): Promise<void> {
  await sql.run('DELETE FROM claims WHERE owner = ?', [owner]);
  await sql.run('UPDATE hosts SET owner = NULL, expires_at = NULL WHERE owner = ?', [owner]);
  await sql.run('DELETE FROM daemons WHERE owner = ?', [owner]);
}

/** Whether the unit is still to be done: another daemon may have done it since it was read as due. */
const STILL_DUE: Record<ClaimRef['kind'], string | null> = {
  poll: 'SELECT 1 FROM feeds WHERE id = @id AND enabled = 1 AND subscribed = 1 AND (next_poll_at IS NULL OR next_poll_at <= @now)',
  capture: "SELECT 1 FROM items WHERE id = @id AND page_state = 'pending' AND page_due_at <= @now",
  revisit: 'SELECT 1 FROM articles WHERE id = @id AND next_check_at IS NOT NULL AND next_check_at <= @now',
  extract: 'SELECT 1 FROM extraction_queue WHERE snapshot_id = @id',
  learn: null,
};

const claimRow = z.object({ owner: text, token: integer, expires_at: text });
const hostRow = z.object({ owner: nullableText, expires_at: nullableText, next_at: text });

class NotClaimed extends Error {}

/**
 * Claims a unit for `owner`, with its host: its fencing token, or null when it is not to be had
 * (another daemon's live claim, or one being taken right now; no longer due; its host busy
 * elsewhere or within its delay). An expired claim is taken over, its token raised.
 */
export async function claimUnit(db: PgDatabase, owner: string, ref: ClaimRef, now: Date, ttlMs: number): Promise<number | null> {
  const stamp = now.toISOString();
  const until = new Date(now.getTime() + ttlMs).toISOString();
  try {
    return await db.transaction(async (sql) => {
      let token = checkedRow(integer, (await sql.column(`INSERT INTO claims (kind, id, owner, token, expires_at) VALUES (?, ?, ?, 1, ?)
        ON CONFLICT (kind, id) DO NOTHING RETURNING token`, [ref.kind, ref.id, owner, until]))[0], 'claim');
      if (token === undefined) {
        const held = checkedRow(claimRow, await sql.get('SELECT owner, token, expires_at FROM claims WHERE kind = ? AND id = ? FOR UPDATE SKIP LOCKED', [ref.kind, ref.id]), 'claim');
        if (!held || (held.owner !== owner && held.expires_at >= stamp)) throw new NotClaimed();
        token = held.owner === owner ? held.token : held.token + 1;
        await sql.run('UPDATE claims SET owner = ?, token = ?, expires_at = ? WHERE kind = ? AND id = ?', [owner, token, until, ref.kind, ref.id]);
      }
      // Checked once the claim is held, not before: a daemon that did the unit commits its work
      // before it lets the claim go, so a claim taken after that sees the work done.
      const due = STILL_DUE[ref.kind];
      if (due !== null && (await sql.get(due, { id: ref.id, now: stamp })) === undefined) throw new NotClaimed();
      return token;
    });
  } catch (error) {
    if (error instanceof NotClaimed) return null;
    throw error;
  }
}

/** The unit ended: its claim goes. */
export async function releaseUnit(sql: Sql, owner: string, ref: ClaimRef): Promise<void> {
  await sql.run('DELETE FROM claims WHERE kind = ? AND id = ? AND owner = ?', [ref.kind, ref.id, owner]);
}

/**
 * Takes a host for one request of `owner`: 0 when taken, else the ms to wait — until its delay
 * after the last request ends, or a short while when another daemon's request is in flight (or
 * another daemon is taking it right now: the row is skipped, not waited on).
 */
export async function takeHost(db: PgDatabase, owner: string, host: string, now: Date, ttlMs: number, delayMs: number): Promise<number> {
  const stamp = now.toISOString();
  return db.transaction(async (sql) => {
    await sql.run("INSERT INTO hosts (host, next_at) VALUES (?, '') ON CONFLICT (host) DO NOTHING", [host]);
    const row = checkedRow(hostRow, await sql.get('SELECT owner, expires_at, next_at FROM hosts WHERE host = ? FOR UPDATE SKIP LOCKED', [host]), 'takeHost');
    const retry = Math.max(20, Math.min(delayMs, 250));
    if (!row || (row.owner !== null && row.owner !== owner && (row.expires_at ?? '') >= stamp)) return retry;
    if (row.next_at > stamp) return Math.max(1, Date.parse(row.next_at) - now.getTime());
    await sql.run('UPDATE hosts SET owner = ?, expires_at = ? WHERE host = ?', [owner, new Date(now.getTime() + ttlMs).toISOString(), host]);
    return 0;
  });
}

/** The request ended: the host rests `delayMs` from now. */
export async function giveHost(sql: Sql, owner: string, host: string, now: Date, delayMs: number): Promise<void> {
  await sql.run('UPDATE hosts SET owner = NULL, expires_at = NULL, next_at = ? WHERE host = ? AND owner = ?', [new Date(now.getTime() + delayMs).toISOString(), host, owner]);
}

/** Inside a write of claimed work: the claim is still this daemon's, with the token it was given. */
export async function holdsClaim(sql: Sql, owner: string, kind: ClaimRef['kind'], id: number, token: number): Promise<boolean> {
  const held = checkedRow(claimRow, await sql.get('SELECT owner, token, expires_at FROM claims WHERE kind = ? AND id = ? FOR UPDATE', [kind, id]), 'fence');
  return held !== undefined && held.owner === owner && held.token === token;
}
