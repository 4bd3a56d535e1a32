import type { SyntheticFeedFormat } from './feed-documents.js';
import { magazine, newspaper, oldBlog, type Template } from './templates.js';
import { EDIT_KINDS, type ScriptedEdit } from './articles.js';

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

/**
 * The synthetic web's scripted edits (the demo's, and `serve-synthetic --edits`): every few
 * seconds one article of one site is corrected, extended, retitled or loses its image, cycling
 * through the sites and the kinds of edit.
 */
export function scriptedEdits(count: number, everyMs: number): ScriptedEdit[] {
  const sites = DEFAULT_SITES.length;
  return Array.from({ length: count }, (_, i) => {
    // Round-robin over the sites, then over the four newest articles of each; every later round
    // gives an article the next kind of edit.
    const turn = Math.floor(i / sites);
    const round = Math.floor(turn / 4);
    return {
      site: DEFAULT_SITES[i % sites]!.slug,
      index: 7 - (turn % 4),
      after: (i + 1) * everyMs,
      kind: EDIT_KINDS[((i % sites) + (turn % 4) + round) % EDIT_KINDS.length]!,
    };
  });
}
