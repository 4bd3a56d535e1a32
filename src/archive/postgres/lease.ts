import { DUE } from '../due.js';
import { z } from 'zod';
import { checkedRow, checkedRows, integer, nullableText, text } from '../rows.js';
import type { ClaimRef, LeaseHolder, LeaseRequest } from '../store.js';
import type { PgDatabase, Sql } from './database.js';

/**
 * Several daemons on one PostgreSQL archive (migrations/postgres/0002): each registers in
 * `daemons` and beats its heartbeat there; each unit of work is claimed in `claims` (owner,
 * expiry, fencing token), and each request takes its host in `hosts` first. A claim or a host
 * is one upsert that leaves another daemon's live row as it is: a daemon never waits for another
 * one's unit or request to end, it passes to other work (at most it waits for a statement that
 * holds the row at that moment).
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

/**
 * Registers a daemon (inside a transaction: under the daemons' lock, see lockDaemons); daemons
 * whose heartbeat stopped (their claims expire by themselves) leave the list. True when a live
 * daemon is alone on the archive as far as it knew (it gates no host): this one's requests wait
 * until it gates them again.
 */
export async function registerDaemon(sql: Sql, { me, now, staleAfterMs }: LeaseRequest): Promise<boolean> {
  const stamp = now.toISOString();
  await lockDaemons(sql);
  await sql.run('DELETE FROM daemons WHERE heartbeat_at < ? AND owner <> ?', [new Date(now.getTime() - staleAfterMs).toISOString(), me.owner]);
  await sql.run(`INSERT INTO daemons (owner, pid, host, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (owner) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, gates_hosts = true`, [me.owner, me.pid, me.host, stamp, stamp]);
  return (await peersOf(sql, me.owner, now, staleAfterMs)).some((peer) => !peer.gates_hosts);
}

/**
 * Joining the archive and going alone on it take this transaction-scoped lock: without it, a
 * daemon could go alone on a read that missed a joining one's row, while the joining one read
 * the other's row from before it went alone — and both would skip the gate.
 */
async function lockDaemons(sql: Sql): Promise<void> {
  await sql.get("SELECT pg_advisory_xact_lock(hashtext('forest daemons'))");
}

const peerRow = z.object({ owner: text, gates_hosts: z.boolean() });

/** The other daemons whose heartbeat is younger than `staleAfterMs`, and whether each gates its hosts. */
export async function peersOf(sql: Sql, owner: string, now: Date, staleAfterMs: number): Promise<Array<z.infer<typeof peerRow>>> {
  return checkedRows(peerRow, await sql.all('SELECT owner, gates_hosts FROM daemons WHERE owner <> ? AND heartbeat_at >= ?', [
    owner, new Date(now.getTime() - staleAfterMs).toISOString(),
  ]), 'peersOf');
}

/**
 * Under the daemons' lock: `owner` stops gating its hosts when no other live daemon is on the
 * archive (true), else keeps gating them (false). Either way its row says which.
 */
export async function goAloneIfAlone(sql: Sql, owner: string, now: Date, staleAfterMs: number): Promise<boolean> {
  await lockDaemons(sql);
  const alone = (await peersOf(sql, owner, now, staleAfterMs)).length === 0;
  // A daemon whose row is gone (taken for dead) is not alone: it gates, as a joining one would.
  return (await sql.run('UPDATE daemons SET gates_hosts = ? WHERE owner = ?', [!alone, owner])) === 1 && alone;
}

/** A host's rest that a daemon alone kept in its own queues: no request before `nextAt`, a lighter one `lastEnd` + its rest. */
export interface HostRest {
  host: string;
  nextAt: Date;
  lastEnd: Date;
}

/**
 * A daemon that was alone gates its hosts again: the rests its last requests left go into
 * `hosts` (never shortening one written there), and its row says it gates them — which is what
 * a daemon that joined waits for.
 */
