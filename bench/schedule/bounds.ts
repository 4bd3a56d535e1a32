import type { SimPolicy, Trace } from '../../src/schedule/simulate.js';

/**
 * How few polls a delay quantile can cost: a lower bound for `bench:schedule --bounds`, to tell
 * a policy that spends its polls badly from a target that no policy of a kind can meet.
 *
 * The kind: a policy that polls each cell — a feed, or a feed in one hour of the day — at a
 * steady interval Δ, knowing every cell's true rate. Items arrive at random within a cell, so
 * their capture delays are uniform on [0, Δ] and a share (1 − T/Δ)⁺ of them is later than T.
 * Polls cost x = 1/Δ per unit of time. Bringing the `quantile` of all items' delays to T means
 * at most (1 − quantile) of the items may be late; the cost of the lateness removed is linear
 * in x, and cheapest in the cells whose items are densest (n/duration). So the optimum is
 * bang-bang: the densest cells polled every T, the rest not at all but for the last one
 * (the budget of late items left), polled in between — the same argument as the fractional
 * knapsack. Polls a real policy cannot avoid (one per maximum interval, retries, the overflow
 * risk's) are left out, so the figure is a floor.
 *
 * A reactive policy (one that polls sooner after finding an item, on feeds whose items come in
 * bursts) is not of this kind and may do better on such feeds; on Poisson feeds it cannot.
 */

export type BoundCells = 'feed' | 'hour';

interface Cell {
  items: number;
  /** ms of the trace the cell covers. */
  duration: number;
}

function cellsOf(trace: Trace, by: BoundCells): Cell[] {
  const start = Date.parse(trace.start);
  const end = Date.parse(trace.end);
  const span = end - start;
  const cells: Cell[] = [];
  for (const feed of trace.feeds) {
    const times = feed.items.map((item) => Date.parse(item.at)).filter((at) => at >= start && at <= end);
    if (by === 'feed') {
      cells.push({ items: times.length, duration: span });
      continue;
    }
    const perHour = new Array<number>(24).fill(0);
    for (const at of times) perHour[new Date(at).getUTCHours()]! += 1;
    // Each hour of the day covers a 24th of the trace (to the hour: traces span whole days).
    for (const items of perHour) cells.push({ items, duration: span / 24 });
  }
  return cells;
}

/** The fewest polls that bring the `quantile` of the trace's item delays to `delayMs` (module comment). */
export function fewestPolls(trace: Trace, delayMs: number, by: BoundCells, quantile = 0.95): number {
  const cells = cellsOf(trace, by).filter((cell) => cell.items > 0).sort((a, b) => b.items / b.duration - a.items / a.duration);
  const total = cells.reduce((sum, cell) => sum + cell.items, 0);
  // Items left late so far: every item, until the densest cells are polled.
  let late = total;
  const allowed = (1 - quantile) * total;
  let polls = 0;
  for (const cell of cells) {
    if (late <= allowed) break;
    // Polled every T, the cell has no late item; polled at x < 1/T, n·(1 − T·x) of them.
    const needed = Math.min(cell.items, late - allowed);
    polls += (needed / cell.items) * (cell.duration / delayMs);
    late -= needed;
  }
  return polls;
}

/**
 * The tightest delay quantile `budget` polls can buy: the T at which fewestPolls meets the
 * budget. Which cells are polled does not depend on T (they are chosen by density alone), so the
 * bound is exactly inversely proportional to T, and T = fewestPolls(T₀)·T₀ / budget. A policy
 * steered by a fixed delay target (a setting, the same for every subscription list) can meet a
 * p95 cap C within a poll budget only with T in [tightestDelay, C]; across traces, only within
 * the intersection of those ranges (bench:schedule --bounds prints it).
 */
export function tightestDelay(trace: Trace, budget: number, by: BoundCells, quantile = 0.95): number {
  const reference = 3_600_000;
  return budget > 0 ? (fewestPolls(trace, reference, by, quantile) * reference) / budget : Infinity;
}

/**
 * Forest's policy with a fleet-wide delay bound, as an oracle: the feeds that together carry
 * `share` of the trace's items — chosen from their true counts, which no policy knows — never go
 * longer than `delayMs` between polls; every other decision is the policy's own. It answers
 * whether a rule that sees the whole subscription list (a rate threshold over all feeds) could
 * meet the p95 target within the poll targets, before anyone builds one: with perfect knowledge
 * of which feeds matter, what do their polls at the bound cost on top of what the policy needs?
 */
export function fleetBoundPolicy<S>(policy: SimPolicy<S>, trace: Trace, delayMs: number, share = 0.95): SimPolicy<S> {
  const bySize = [...trace.feeds].sort((a, b) => b.items.length - a.items.length);
  const total = bySize.reduce((sum, feed) => sum + feed.items.length, 0);
  const bounded = new Set<string>();
  let covered = 0;
  for (const feed of bySize) {
    if (covered >= share * total) break;
    bounded.add(feed.id);
    covered += feed.items.length;
  }
  return {
    name: `${policy.name}, fleet-wide bound (oracle)`,
    walksGaps: policy.walksGaps,
    start: (feed) => policy.start(feed),
    afterPoll: (state, at, shown, feed) => {
      const decision = policy.afterPoll(state, at, shown, feed);
      return bounded.has(feed.id) ? { ...decision, next: Math.min(decision.next, at + delayMs) } : decision;
    },
  };
}
