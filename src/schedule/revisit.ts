/**
 * The revisit schedule of an archived article (pure). Articles are edited most soon after they
 * are published, and less and less after: the checks come at growing gaps, `revisit.after` in
 * the settings (1 h, 6 h, 1 d, 3 d, 7 d, 30 d by default), and stop when the list runs out.
 *
 * A check that got no answer (a network error, a refused address, a 5xx, a 429) says nothing of
 * the article: its step is not spent. It is retried soon — `revisit.retryDelay`, doubling with
 * each failure in a row, never sooner than the server's Retry-After (RFC 9110 §10.2.3) — for as
 * long as the back-off stays shorter than the gap its step waited; a page still failing then
 * spends the step, as a check that got its answer would. A site down for a day when a 7-day check
 * is due is looked at again that day, not 30 days later.
 */

export interface NextCheck {
  step: number;
  at: string | null;
  /** Checks in a row that got no answer; absent or 0 after any answer. */
  failures?: number;
}

/**
 * The revisit schedule: delay `after[step]` before the next check, one step further each time;
 * a check that found an edit repeats the delay it followed, so every edit extends the schedule
 * by a step. Returns null for `at` once the list has run out.
 */
export function scheduleRevisit(step: number, edited: boolean, after: readonly number[], at: number): { step: number; at: number | null } {
  const index = edited ? Math.max(0, step - 1) : step;
  if (index >= after.length) return { step: index, at: null };
  return { step: index + 1, at: at + after[index]! };
}

/** The next check after one at `at` (ISO) that got an answer, under the `revisit` settings. */
export function nextCheck(revisit: { enabled: boolean; after: readonly number[] }, step: number, edited: boolean, at: string): NextCheck {
  if (!revisit.enabled) return { step, at: null, failures: 0 };
  const next = scheduleRevisit(step, edited, revisit.after, Date.parse(at));
  return { step: next.step, at: next.at === null ? null : new Date(next.at).toISOString(), failures: 0 };
}

/**
 * The next check after one at `at` (ISO) that got no answer, the `failures` before it in a row:
 * a retry within the step, or — once the back-off has grown to the step's own gap — the next step.
 */
export function retryCheck(revisit: { enabled: boolean; after: readonly number[]; retryDelay: number }, step: number, failures: number, at: string, retryAfterMs: number | null): NextCheck {
  if (!revisit.enabled) return { step, at: null, failures: failures + 1 };
  const time = Date.parse(at);
  // The gap this check waited for: a retry is never put off longer than that.
  const gap = revisit.after[Math.min(Math.max(step - 1, 0), revisit.after.length - 1)]!;
  const backOff = revisit.retryDelay * 2 ** failures;
  if (backOff >= gap) {
    const spent = nextCheck(revisit, step, false, at);
    if (spent.at === null || retryAfterMs === null) return spent;
    return { ...spent, at: new Date(Math.max(Date.parse(spent.at), time + retryAfterMs)).toISOString() };
  }
  return { step, at: new Date(time + Math.max(backOff, retryAfterMs ?? 0)).toISOString(), failures: failures + 1 };
}
