import type { WorkKind, WorkRef } from '../archive/store.js';

/**
 * Which due work to start now (a pure function, so that the rules are tested without a clock or
 * a network). The rules:
 * - at most one unit of work per host in flight, and none before the host's politeness delay
 *   has passed (the fetcher's host queue tells when a host is ready);
 * - priorities: polls, then first captures (the queue gives them newest item first, so a busy
 *   feed's new item goes before a backlog of old pages), then revisits, then the captures that
 *   failed before (`retry`): on a host whose feed lists faulty pages beside good ones, a failed
 *   page's retry never goes before a good page's first attempt or a revisit (issue #52), so a
 *   failure delays a good page of its host by one timeout at most — its own first attempt;
 * - polls never take the last free slot of a pass while other work is ready to start in it: a
 *   round of polls (a 10,000-feed list at start, 8 slots, ~170 polls a second) would otherwise
 *   hold every slot for a minute while the worker pool, which only captured pages feed, sits idle
 *   (bench:scale: 0.4 of 2 cores used in that minute). The share is counted over the slots free
 *   now, not over those in flight, so captures may hold more than one slot across passes; the
 *   slot goes back to polls when nothing else is ready — except a poll whose feed's items are at
 *   risk (`atRisk`: overdue past its overflow risk's time), which takes any free slot: a page
 *   waits unharmed where a busy feed's items scroll out;
 * - revisits never take more than their share of the slots, so that a wave of them cannot hold
 *   the slots a poll will want a moment later;
 * - a host that is busy or resting never blocks another host: its work is passed over, not waited
 *   for (no head-of-line blocking), and the plan says when the first resting host is ready.
 */

export interface DispatchInput {
  /** Due work of each kind, in the order each kind is taken. */
  due: Record<WorkKind, readonly WorkRef[]>;
  /** Work already in flight (`kind:id`), never started twice. */
  inFlight: ReadonlySet<string>;
  /** Free slots over all hosts. */
  room: number;
  /** Free slots for revisits (their share less those running). */
  revisitRoom: number;
  /** 0 when the host may take a request now, else when it may (Infinity while busy). */
  readyAt: (host: string) => number;
}

export interface DispatchPlan {
  start: WorkRef[];
  /** The earliest time a passed-over host becomes ready (ms), or null. */
  wakeAt: number | null;
  /** Due work passed over because every slot was taken (the daemon is behind). */
  waitingForSlots: number;
}

export const workKey = (ref: Pick<WorkRef, 'kind' | 'id'>): string => `${ref.kind}:${ref.id}`;

/** The host a URL's request goes to (the politeness key), or null for a URL that cannot be fetched. */
export function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

export function planDispatch(input: DispatchInput): DispatchPlan {
  const start: WorkRef[] = [];
  const taken = new Set<string>();
  let room = input.room;
  let wakeAt: number | null = null;
  let waitingForSlots = 0;
  // The slots each kind may take in the first sweep (see the rules above).
  const share: Record<WorkKind, number> = { poll: input.room - 1, capture: Infinity, revisit: input.revisitRoom };
  const heldPolls: WorkRef[] = [];
  const ready = (ref: WorkRef, host: string | null): boolean => {
    if (input.inFlight.has(workKey(ref))) return false;
    // An unparsable URL is started at once: the fetcher records why it fails.
    if (host === null) return true;
    if (taken.has(host)) return false;
    const readyAt = input.readyAt(host);
    if (readyAt === 0) return true;
    if (readyAt !== Infinity) wakeAt = wakeAt === null ? readyAt : Math.min(wakeAt, readyAt);
    return false;
  };
  const take = (ref: WorkRef, host: string | null) => {
    if (host !== null) taken.add(host);
    start.push(ref);
    room--;
    share[ref.kind]--;
  };
  const inOrder = [...input.due.poll, ...input.due.capture.filter((ref) => !ref.retry), ...input.due.revisit, ...input.due.capture.filter((ref) => ref.retry)];
  for (const ref of inOrder) {
    const host = hostOf(ref.url);
    if (!ready(ref, host)) continue;
    if (room > 0 && (share[ref.kind] > 0 || ref.atRisk)) take(ref, host);
    else if (ref.kind === 'poll' && room > 0) heldPolls.push(ref);
    else waitingForSlots++;
  }
  // The slot polls left is theirs again when nothing else ready took it.
  for (const ref of heldPolls) {
    const host = hostOf(ref.url);
    if (room > 0 && (host === null || !taken.has(host))) take(ref, host);
    else waitingForSlots++;
  }
  return { start, wakeAt, waitingForSlots };
}
