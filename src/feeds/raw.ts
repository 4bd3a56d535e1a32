/**
 * feedparser keeps every element it saw under its namespaced name ("rss:ttl", "atom:link",
 * "sy:updateperiod") as `{ '@': attributes, '#': text, ...children }`. These helpers read that
 * shape without trusting it.
 */

export type RawNode = { '@'?: Record<string, string>; '#'?: string; [child: string]: unknown };

const isNode = (value: unknown): value is RawNode => typeof value === 'object' && value !== null && !Array.isArray(value);

/** All nodes stored under `key` (feedparser stores one as an object, several as an array). */
export function nodes(parent: unknown, key: string): RawNode[] {
  if (!isNode(parent)) return [];
  const value = parent[key];
  if (Array.isArray(value)) return value.filter(isNode);
  return isNode(value) ? [value] : [];
}

/** The text of the first node under `key`, trimmed; null when absent or empty. */
export function text(parent: unknown, ...keys: string[]): string | null {
  for (const key of keys) {
    for (const node of nodes(parent, key)) {
      const value = typeof node['#'] === 'string' ? node['#'].trim() : '';
      if (value !== '') return value;
    }
  }
  return null;
}

export function attribute(node: RawNode, name: string): string | null {
  const value = node['@']?.[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}
