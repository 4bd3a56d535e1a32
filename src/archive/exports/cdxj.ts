import type { WarcIndexEntry } from '../store.js';

/**
 * CDXJ, the capture index pywb and other Wayback-style tools read beside a WARC: one line per
 * capture, `SURT timestamp {json}`, sorted, with where the capture's record lies in the WARC
 * (offset and length of its gzip member) so that a replay tool can read it without scanning.
 * (pywb's "CDXJ Format"; SURT, the Sort-friendly URI Reordering Transform, from Heritrix.)
 */

/**
 * A URL in SURT form as Wayback indexes use it: scheme dropped, host labels reversed and
 * comma-separated (a leading `www` dropped), a non-default port kept, then `)` and the path and
 * query, lower-cased, with the query's parameters sorted — so that one page's captures sort
 * together whatever the spelling of its URL.
 */
export function surt(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url.toLowerCase();
  }
  const labels = parsed.hostname.toLowerCase().split('.').filter(Boolean);
  if (labels[0] === 'www') labels.shift();
  const host = labels.reverse().join(',') + (parsed.port ? `:${parsed.port}` : '');
  const query = parsed.search ? `?${parsed.search.slice(1).split('&').sort().join('&')}` : '';
  return `${host})${parsed.pathname}${query}`.toLowerCase();
}

/** A WARC date as a 14-digit Wayback timestamp. */
export const waybackStamp = (iso: string) => iso.replace(/[^0-9]/g, '').slice(0, 14);

/** The index lines of a WARC's captures, sorted as CDXJ readers expect. */
export function cdxjLines(entries: WarcIndexEntry[], filename: string): string[] {
  return entries
    .map((entry) => {
      const fields = {
        url: entry.url, mime: entry.mime?.split(';')[0]?.trim() || 'unk', status: String(entry.status),
        ...(entry.digest ? { digest: entry.digest } : {}), length: String(entry.length), offset: String(entry.offset), filename,
      };
      return `${surt(entry.url)} ${waybackStamp(entry.date)} ${JSON.stringify(fields)}`;
    })
    .sort();
}
