/** Milliseconds to wait from a Retry-After header (seconds or an HTTP date), or null. */
export function retryAfterMs(header: string | undefined, now: number = Date.now()): number | null {
  if (!header) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}