export async function gateHostsAgain(sql: Sql, owner: string, rests: readonly HostRest[]): Promise<void> {
  if (rests.length > 0) {
    await sql.run(`INSERT INTO hosts AS gate (host, next_at, last_end)
      SELECT * FROM unnest(@hosts::text[], @nexts::text[], @ends::text[])
      ON CONFLICT (host) DO UPDATE SET next_at = GREATEST(gate.next_at, excluded.next_at), last_end = GREATEST(gate.last_end, excluded.last_end)`, {
      hosts: rests.map((rest) => rest.host), nexts: rests.map((rest) => rest.nextAt.toISOString()), ends: rests.map((rest) => rest.lastEnd.toISOString()),
    });
  }
  await sql.run('UPDATE daemons SET gates_hosts = true WHERE owner = ?', [owner]);
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

/** Of the units `ids`, those still to be done: another daemon may have done them since they were read as due. */
const STILL_DUE: Record<ClaimRef['kind'], string | null> = {
  poll: `SELECT id FROM feeds WHERE id = ANY(@ids::bigint[]) AND ${DUE.polled} AND (next_poll_at IS NULL OR next_poll_at <= @now)`,
  capture: `SELECT id FROM items WHERE id = ANY(@ids::bigint[]) AND ${DUE.pendingPage} AND page_due_at <= @now`,
  revisit: `SELECT id FROM articles WHERE id = ANY(@ids::bigint[]) AND ${DUE.revisited} AND next_check_at <= @now`,
  extract: 'SELECT snapshot_id FROM extraction_queue WHERE snapshot_id = ANY(@ids::bigint[])',
  requisites: 'SELECT snapshot_id FROM requisite_queue WHERE snapshot_id = ANY(@ids::bigint[])',
  learn: null,
};

const claimRow = z.object({ owner: text, token: integer, expires_at: text });
const hostRow = z.object({ owner: nullableText, expires_at: nullableText, next_at: text, last_end: text });
const grantedRow = z.object({ kind: text, id: integer, token: integer });
/** A unit's key among a daemon's claims (its tokens, its releases waiting for their batch). */
export const unitKey = (kind: string, id: number) => `${kind}:${id}`;

/**
 * Claims units for `owner`: each one's fencing token, or null when it is not to be had
 * (another daemon's live claim; no longer due). An expired claim is taken over, its token raised;
 * the daemon's own claim is renewed as it is.
 *
 * However many units, one upsert and a due check for each kind among them, each its own
 * transaction — the daemon claims every unit it does, so each round trip counts, and a pass claims
 * what it starts together. The upsert leaves a row another daemon holds live as it is (nothing
 * comes back for it), and takes its rows in (kind, id) order, so that two daemons claiming
 * overlapping units wait for each other rather than deadlock. It does not try the rows it already
 * sees held live by another daemon: trying one waits for its lock, which the holder keeps for as
 * long as it records the unit's work, and a scheduler pass would wait with it. Whether a unit is
 * still due is read after its claim committed, not before: a daemon that did the unit commits its
 * work before it lets the claim go, so a claim taken after that sees the work done — and units no
 * longer due are given back.
 */
export async function claimUnits(db: PgDatabase, owner: string, refs: readonly ClaimRef[], now: Date, ttlMs: number): Promise<Array<number | null>> {
  if (refs.length === 0) return [];
  const stamp = now.toISOString();
  const unique = [...new Map(refs.map((ref) => [unitKey(ref.kind, ref.id), ref])).values()];
  const rows = checkedRows(grantedRow, await db.all(`INSERT INTO claims AS held (kind, id, owner, token, expires_at)
    SELECT unit.kind, unit.id, @owner, 1, @until FROM unnest(@kinds::text[], @ids::bigint[]) AS unit (kind, id)
    WHERE NOT EXISTS (SELECT 1 FROM claims AS live WHERE live.kind = unit.kind AND live.id = unit.id AND live.owner <> @owner AND live.expires_at >= @now)
    ORDER BY unit.kind, unit.id
    ON CONFLICT (kind, id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at,
      token = CASE WHEN held.owner = excluded.owner THEN held.token ELSE held.token + 1 END
    WHERE held.owner = excluded.owner OR held.expires_at < @now
    RETURNING kind, id, token`, {
    kinds: unique.map((ref) => ref.kind), ids: unique.map((ref) => ref.id), owner, until: new Date(now.getTime() + ttlMs).toISOString(), now: stamp,
  }), 'claimUnits');
  const tokens = new Map(rows.map((row) => [unitKey(row.kind, row.id), row.token]));
  const notDue: ClaimRef[] = [];
  for (const kind of new Set(unique.map((ref) => ref.kind))) {
    const due = STILL_DUE[kind];
    const claimed = unique.filter((ref) => ref.kind === kind && tokens.has(unitKey(kind, ref.id)));
    if (due === null || claimed.length === 0) continue;
    const still = new Set(checkedRows(integer, await db.column(due, { ids: claimed.map((ref) => ref.id), now: stamp }), 'claimUnits'));
    for (const ref of claimed.filter((unit) => !still.has(unit.id))) {
      tokens.delete(unitKey(kind, ref.id));
      notDue.push(ref);
    }
  }
  await releaseUnits(db, owner, notDue);
  return refs.map((ref) => tokens.get(unitKey(ref.kind, ref.id)) ?? null);
}

/** Units ended: their claims go, in one statement. */
export async function releaseUnits(sql: Sql, owner: string, refs: readonly ClaimRef[]): Promise<void> {
  if (refs.length === 0) return;
  await sql.run('DELETE FROM claims WHERE owner = ? AND (kind, id) IN (SELECT * FROM unnest(?::text[], ?::bigint[]))', [
    owner, refs.map((ref) => ref.kind), refs.map((ref) => ref.id),
  ]);
}

/**
 * Takes a host for one request of `owner` that rests the host `restMs` after it: 0 when taken,
 * else the ms to wait — until the host's rest after the last request ends, or a short while when
 * another daemon's request is in flight. As one daemon's host queue (net/host-queue.ts): a full
 * request (a page, a feed: `restMs` ≥ the page delay `delayMs`) waits `next_at`, perHostDelay
 * after the last full one; a lighter one (a page's requisite) its own rest after the last request
 * of any kind. One upsert when the host is free (the common case: the daemon's own host queue
 * spaces its requests already); a read of the row to say how long to wait when it is not.
 */
export async function takeHost(db: PgDatabase, owner: string, host: string, now: Date, ttlMs: number, delayMs: number, restMs: number): Promise<number> {
  const stamp = now.toISOString();
  const light = restMs < delayMs;
  // A lighter request may start once the last request ended `restMs` ago.
  const endedBy = new Date(now.getTime() - restMs).toISOString();
  const rested = light ? 'gate.last_end <= @endedBy' : 'gate.next_at <= @now';
  const taken = await db.column(`INSERT INTO hosts AS gate (host, owner, expires_at, next_at) VALUES (@host, @owner, @until, '')
    ON CONFLICT (host) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
    WHERE (gate.owner IS NULL OR gate.owner = excluded.owner OR gate.expires_at < @now) AND ${rested}
    RETURNING 1`, { host, owner, until: new Date(now.getTime() + ttlMs).toISOString(), now: stamp, endedBy });
  if (taken.length > 0) return 0;
  const row = checkedRow(hostRow, await db.get('SELECT owner, expires_at, next_at, last_end FROM hosts WHERE host = ?', [host]), 'takeHost');
  const busy = Math.max(20, Math.min(delayMs, 250));
  if (!row || (row.owner !== null && row.owner !== owner && (row.expires_at ?? '') >= stamp)) return busy;
  const from = light ? (row.last_end === '' ? 0 : Date.parse(row.last_end) + restMs) : Date.parse(row.next_at);
  return from > now.getTime() ? Math.max(1, from - now.getTime()) : busy;
}

/**
 * The request ended: a full one (`restMs` ≥ `delayMs`) makes the next full one wait `restMs` from
 * now; a lighter one keeps the page pace already due and lengthens it only to its own rest.
 */
export async function giveHost(sql: Sql, owner: string, host: string, now: Date, delayMs: number, restMs: number): Promise<void> {
  const until = new Date(now.getTime() + restMs).toISOString();
  await sql.run(`UPDATE hosts SET owner = NULL, expires_at = NULL, last_end = @now, next_at = ${restMs < delayMs ? 'GREATEST(next_at, @until)' : '@until'}
    WHERE host = @host AND owner = @owner`, { now: now.toISOString(), until, host, owner });
}

/** Inside a write of claimed work: the claim is still this daemon's, with the token it was given. */
export async function holdsClaim(sql: Sql, owner: string, kind: ClaimRef['kind'], id: number, token: number): Promise<boolean> {
  const held = checkedRow(claimRow, await sql.get('SELECT owner, token, expires_at FROM claims WHERE kind = ? AND id = ? FOR UPDATE', [kind, id]), 'fence');
  return held !== undefined && held.owner === owner && held.token === token;
}
