import { escapeUTF8 } from 'entities';
import { z } from 'zod';
import { normalizeFeedDate } from './dates.js';
import { itemIdentity } from './identity.js';
import { FeedParseError, type ParsedFeed } from './model.js';
import { absoluteUrl, plainText, sanitizeFeedHtml } from './sanitize.js';

/** JSON Feed 1.0 and 1.1 (https://jsonfeed.org/version/1.1), read leniently: wrong types are dropped, not fatal. */

const optionalString = z.unknown().optional().transform((value) => (typeof value === 'string' && value.trim() !== '' ? value : null));
const author = z.object({ name: optionalString }).loose();

const itemSchema = z
  .object({
    id: z.union([z.string(), z.number()]).optional().transform((id) => (id === undefined ? null : String(id))),
    url: optionalString,
    external_url: optionalString,
    title: optionalString,
    content_html: optionalString,
    content_text: optionalString,
    summary: optionalString,
    date_published: optionalString,
    date_modified: optionalString,
    author: author.optional().catch(undefined),
    authors: z.array(author).optional().catch(undefined),
    tags: z.array(z.unknown()).optional().catch(undefined),
    attachments: z.array(z.object({ url: optionalString, mime_type: optionalString, size_in_bytes: z.unknown() }).loose()).optional().catch(undefined),
  })
  .loose();

const feedSchema = z
  .object({
    version: z.string().regex(/jsonfeed\.org\/version\/1/),
    title: optionalString,
    home_page_url: optionalString,
    feed_url: optionalString,
    description: optionalString,
    language: optionalString,
    icon: optionalString,
    hubs: z.array(z.object({ type: optionalString, url: optionalString }).loose()).optional().catch(undefined),
    next_url: optionalString,
    items: z.array(z.unknown()),
  })
  .loose();

export function parseJsonFeed(json: string, url: string | null): ParsedFeed {
  let document: unknown;
  try {
    document = JSON.parse(json);
  } catch (error) {
    throw new FeedParseError(`not a feed: invalid JSON (${(error as Error).message})`);
  }
  const parsed = feedSchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new FeedParseError(`not a JSON Feed: ${issue.path.join('.') || 'document'}: ${issue.message}`);
  }
  const feed = parsed.data;
  const warnings: string[] = [];
  const base = feed.feed_url ?? url;
  const items = feed.items.flatMap((raw, index) => {
    const result = itemSchema.safeParse(raw);
    if (!result.success) {
      warnings.push(`item ${index + 1}: skipped, not an item object`);
      return [];
    }
    const item = result.data;
    const link = absoluteUrl(item.url ?? item.external_url, base);
    const itemBase = link ?? base;
    const title = plainText(item.title);
    const date = (value: string | null, field: string) => {
      const normalized = normalizeFeedDate(value);
      if (value !== null && normalized === null) warnings.push(`item ${index + 1}: unreadable ${field} ${JSON.stringify(value)}`);
      return normalized;
    };
    const published = date(item.date_published, 'date_published');
    const updated = date(item.date_modified, 'date_modified');
    const authors = item.authors ?? (item.author ? [item.author] : []);
    const content = item.content_html ?? (item.content_text !== null ? `<p>${escapeUTF8(item.content_text)}</p>` : null);
    return [{
      guid: itemIdentity({ guid: item.id, link, title, date: published ?? updated }),
      title,
      link,
      origLink: item.external_url && item.url ? absoluteUrl(item.external_url, itemBase) : null,
      published,
      updated,
      author: authors.map((a) => a.name).filter((name): name is string => name !== null).join(', ') || null,
      summary: item.summary !== null ? sanitizeFeedHtml(escapeUTF8(item.summary), itemBase) : null,
      content: sanitizeFeedHtml(content, itemBase),
      categories: (item.tags ?? []).filter((tag): tag is string => typeof tag === 'string'),
      enclosures: (item.attachments ?? [])
        .filter((attachment) => attachment.url !== null)
        .map((attachment) => ({
          url: absoluteUrl(attachment.url, itemBase)!,
          type: attachment.mime_type,
          length: typeof attachment.size_in_bytes === 'number' ? attachment.size_in_bytes : null,
        })),
    }];
  });
  return {
    format: feed.version.includes('version/1.1') ? 'jsonfeed1.1' : 'jsonfeed1.0',
    warnings,
    feed: {
      title: plainText(feed.title),
      link: absoluteUrl(feed.home_page_url, base),
      description: feed.description !== null ? sanitizeFeedHtml(escapeUTF8(feed.description), base) : null,
      language: feed.language,
      updated: null,
      ttl: null,
      skipHours: [],
      skipDays: [],
      updatePeriod: null,
      updateFrequency: null,
      image: absoluteUrl(feed.icon, base),
      hub: absoluteUrl(feed.hubs?.find((hub) => hub.url !== null)?.url ?? null, base),
      self: absoluteUrl(feed.feed_url, base),
      prevArchive: null,
      nextPage: absoluteUrl(feed.next_url, base),
      generator: null,
    },
    items,
  };
}
