/**
 * How long the server says its response stays fresh: Cache-Control max-age (or s-maxage), else
 * Expires − Date. Milliseconds, or null when it says nothing usable.
 */
export function freshnessMs(headers: Record<string, string>, now: number = Date.now()): number | null {
  const cacheControl = headers['cache-control'] ?? '';
  if (/\b(no-cache|no-store)\b/i.test(cacheControl)) return null;
  const maxAge = /\b(?:s-)?max-age\s*=\s*"?(\d+)/i.exec(cacheControl);
  if (maxAge) return Number(maxAge[1]) * 1000;
  const expires = Date.parse(headers['expires'] ?? '');
  if (Number.isNaN(expires)) return null;
  const date = Date.parse(headers['date'] ?? '');
  const from = Number.isNaN(date) ? now : date;
  return expires > from ? expires - from : null;
}
