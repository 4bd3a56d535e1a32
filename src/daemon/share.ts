import { createHash } from 'node:crypto';
import type { WorkRef } from '../archive/store.js';
import { hostOf } from './dispatch.js';
import { DAEMON_OPTIONS } from './options.js';

/**
 * Several daemons on one archive share its work by host (issue #70). Each reads the same due
 * work; taken in the same order, they all reach for the same units, and every unit one of them
 * gets is a claim the others lose and a pass they did for nothing (bench:cluster: with three
 * daemons, three claims in five were refused). So each daemon takes first the units of the hosts
 * that are its own, and only then the others' — work is never left to a daemon alone: one that
 * died, or has more than it can do, has its hosts' work taken by the rest, as before.
 *
 * A host's daemon is chosen by rendezvous hashing (Thaler and Ravishankar, "Using name-based
 * mappings to increase hit rates", IEEE/ACM ToN 1998): the daemon whose hash with the host is the
 * highest. Every daemon computes the same choice from the list of live daemons alone, and when one
 * comes or goes only its own hosts move. Grouping by host keeps a host's requests with one
 * daemon, so the shared politeness gate is rarely contended either.
 */

/** A number from `host` and `owner`, the same in every daemon. */
function weight(host: string, owner: string): bigint {
  return createHash('sha1').update(host).update('\u0000').update(owner).digest().readBigUInt64BE(0);
}

/** The daemon (of `owners`) a host's work goes to first. */
export function hostOwner(host: string, owners: readonly string[]): string {
  let best = owners[0]!;
  let bestWeight = -1n;
  for (const owner of owners) {
    const w = weight(host, owner);
    if (w > bestWeight || (w === bestWeight && owner < best)) {
      best = owner;
      bestWeight = w;
    }
  }
  return best;
}

/**
 * Which hosts are `me`'s, remembered between passes while the live daemons stay the same: a pass
 * reads as many due units as there are daemons times what it can start, and hashing each unit's
 * host with every daemon at every pass took about a millisecond per 256 units — on a daemon
 * capped at a fifth of a core, a share of its CPU a single daemon never spends.
 */
export class OwnHosts {
  private daemons = '';
  private readonly own = new Map<string, boolean>();

  isOwn(host: string, owners: readonly string[], me: string): boolean {
    const daemons = `${me}\u0000${owners.join('\u0000')}`;
    if (daemons !== this.daemons || this.own.size >= DAEMON_OPTIONS.claims.hostsRemembered) {
      this.own.clear();
      this.daemons = daemons;
    }
    let own = this.own.get(host);
    if (own === undefined) this.own.set(host, (own = hostOwner(host, owners) === me));
    return own;
  }
}

/**
 * `refs` with the units of `me`'s hosts first, each group in its own order (the queue's: due time,
 * priority). Alone (one daemon, or none known), the list is as it was. `hosts` remembers the
 * answers for the next pass.
 */
export function ownHostsFirst(refs: readonly WorkRef[], owners: readonly string[], me: string, hosts = new OwnHosts()): WorkRef[] {
  if (owners.length < 2 || !owners.includes(me)) return [...refs];
  const mine: WorkRef[] = [];
  const others: WorkRef[] = [];
  for (const ref of refs) (hosts.isOwn(hostOf(ref.url) ?? ref.url, owners, me) ? mine : others).push(ref);
  return [...mine, ...others];
}
