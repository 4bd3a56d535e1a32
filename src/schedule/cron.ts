import cron from 'node-cron';

/** Why a cron expression is invalid, in node-cron's words, or null when it is valid. */
export function cronProblem(expression: string): string | null {
  const result = cron.validateDetailed(expression);
  if (result.valid) return null;
  return result.errors.map((error) => error.message).join('; ') || 'invalid cron expression';
}

/**
 * The first instant strictly after `after` that matches `expression` (node-cron syntax, five or
 * six fields, local time like node-cron itself). node-cron parses; we search forward, skipping
 * whole days, hours and minutes that cannot match, so that the answer is a pure function of the
 * given instant (the scheduler and its simulation run on clocks that are not the wall clock).
 */
export function nextCronTime(expression: string, after: Date): Date {
  const fields = cron.parse(expression);
  const seconds = new Set(fields.second);
  const minutes = new Set(fields.minute);
  const hours = new Set(fields.hour);
  const days = new Set(fields.dayOfMonth.map(Number));
  const months = new Set(fields.month);
  const weekdays = new Set(fields.dayOfWeek.map((day) => Number(day) % 7));
  const t = new Date(Math.floor(after.getTime() / 1000) * 1000 + 1000);
  const limit = after.getTime() + 5 * 366 * 86_400_000;
  while (t.getTime() <= limit) {
    if (!months.has(t.getMonth() + 1) || !days.has(t.getDate()) || !weekdays.has(t.getDay())) {
      t.setHours(24, 0, 0, 0);
      continue;
    }
    if (!hours.has(t.getHours())) {
      t.setHours(t.getHours() + 1, 0, 0, 0);
      continue;
    }
    if (!minutes.has(t.getMinutes())) {
      t.setMinutes(t.getMinutes() + 1, 0, 0);
      continue;
    }
    if (!seconds.has(t.getSeconds())) {
      t.setSeconds(t.getSeconds() + 1, 0);
      continue;
    }
    return t;
  }
  throw new Error(`cron expression ${JSON.stringify(expression)} never matches`);
}
