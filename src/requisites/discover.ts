import { parse, walk, type CssNode } from 'css-tree';
import { Parser } from 'htmlparser2';

/**
 * A page's requisites — what a browser would fetch to show it as its readers saw it — found
 * without running it (issue #67): images (every `srcset` candidate up to a cap, `picture`
 * sources, the lazy-loading attributes, `noscript` images, the page's social image, a video's
 * poster), stylesheets and what CSS refers to (`@import`, `url()` of backgrounds and fonts, in
 * `style` elements and attributes too), the icons it names, and — when asked — media. Scripts are not
 * requisites: Forest never runs them, at capture or at replay.
 *
 * Pure: text in, URLs out. Which of them are fetched, how, and how deep into CSS, is the
 * fetcher's (requisites/fetch.ts).
 */

export type RequisiteKind = 'image' | 'style' | 'font' | 'media' | 'icon';

export interface Requisite {
  /** Absolute http(s) URL, without its fragment. */
  url: string;
  kind: RequisiteKind;
  /** Where it was found (`img src`, `srcset`, `css url()`, …): what a reader of the capture's list is told. */
  via: string;
}

export const DISCOVERY_OPTIONS = {
  /**
   * Candidates kept per `srcset`, the widest (or densest) first. A replaying browser picks one
   * candidate for its own screen, so keeping only the largest would leave other screens a hole;
   * keeping every one multiplies an image's bytes (a CDN's `srcset` often lists 6–10 widths).
   * Three covers a phone, a laptop and a high-density screen.
   */
  srcsetCandidates: 3,
  /** Requisites kept per document (a gallery page or a stylesheet of sprites stops here). */
  maxPerDocument: 300,
};

/**
 * Attributes that lazy-loading scripts read the real image from (lazysizes and lozad:
 * `data-src`/`data-srcset`; jQuery lazyload: `data-original`; WordPress: `data-lazy-src`/
 * `data-lazy-srcset`), recognised by shape rather than by name: a `data-` attribute of an image
 * element whose name ends in `src` or `srcset`, or `data-original`.
 */
export const LAZY_SRC = /^data-(?:[\w-]*-)?src$|^data-original$/;
export const LAZY_SRCSET = /^data-(?:[\w-]*-)?srcset$/;

/** `link rel` tokens that name an icon (HTML's `icon`, and Apple's and Safari's variants). */
export const ICON_RELS = new Set(['icon', 'apple-touch-icon', 'apple-touch-icon-precomposed', 'mask-icon']);

/** `meta` properties and names that give the page's image as others show it (Open Graph, Twitter cards). */
const SOCIAL_IMAGES = new Set(['og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src']);

const PRELOAD_KINDS: Record<string, RequisiteKind> = { image: 'image', style: 'style', font: 'font' };

