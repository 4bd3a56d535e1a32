/** The Feed / Item model every feed format is read into (docs/architecture.md §8, `forest parse-feed`). */

/** rss0.90 is Netscape's RDF format (its own namespace); rss0.9x the UserLand 0.91/0.92 line; cdf Microsoft's Channel Definition Format. */
export type FeedFormat = 'rss2.0' | 'rss1.0' | 'rss0.9x' | 'rss0.90' | 'atom1.0' | 'atom0.3' | 'jsonfeed1.0' | 'jsonfeed1.1' | 'cdf';

export interface Enclosure {
  url: string;
  type: string | null;
  length: number | null;
}

export interface FeedInfo {
  title: string | null;
  link: string | null;
  description: string | null;
  language: string | null;
  /** ISO-8601 UTC */
  updated: string | null;
  /** RSS `ttl`, minutes. */
  ttl: number | null;
  /** RSS `skipHours`: hours 0–23 (GMT) in which the publisher asks not to be polled. */
  skipHours: number[];
  /** RSS `skipDays`: day names. */
  skipDays: string[];
  /** `sy:updatePeriod` (hourly, daily, weekly, monthly, yearly) and `sy:updateFrequency`. */
  updatePeriod: string | null;
  updateFrequency: number | null;
  image: string | null;
  /** WebSub hub (`link rel=hub`; JSON Feed's `hubs`). */
  hub: string | null;
  /** The feed's own URL (`link rel=self`; JSON Feed's `feed_url`): the topic a WebSub hub knows it by. */
  self: string | null;
  /**
   * Where the items before this document's are (RFC 5005): the previous archive document
   * (`link rel=prev-archive`) or the next page of a paged feed (`link rel=next`; JSON Feed's
   * `next_url`). Followed back after a gap (daemon/gap-recovery.ts).
   */
  prevArchive: string | null;
  nextPage: string | null;
  /** `<generator>`: which software made the feed (WordPress pages its feeds with `?paged=N`). */
  generator: string | null;
}

export interface FeedItem {
  /** The item's identity within its feed: guid/id, else link, else a hash of title + date. */
  guid: string;
  title: string | null;
  link: string | null;
  /** `feedburner:origLink`: the publisher's own URL behind a tracking redirect. */
  origLink: string | null;
  published: string | null;
  updated: string | null;
  author: string | null;
  /** Sanitized HTML. */
  summary: string | null;
  content: string | null;
  categories: string[];
  enclosures: Enclosure[];
}

export interface ParsedFeed {
  format: FeedFormat;
  warnings: string[];
  feed: FeedInfo;
  items: FeedItem[];
}

/** A document that is not a feed, or too broken to read. The message is one line. */
export class FeedParseError extends Error {
  override name = 'FeedParseError';
}
