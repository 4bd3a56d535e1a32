import type { SyntheticFeedFormat } from './feed-documents.js';
import { magazine, newspaper, oldBlog, type Template } from './templates.js';

export type Compression = 'gzip' | 'br' | 'deflate' | 'identity';

export interface SiteDefinition {
  slug: string;
  name: string;
  format: SyntheticFeedFormat;
  template: Template;
  /** Virtual time between two articles. */
  interval: number;
  /** Items the feed document shows. */
  window: number;
  charset: 'utf-8' | 'windows-1252';
  compression: Compression;
  trackingLinks?: boolean;
}

const MINUTE = 60_000;

/** Four sites, each with its own template, feed format, charset and compression. */
export const DEFAULT_SITES: SiteDefinition[] = [
  { slug: 'ledger', name: 'The Daily Ledger', format: 'rss2.0', template: newspaper, interval: 20 * MINUTE, window: 12, charset: 'utf-8', compression: 'gzip', trackingLinks: true },
  { slug: 'orbit', name: 'Orbit Review', format: 'atom1.0', template: magazine, interval: 45 * MINUTE, window: 10, charset: 'utf-8', compression: 'br' },
  { slug: 'fieldnotes', name: 'Field Notes', format: 'rss1.0', template: oldBlog, interval: 3 * 60 * MINUTE, window: 10, charset: 'windows-1252', compression: 'deflate' },
  { slug: 'parish', name: 'Parish Pump', format: 'jsonfeed', template: newspaper, interval: 30 * MINUTE, window: 10, charset: 'utf-8', compression: 'identity' },
];