/** The requisites of an HTML page at `pageUrl` (its `<base href>`, if any, applies from where it stands). */
export function requisitesOfHtml(html: string, pageUrl: string, options = DISCOVERY_OPTIONS): Requisite[] {
  const found = new Found(options.maxPerDocument);
  let base = pageUrl;
  let styleText: string | null = null;
  let media: 'video' | 'audio' | null = null;
  const add = (value: string | undefined, kind: RequisiteKind, via: string) => {
    if (value !== undefined) found.add(absolute(value, base), kind, via);
  };
  const addSrcset = (value: string | undefined, via: string) => {
    if (value === undefined) return;
    for (const url of largestCandidates(value, options.srcsetCandidates)) add(url, 'image', via);
  };
  const parser = new Parser({
    onopentag(name, attributes) {
      const attribute = (key: string) => attributes[key]?.trim() || undefined;
      if (attributes['style']) for (const item of requisitesOfCss(attributes['style'], base, { declarations: true, maxPerDocument: options.maxPerDocument })) found.add(item.url, item.kind, `style attribute ${item.via}`);
      if (attributes['background']) add(attribute('background'), 'image', `${name} background`);
      switch (name) {
        case 'base':
          // Only the first <base href> counts (HTML: the document base URL).
          if (base === pageUrl && attribute('href')) base = absolute(attribute('href')!, pageUrl) ?? pageUrl;
          break;
        case 'img':
        case 'source':
        case 'image':
          if (name === 'source' && media !== null) {
            add(attribute('src'), 'media', `${media} source`);
            break;
          }
          add(attribute('src') ?? attribute('href') ?? attribute('xlink:href'), 'image', `${name} src`);
          addSrcset(attributes['srcset'], `${name} srcset`);
          for (const [key, value] of Object.entries(attributes)) {
            if (LAZY_SRC.test(key)) add(value.trim(), 'image', `${name} ${key}`);
            else if (LAZY_SRCSET.test(key)) addSrcset(value, `${name} ${key}`);
          }
          break;
        case 'video':
        case 'audio':
          media = name;
          if (name === 'video') add(attribute('poster'), 'image', 'video poster');
          add(attribute('src'), 'media', `${name} src`);
          break;
        case 'track':
          add(attribute('src'), 'media', 'track src');
          break;
        case 'link': {
          const rels = (attributes['rel'] ?? '').toLowerCase().split(/\s+/);
          const href = attribute('href');
          if (rels.includes('stylesheet')) add(href, 'style', 'link stylesheet');
          else if (rels.some((rel) => ICON_RELS.has(rel))) add(href, 'icon', `link ${rels.find((rel) => ICON_RELS.has(rel))}`);
          else if (rels.includes('preload')) {
            const kind = PRELOAD_KINDS[(attributes['as'] ?? '').toLowerCase()];
            if (kind) add(href, kind, `link preload ${attributes['as']!.toLowerCase()}`);
          }
          break;
        }
        case 'meta': {
          const key = (attributes['property'] ?? attributes['name'] ?? '').toLowerCase();
          if (SOCIAL_IMAGES.has(key)) add(attribute('content'), 'image', key);
          break;
        }
        case 'style':
          styleText = '';
          break;
      }
    },
    ontext(text) {
      if (styleText !== null) styleText += text;
    },
    onclosetag(name) {
      if (name === 'style' && styleText !== null) {
        for (const item of requisitesOfCss(styleText, base, { maxPerDocument: options.maxPerDocument })) found.add(item.url, item.kind, `style element ${item.via}`);
        styleText = null;
      } else if (name === 'video' || name === 'audio') media = null;
    },
  }, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true });
  parser.end(html);
  // A page that names no icon is not given the site's /favicon.ico: a browser asks for it, but
  // it is the site's, not the page's, and asking at every capture of every page costs the site a
  // request each time for what is most often a 404.
  return found.list();
}

/**
 * What a stylesheet at `sheetUrl` refers to: `@import`ed sheets (style), `url()`s inside
 * `@font-face` (font), every other `url()` (image: backgrounds, list markers, cursors, masks).
 * `declarations`: the text is a `style` attribute's declarations, not a sheet.
 */
export function requisitesOfCss(css: string, sheetUrl: string, options: { declarations?: boolean; maxPerDocument?: number } = {}): Requisite[] {
  // CSS names a file only in a url() token or an @import: text with neither (most style
  // attributes, many style elements) is not parsed (the parse was a tenth of the daemon's main
  // thread on bench:scale's pages). An escaped `\75 rl(` is missed: no browser-made page writes one.
  if (!NAMES_A_FILE.test(css)) return [];
  const found = new Found(options.maxPerDocument ?? DISCOVERY_OPTIONS.maxPerDocument);
  const ast = parsedCss(css, options.declarations ?? false);
  if (ast) eachCssUrl(ast, (holder, kind, via) => found.add(absolute(holder.value, sheetUrl), kind, via));
  return found.list();
}

