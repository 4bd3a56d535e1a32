import { createHash } from 'node:crypto';
import type { WorkRef } from '../archive/store.js';
import { hostOf } from './dispatch.js';

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
 * `refs` with the units of `me`'s hosts first, each group in its own order (the queue's: due time,
 * priority). Alone (one daemon, or none known), the list is as it was.
 */
export function ownHostsFirst(refs: readonly WorkRef[], owners: readonly string[], me: string): WorkRef[] {
  if (owners.length < 2 || !owners.includes(me)) return [...refs];
  const mine: WorkRef[] = [];
  const others: WorkRef[] = [];
  const memo = new Map<string, boolean>();
  for (const ref of refs) {
    const host = hostOf(ref.url) ?? ref.url;
    let own = memo.get(host);
    if (own === undefined) {
      own = hostOwner(host, owners) === me;
      memo.set(host, own);
    }
    (own ? mine : others).push(ref);
  }
  return [...mine, ...others];
}
