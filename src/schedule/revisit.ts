/**
 * The revisit schedule of an archived article (pure). Articles are edited most soon after they
 * are published, and less and less after: the checks come at growing gaps, `revisit.after` in
 * the settings (1 h, 6 h, 1 d, 3 d, 7 d, 30 d by default), and stop when the list runs out.
 */

export interface NextCheck {
  step: number;
  at: string | null;
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

/** The next check after one at `at` (ISO), under the `revisit` settings. */
export function nextCheck(revisit: { enabled: boolean; after: readonly number[] }, step: number, edited: boolean, at: string): NextCheck {
  if (!revisit.enabled) return { step, at: null };
  const next = scheduleRevisit(step, edited, revisit.after, Date.parse(at));
  return { step: next.step, at: next.at === null ? null : new Date(next.at).toISOString() };
}
