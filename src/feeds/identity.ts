import { createHash } from 'node:crypto';

/**
 * An item's identity within its feed: its guid/id when it has one, else its link, else a hash
 * of its title and date (so that an item with neither is still seen once, not on every poll).
 */
export function itemIdentity(item: { guid?: string | null; link?: string | null; title?: string | null; date?: string | null }): string {
  const guid = item.guid?.trim();
  if (guid) return guid;
  const link = item.link?.trim();
  if (link) return link;
  const digest = createHash('sha256').update(`${item.title ?? ''}\u0000${item.date ?? ''}`).digest('hex');
  return `sha256:${digest.slice(0, 32)}`;
}
