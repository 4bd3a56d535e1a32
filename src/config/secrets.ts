import type { NotificationSummary } from '../archive/store.js';

/**
 * Configuration secrets never leave the server. A webhook's URL often is one (a token in its path
 * or query, a user and password before its host), so wherever a webhook is named — the status
 * API, the dashboard, `forest status`, the log, a delivery's recorded error — it is named by its
 * scheme and host alone, and any part of its URL is cut out of error text.
 */

/** `https://hooks.example.org` for `https://user:pw@hooks.example.org/t/SECRET?k=SECRET`. */
export function webhookLabel(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return '(a webhook)';
  }
}

/** The parts of a URL that may be secret, longest first (the whole URL before any of its parts). */
function secretParts(url: string): string[] {
  const parts = [url];
  try {
    const parsed = new URL(url);
    parts.push(parsed.href, parsed.username, parsed.password, decodeURIComponent(parsed.username), decodeURIComponent(parsed.password), parsed.search, parsed.hash);
    if (parsed.pathname !== '/') parts.push(parsed.pathname);
  } catch {
    // Not a URL: only the text as written is cut.
  }
  return [...new Set(parts.filter((part) => part.length >= 2))].sort((a, b) => b.length - a.length);
}

/** `text` with every secret part of `url` replaced: the whole URL by its label, a part by `…`. */
export function redactUrl(text: string, url: string): string {
  const label = webhookLabel(url);
  let out = text;
  for (const part of secretParts(url)) out = out.split(part).join(part === url || part.startsWith('http') ? label : '…');
  return out;
}

/** A webhook's delivery summary as it may be shown: its label, and its last error redacted. */
export const shownNotification = (summary: NotificationSummary): NotificationSummary => ({
  ...summary, webhook: webhookLabel(summary.webhook), lastError: summary.lastError === null ? null : redactUrl(summary.lastError, summary.webhook),
});

/**
 * A URL's user and password as an `Authorization: Basic` header (RFC 7617) and the URL without
 * them: fetch refuses a URL with credentials, and would name it whole in its error.
 */
export function withoutCredentials(url: string): { url: string; headers: Record<string, string> } {
  const parsed = new URL(url);
  if (parsed.username === '' && parsed.password === '') return { url, headers: {} };
  const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.href, headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` } };
}
