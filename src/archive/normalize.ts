import { createHash } from 'node:crypto';
import { isTag, isText, type AnyNode, type Element } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import { z } from 'zod';

/**
 * The article object as change detection sees it (docs/architecture.md §6): title, byline, published date,
 * content blocks and media URLs, each normalized so that only a change of the article itself
 * changes its hash — never whitespace, typographic quotes, tracking parameters, "updated 3
 * minutes ago" or a widget's counter that the extractor let through.
 */

export type BlockKind = 'heading' | 'paragraph' | 'item' | 'quote' | 'caption' | 'code' | 'cell';

export interface Block {
  kind: BlockKind;
  text: string;
  /** Link targets inside the block, tracking parameters removed. */
  links?: string[];
}

export interface NormalizedObject {
  title: string;
  byline: string;
  published: string | null;
  blocks: Block[];
  media: string[];
}

export interface ExtractedContent {
  title: string | null;
  byline: string | null;
  published: string | null;
  html: string;
  /** The article's lead image: part of the object (first among its media) wherever the page shows it. */
  leadImage?: string | null;
}

/** The object as stored (a version's blocks, a comparison key): checked when read back. */
export const blockSchema = z.object({ kind: z.enum(['heading', 'paragraph', 'item', 'quote', 'caption', 'code', 'cell']), text: z.string(), links: z.array(z.string()).optional() });
export const normalizedObjectSchema = z.object({ title: z.string(), byline: z.string(), published: z.string().nullable(), blocks: z.array(blockSchema), media: z.array(z.string()) }) satisfies z.ZodType<NormalizedObject>;

const BLOCK_KIND: Record<string, BlockKind> = {
  h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading', h6: 'heading',
  p: 'paragraph', li: 'item', dt: 'item', dd: 'item', blockquote: 'quote', figcaption: 'caption', pre: 'code', td: 'cell', th: 'cell',
};
/** Elements that break text into blocks without being one (their loose text becomes a paragraph). */
const CONTAINERS = new Set(['ul', 'ol', 'dl', 'figure', 'table', 'thead', 'tbody', 'tr', 'hr', 'br', 'div', 'section', 'article']);

/** Query parameters that identify a campaign or a click, not a document. */
const TRACKING = /^(utm_\w+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|igshid|yclid|_ga|_gl|ref_src|ref_url|cmpid|ocid|soc_src|soc_trk|wt\.mc_id|__twitter_impression)$/i;

/** "3 minutes ago", "updated 2 hrs ago", "just now": true on one request, false on the next. */
const RELATIVE_TIME = /\b(?:(?:updated|posted|published|edited|modified)\s+)?(?:(?:\d+|an?|one|a few)\s+(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)\s+ago|just now)\b/gi;

/** A block that is only a widget's label or counter: never part of the article. */
const WIDGET = /^(?:\(?\d+\)?\s*(?:comments?|replies|shares?|likes?|views?|reactions?)|(?:comments?|replies|shares?|likes?|views?)\s*\(?\d+\)?|advertisement|sponsored|share|share this|tweet|email|print)$/i;

export function normalizeText(text: string): string {
  return text
    .normalize('NFC')
    .replace(/[\u00ad\u200b-\u200d\u2060\ufeff]/g, '')
    .replace(/[\u2018\u2019\u201a\u201b\u2032]/g, "'")
    .replace(/[\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb]/g, '"')
    .replace(/\u2026/g, '...')
    .replace(RELATIVE_TIME, ' ')
    .replace(/\s+/g, ' ')
    // separators left dangling once a relative time is gone: "By Ann · Updated 3 minutes ago"
    .replace(/(?:\s*[·|•–—-])+\s*$/u, '')
    .replace(/^\s*[·|•–—-]\s*/u, '')
    .trim();
}

export function normalizeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    for (const name of [...parsed.searchParams.keys()]) if (TRACKING.test(name)) parsed.searchParams.delete(name);
    parsed.searchParams.sort();
    return parsed.toString();
  } catch {
    return url.trim();
  }
}

function collectBlocks(nodes: AnyNode[], into: Block[], media: string[]): void {
  let loose = '';
  const flush = () => {
    const text = normalizeText(loose);
    if (text && !WIDGET.test(text)) into.push({ kind: 'paragraph', text });
    loose = '';
  };
  for (const node of nodes) {
    if (isText(node)) {
      loose += node.data;
      continue;
    }
    if (!isTag(node)) continue;
    const name = node.name.toLowerCase();
    if (name === 'img' || name === 'video' || name === 'audio' || name === 'source' || name === 'iframe') {
      const src = node.attribs['src'];
      if (src) media.push(normalizeUrl(src));
      continue;
    }
    const kind = BLOCK_KIND[name];
    if (kind && !hasBlockInside(node)) {
      flush();
      const block = leafBlock(node, kind, media);
      if (block) into.push(block);
    } else if (kind || CONTAINERS.has(name)) {
      flush();
      collectBlocks(node.children, into, media);
    } else {
      // Inline markup (a, em, strong, …) outside any block: its text joins the loose paragraph.
      loose += inlineText(node, media);
    }
  }
  flush();
}

/** Whether a block element holds other blocks (an <li> with paragraphs): then those are the blocks. */
function hasBlockInside(element: Element): boolean {
  return element.children.some((child) => isTag(child) && ((child.name in BLOCK_KIND) || (CONTAINERS.has(child.name) && child.name !== 'br') || hasBlockInside(child)));
}

/** The text of an element, collecting the media and link targets inside it on the way. */
function inlineText(element: Element, media: string[], links: string[] = []): string {
  let text = '';
  for (const child of element.children) {
    if (isText(child)) text += child.data;
    else if (isTag(child)) {
      if (child.name === 'img' && child.attribs['src']) media.push(normalizeUrl(child.attribs['src']));
      else if (child.name === 'br') text += ' ';
      else {
        if (child.name === 'a' && child.attribs['href']) links.push(normalizeUrl(child.attribs['href']));
        text += inlineText(child, media, links);
      }
    }
  }
  return text;
}

function leafBlock(element: Element, kind: BlockKind, media: string[]): Block | null {
  const links: string[] = [];
  const text = normalizeText(inlineText(element, media, links));
  if (!text || WIDGET.test(text)) return null;
  return links.length ? { kind, text, links } : { kind, text };
}

/** The normalized object of an extraction. */
export function normalizeArticle(content: ExtractedContent): NormalizedObject {
  // The HTML is sanitize-html's output, which htmlparser2 wrote from its own parse: parse5's
  // browser-grade repair (extraction's parser) has nothing left to repair here, at three times
  // the cost (the same blocks on all 1,129 extractions of ../shared/datasets).
  const fragment = parseDocument(content.html);
  const blocks: Block[] = [];
  const media: string[] = [];
  collectBlocks(fragment.children, blocks, media);
  const published = content.published && !Number.isNaN(Date.parse(content.published)) ? new Date(content.published).toISOString() : null;
  return {
    title: normalizeText(content.title ?? ''),
    byline: normalizeText(content.byline ?? ''),
    published,
    blocks,
    media: [...new Set(content.leadImage ? [normalizeUrl(content.leadImage), ...media] : media)],
  };
}

/** sha256 of the normalized object: equal hashes mean the same article. */
export function objectHash(object: NormalizedObject): string {
  return createHash('sha256').update(JSON.stringify([object.title, object.byline, object.published, object.blocks, object.media])).digest('hex');
}

export const wordCount = (text: string): number => text.split(/\s+/).filter(Boolean).length;
