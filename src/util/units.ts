import bytes from 'bytes';
import ms from 'ms';

/** Milliseconds from a duration setting: "90s", "5m", "1.5h", "2d", or a bare number of seconds. */
export function parseDuration(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value * 1000 : undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const parsed = ms(trimmed as ms.StringValue);
  return typeof parsed === 'number' && Number.isFinite(parsed) && parsed >= 0 ? parsed : undefined;
}

/** Bytes from a size setting: "10MB", "512KB", or a bare number of bytes. */
export function parseSize(value: string | number): number | undefined {
  const parsed = bytes.parse(value);
  return parsed !== null && Number.isFinite(parsed) && parsed >= 0 ? parsed : undefined;
}

/** "1h 5m", "42s", "350ms": a duration for people. */
export function formatDuration(millis: number): string {
  if (millis < 1000) return `${Math.round(millis)}ms`;
  const parts: string[] = [];
  let seconds = Math.round(millis / 1000);
  for (const [unit, size] of [['d', 86400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    if (seconds >= size) {
      parts.push(`${Math.floor(seconds / size)}${unit}`);
      seconds %= size;
    }
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

/** A count with its noun, for messages: `plural(1, 'block')` is "1 block", `plural(2, 'block')` "2 blocks". */
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

const LONG_DATE = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });

/** A date as a reader says it — "2 November 2026 at 10:00 UTC" — or the text as given when it is no date. */
export function dateInWords(value: string): string {
  const time = Date.parse(value);
  return Number.isNaN(time) ? value : `${LONG_DATE.format(time)} UTC`;
}
