import type { HostGate } from '../model.js';
import type { PgDatabase } from './database.js';
import { gateHostsAgain, giveHost, goAloneIfAlone, peersOf, takeHost, type HostRest } from './lease.js';

/** How long a request waits before asking again while another daemon alone on the archive has not yet shared its hosts (ms). */
const PEER_ALONE_WAIT_MS = 250;

/**
 * A daemon's host gate on a PostgreSQL archive (the Store's hostGate). Several daemons keep each
 * host's politeness together in `hosts` (lease.ts: takeHost, giveHost): two statements a request,
 * a page's requisites included. A daemon alone on the archive has no one to keep it with — its
 * own host queues (net/host-queue.ts) space its requests, as on SQLite — so it writes nothing per
 * request, and remembers in memory the rest its requests leave each host.
 *
 * Going alone and coming back (`review`, at each heartbeat): a daemon that finds no other live
 * daemon goes alone (its row in `daemons` says so, under a lock that a joining daemon takes too);
 * one alone that finds another has joined gates again at once, lets its requests in flight end,
 * writes the rests they left into `hosts`, and only then says it gates its hosts. A daemon that
 * joins takes no host while a live daemon is alone: at most a heartbeat and its last requests'
 * time. A daemon alone that dies stays "alone" until its heartbeat is stale, by when its hosts'
 * rests have long passed.
 */
export class PgHostGate implements HostGate {
  private alone = false;
  /** A live daemon was alone when this one last looked: its requests wait until it gates its hosts again. */
  private peerAlone: boolean;
  private peerLook: Promise<boolean> | null = null;
  /** Requests in flight through the gate, per host: taken in `hosts`, or only in this process (alone). */
  private readonly shared = new Map<string, number>();
  private readonly own = new Map<string, number>();
  /** The rests this process's requests left while it was alone, per host. */
  private readonly rests = new Map<string, { nextAt: number; lastEnd: number }>();
  private ownEnded: (() => void) | null = null;
  private reviewing: Promise<void> | null = null;

  constructor(
    private readonly db: PgDatabase,
    private readonly owner: string,
    private readonly ttlMs: number,
    private readonly delayMs: number,
    peerAlone: boolean,
    private readonly now: () => number = Date.now,
  ) {
    this.peerAlone = peerAlone;
  }

  /** Whether this daemon keeps its hosts to itself (no other live daemon on the archive at its last heartbeat). */
  get isAlone(): boolean {
    return this.alone;
  }

  async take(host: string, restMs: number): Promise<number> {
    if (this.alone) {
      count(this.own, host, +1);
      return 0;
    }
    if (this.peerAlone && (await this.lookAtPeers())) return PEER_ALONE_WAIT_MS;
    const wait = await takeHost(this.db, this.owner, host, new Date(this.now()), this.ttlMs, this.delayMs, restMs);
    if (wait === 0) count(this.shared, host, +1);
    return wait;
  }

  async give(host: string, restMs: number): Promise<void> {
    // A host may hold two requests of this daemon (a page and a requisite) taken either side of a
    // change of way: the one given back is taken to be of the present way where there is one —
    // while sharing, a request of its own still in flight keeps the change waiting for it (review).
    const [shared, own] = [this.shared.get(host) ?? 0, this.own.get(host) ?? 0];
    if (this.alone ? own === 0 && shared > 0 : shared > 0 || own === 0) {
      count(this.shared, host, -1);
      // A give goes at once, unlike a claim's release: while it waits, another daemon wanting the
      // host would find it taken and ask again and again (bench:cluster, docs/measurements.md).
      await giveHost(this.db, this.owner, host, new Date(this.now()), this.delayMs, restMs);
      return;
    }
    count(this.own, host, -1);
    const end = this.now();
    const before = this.rests.get(host);
    // As giveHost: a full request sets the page pace, a lighter one only lengthens it.
    const nextAt = restMs >= this.delayMs ? end + restMs : Math.max(before?.nextAt ?? 0, end + restMs);
    this.rests.set(host, { nextAt, lastEnd: end });
    if (this.own.size === 0) this.ownEnded?.();
  }

  /**
   * At each heartbeat: alone with no one else live, goes alone; alone with another daemon joined,
   * gates its hosts again; sharing, looks whether another daemon is still alone.
   */
  review(): Promise<void> {
    this.reviewing ??= this.reviewOnce().finally(() => (this.reviewing = null));
    return this.reviewing;
  }

  private async reviewOnce(): Promise<void> {
    const now = new Date(this.now());
    this.forgetRestsOver();
    if (!this.alone) {
      this.alone = await this.db.transaction((sql) => goAloneIfAlone(sql, this.owner, now, this.ttlMs));
      if (!this.alone) await this.lookAtPeers();
      return;
    }
    if ((await peersOf(this.db, this.owner, now, this.ttlMs)).length === 0) return;
    this.alone = false;
    await this.ownRequestsEnded();
    await this.db.transaction((sql) => gateHostsAgain(sql, this.owner, this.restsNotOver()));
    this.rests.clear();
  }

  /** Leaving the archive: the rests this daemon's last requests left stay for the daemons after it. */
  async leave(): Promise<void> {
    await this.reviewing;
    this.alone = false;
    await this.ownRequestsEnded();
    const rests = this.restsNotOver();
    this.rests.clear();
    if (rests.length > 0) await this.db.transaction((sql) => gateHostsAgain(sql, this.owner, rests));
  }

  /** Whether a live daemon is still alone (asked of the archive at most once at a time). */
  private lookAtPeers(): Promise<boolean> {
    this.peerLook ??= peersOf(this.db, this.owner, new Date(this.now()), this.ttlMs)
      .then((peers) => (this.peerAlone = peers.some((peer) => !peer.gates_hosts)))
      .finally(() => setTimeout(() => (this.peerLook = null), PEER_ALONE_WAIT_MS).unref());
    return this.peerLook;
  }

  private ownRequestsEnded(): Promise<void> {
    if (this.own.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.ownEnded = () => {
        this.ownEnded = null;
        resolve();
      };
    });
  }

  /** The rests not yet over: a host whose page pace and lighter rest have both passed needs no row. */
  private restsNotOver(): HostRest[] {
    this.forgetRestsOver();
    return [...this.rests].map(([host, rest]) => ({ host, nextAt: new Date(rest.nextAt), lastEnd: new Date(rest.lastEnd) }));
  }

  private forgetRestsOver(): void {
    const now = this.now();
    for (const [host, rest] of this.rests) if (Math.max(rest.nextAt, rest.lastEnd + this.delayMs) < now) this.rests.delete(host);
  }
}

function count(map: Map<string, number>, key: string, by: 1 | -1): void {
  const next = (map.get(key) ?? 0) + by;
  if (next > 0) map.set(key, next);
  else map.delete(key);
}
