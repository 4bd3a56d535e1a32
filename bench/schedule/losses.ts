/**
 * Where a policy lost a feed's items, for `bench:schedule --losses`: the poll intervals in which
 * more items arrived than the feed's document shows (its newest `window`), each with how many
 * scrolled out unseen. It tells a first event (a live blog's first burst, a dormant feed waking:
 * one interval, before anything predicted it) from a rule that keeps failing (many intervals),
 * which the missed count alone does not.
 */
export interface Loss {
  /** The poll before the interval and the poll that ended it (ms). */
  from: number;
  to: number;
  /** Items that arrived in (from, to]. */
  arrived: number;
  /** Of those, the ones the document at `to` no longer showed. */
  lost: number;
}

/** `arrivals` and `polls` in ascending order (ms). */
export function lossesOf(arrivals: readonly number[], polls: readonly number[], window: number): Loss[] {
  const out: Loss[] = [];
  let next = 0; // the first arrival after the previous poll
  for (let p = 1; p < polls.length; p++) {
    while (next < arrivals.length && arrivals[next]! <= polls[p - 1]!) next++;
    let end = next;
    while (end < arrivals.length && arrivals[end]! <= polls[p]!) end++;
    const arrived = end - next;
    if (arrived > window) out.push({ from: polls[p - 1]!, to: polls[p]!, arrived, lost: arrived - window });
    next = end;
  }
  return out;
}
