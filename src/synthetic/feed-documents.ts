import type { SyntheticArticle } from './articles.js';
import { esc } from './html.js';

export type SyntheticFeedFormat = 'rss2.0' | 'atom1.0' | 'rss1.0' | 'jsonfeed';

export interface FeedContext {
  siteName: string;
  siteUrl: string;
  feedUrl: string;
  articles: SyntheticArticle[];
  /** Items link through a tracking redirect and carry feedburner:origLink to the real page. */
  trackingLinks?: boolean;
}

const articleUrl = (context: FeedContext, article: SyntheticArticle) => `${context.siteUrl}articles/${article.slug}`;
const itemLink = (context: FeedContext, article: SyntheticArticle) =>
  context.trackingLinks ? `${context.siteUrl}r/${article.slug}` : articleUrl(context, article);
const iso = (time: number) => new Date(time).toISOString();

export const FEED_PATHS: Record<SyntheticFeedFormat, { path: string; type: string }> = {
  'rss2.0': { path: 'feed.xml', type: 'application/rss+xml; charset=utf-8' },
  'atom1.0': { path: 'atom.xml', type: 'application/atom+xml; charset=utf-8' },
  'rss1.0': { path: 'index.rdf', type: 'application/rdf+xml; charset=utf-8' },
  jsonfeed: { path: 'feed.json', type: 'application/feed+json; charset=utf-8' },
};

function rss2(context: FeedContext): string {
  const items = context.articles.map((article) => `<item>
<title>${esc(article.title)}</title>
<link>${esc(itemLink(context, article))}</link>
${context.trackingLinks ? `<feedburner:origLink>${esc(articleUrl(context, article))}</feedburner:origLink>` : ''}
<guid isPermaLink="false">${esc(context.siteUrl)}#${article.index}</guid>
<pubDate>${new Date(article.publishedAt).toUTCString()}</pubDate>
<dc:creator>${esc(article.author)}</dc:creator>
${article.tags.map((tag) => `<category>${esc(tag)}</category>`).join('')}
<description>${esc(`<p>${article.summary}</p>`)}</description>
</item>`);
  return `<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:feedburner="http://rssnamespace.org/feedburner/ext/1.0">
<channel><title>${esc(context.siteName)}</title><link>${esc(context.siteUrl)}</link><description>News from ${esc(context.siteName)}</description>
<language>en</language><ttl>15</ttl>
<atom:link rel="self" href="${esc(context.feedUrl)}"/>
${items.join('\n')}
</channel></rss>`;
}

function atom(context: FeedContext): string {
  // Relative links resolved through xml:base, as many real Atom feeds do.
  const entries = context.articles.map((article) => `<entry>
<title type="html">${esc(esc(article.title))}</title>
<link rel="alternate" type="text/html" href="articles/${esc(article.slug)}"/>
<id>tag:${new URL(context.siteUrl).host},2026:${article.index}</id>
<published>${iso(article.publishedAt)}</published>
<updated>${iso(article.updatedAt)}</updated>
<author><name>${esc(article.author)}</name></author>
<summary type="html">${esc(`<p>${article.summary}</p>`)}</summary>
</entry>`);
  const updated = context.articles[0]?.publishedAt ?? 0;
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:base="${esc(context.siteUrl)}">
<title>${esc(context.siteName)}</title><id>${esc(context.siteUrl)}</id><updated>${iso(updated)}</updated>
<link rel="alternate" href="${esc(context.siteUrl)}"/><link rel="self" href="${esc(context.feedUrl)}"/>
<link rel="hub" href="https://hub.invalid/"/>
${entries.join('\n')}
</feed>`;
}

function rdf(context: FeedContext): string {
  const urls = context.articles.map((article) => articleUrl(context, article));
  const items = context.articles.map((article, i) => `<item rdf:about="${esc(urls[i]!)}">
<title>${esc(article.title)}</title><link>${esc(urls[i]!)}</link>
<description>${esc(article.summary)}</description>
<dc:date>${iso(article.publishedAt)}</dc:date><dc:creator>${esc(article.author)}</dc:creator>
</item>`);
  return `<?xml version="1.0" encoding="utf-8"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:sy="http://purl.org/rss/1.0/modules/syndication/">
<channel rdf:about="${esc(context.feedUrl)}"><title>${esc(context.siteName)}</title><link>${esc(context.siteUrl)}</link><description>Notes</description>
<sy:updatePeriod>hourly</sy:updatePeriod><sy:updateFrequency>2</sy:updateFrequency>
<items><rdf:Seq>${urls.map((url) => `<rdf:li rdf:resource="${esc(url)}"/>`).join('')}</rdf:Seq></items></channel>
${items.join('\n')}
</rdf:RDF>`;
}

function jsonFeed(context: FeedContext): string {
  return JSON.stringify({
    version: 'https://jsonfeed.org/version/1.1',
    title: context.siteName,
    home_page_url: context.siteUrl,
    feed_url: context.feedUrl,
    items: context.articles.map((article) => ({
      id: `${context.siteUrl}#${article.index}`,
      url: articleUrl(context, article),
      title: article.title,
      summary: article.summary,
      content_html: `<p>${esc(article.summary)}</p>`,
      date_published: iso(article.publishedAt),
      ...(article.updatedAt !== article.publishedAt ? { date_modified: iso(article.updatedAt) } : {}),
      authors: [{ name: article.author }],
      tags: article.tags,
    })),
  }, null, 1);
}

export function renderFeed(format: SyntheticFeedFormat, context: FeedContext): string {
  switch (format) {
    case 'rss2.0': return rss2(context);
    case 'atom1.0': return atom(context);
    case 'rss1.0': return rdf(context);
    case 'jsonfeed': return jsonFeed(context);
  }
}