const NAMES_A_FILE = /url\(|@import/i;

/** CSS parsed as browsers read it (css-tree recovers from errors: a broken rule is skipped, not the sheet); null when it cannot be. */
export function parsedCss(css: string, declarations: boolean): CssNode | null {
  try {
    return parse(css, { context: declarations ? 'declarationList' : 'stylesheet', parseValue: true, parseRulePrelude: false, onParseError: () => undefined });
  } catch {
    return null;
  }
}

/**
 * Every URL a stylesheet names, with what it is: an `@import`ed sheet (in either form), a
 * `url()` inside `@font-face` (a font), any other `url()` (an image). `holder.value` is the URL
 * as written: discovery reads it, replay rewrites it in place.
 */
export function eachCssUrl(ast: CssNode, visit: (holder: { value: string }, kind: 'style' | 'font' | 'image', via: string) => void): void {
  walk(ast, function each(node) {
    if (node.type === 'Atrule' && node.name.toLowerCase() === 'import' && node.prelude?.type === 'AtrulePrelude') {
      const first = node.prelude.children.first;
      if (first?.type === 'String' || first?.type === 'Url') visit(first, 'style', '@import');
      return;
    }
    if (node.type !== 'Url' || this.atrule?.name.toLowerCase() === 'import') return;
    const inFontFace = this.atrule?.name.toLowerCase() === 'font-face';
    visit(node, inFontFace ? 'font' : 'image', inFontFace ? '@font-face url()' : 'css url()');
  });
}

/** Whether a Content-Type is a page's that names requisites (an image or a PDF captured as a page names none). */
export const isHtmlType = (contentType: string | null): boolean => /^(text\/html|application\/xhtml\+xml)\b/i.test(contentType ?? '');

/**
 * The candidates of a `srcset`, in order, each its URL and its descriptors (`800w`, `2x`, or
 * none), parsed as HTML's "parse a srcset attribute" does: a URL may hold commas; a trailing
 * comma ends it without descriptors.
 */
export function srcsetCandidates(srcset: string): Array<{ url: string; descriptors: string }> {
  const candidates: Array<{ url: string; descriptors: string }> = [];
  let i = 0;
  while (i < srcset.length) {
    while (i < srcset.length && /[\s,]/.test(srcset[i]!)) i++;
    if (i >= srcset.length) break;
    const start = i;
    while (i < srcset.length && !/\s/.test(srcset[i]!)) i++;
    let url = srcset.slice(start, i);
    let descriptors = '';
    if (url.endsWith(',')) {
      url = url.replace(/,+$/, '');
    } else {
      let depth = 0;
      const from = i;
      while (i < srcset.length && (srcset[i] !== ',' || depth > 0)) {
        if (srcset[i] === '(') depth++;
        else if (srcset[i] === ')') depth = Math.max(0, depth - 1);
        i++;
      }
      descriptors = srcset.slice(from, i).trim();
      i++;
    }
    if (url) candidates.push({ url, descriptors });
  }
  return candidates;
}

/** The URLs of a `srcset`, the largest first (by width descriptor, else density; a candidate without one is 1x), at most `limit`. */
export function largestCandidates(srcset: string, limit: number): string[] {
  return srcsetCandidates(srcset).map((candidate) => ({ url: candidate.url, size: sizeOf(candidate.descriptors) }))
    .sort((a, b) => b.size - a.size).slice(0, limit).map((candidate) => candidate.url);
}

/** A candidate's size for ordering: its width in pixels, or its density as if a 1x image were 1,000 pixels wide. */
function sizeOf(descriptors: string): number {
  const width = /(\d+)w\b/.exec(descriptors);
  if (width) return Number(width[1]);
  const density = /([\d.]+)x\b/.exec(descriptors);
  return (density ? Number(density[1]) : 1) * 1000;
}

/** `value` resolved against `base`, if it is an http(s) URL once resolved (data:, javascript: and the like are not fetched); the fragment dropped. */
export function absolute(value: string, base: string): string | null {
  const trimmed = value.trim();
  if (!trimmed) return null;
  try {
    const url = new URL(trimmed, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    url.hash = '';
    return url.href;
  } catch {
    return null;
  }
}

/** Requisites as found, each URL once (its first kind and place), at most `max`. */
class Found {
  private readonly byUrl = new Map<string, Requisite>();

  constructor(private readonly max: number) {}

  add(url: string | null, kind: RequisiteKind, via: string): void {
    if (url === null || this.byUrl.has(url) || this.byUrl.size >= this.max) return;
    this.byUrl.set(url, { url, kind, via });
  }

  list(): Requisite[] {
    return [...this.byUrl.values()];
  }
}
