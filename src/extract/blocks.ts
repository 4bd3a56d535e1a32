import type { Element } from 'domhandler';
import { BLOCK_TAGS, holdsElement, isInside, textOf, type PreparedPage } from './dom.js';
import { STORED_FORMAT } from './options.js';
import { cached } from '../util/cached.js';
import { countWordRuns } from './terms.js';

/**
 * Keys of a block's text for comparing blocks across pages: the text itself (case, digits and
 * spacing normalised), and, for a short block, its shape — names, numbers, addresses masked —
 * so that "By Ann Lee · 3 comments" and "By Bo Chan · 12 comments" are seen as one template line.
 */
export function blockKeys(text: string): string[] {
  const exact = text.toLowerCase().replace(/[\d]+/g, '0').replace(/\s+/g, ' ').trim();
  if (exact === '') return [];
  // `exact` is the text's words one space apart: a long block (most of a page's text) is told
  // without splitting it all.
  if (exact.split(' ', STORED_FORMAT.blockShapeWords + 1).length > STORED_FORMAT.blockShapeWords) return [exact];
  const words = text.trim().split(/\s+/);
  const shape = words
    .map((word) => (/\S+@\S+|^https?:/.test(word) ? '@' : /^\p{Lu}/u.test(word) ? 'X' : word.toLowerCase().replace(/\d+/g, '0')))
    .join(' ')
    .replace(/(X )+X/g, 'X');
  // A shape of masks only ("X", "X X") says nothing about the line: keep it exact.
  return /[\p{Ll}]/u.test(shape) ? [exact, `shape:${shape}`] : [exact];
}

/** The nearest block element enclosing `element`, not above `root`. */
export function enclosingBlock(element: Element, root: Element): Element {
  let node = element;
  while (node !== root && !BLOCK_TAGS.has(node.name) && node.parent && node.parent.type === 'tag') node = node.parent as Element;
  return node;
}

/** Blocks holding text inside `root`, each once, in document order. */
export function textBlocks(page: PreparedPage, root: Element): Element[] {
  const inside = new Set<Element>();
  const out: Element[] = [];
  for (const leaf of page.leaves) {
    if (!isInside(leaf.element, root)) continue;
    const block = enclosingBlock(leaf.element, root);
    if (!inside.has(block)) {
      inside.add(block);
      out.push(block);
    }
  }
  return out;
}

/**
 * How much of an element is links: its words and the words inside links, counted until `words`
 * reaches `limit` — then both are partial, and the caller asking "fewer than `limit` words?" has its
 * answer without walking the rest: cleaning asks it of every nested container, and counting each
 * one's whole subtree made it quadratic in the depth of the page. The text outside links is added
 * to `unlinked` when it is given.
 */
export function linkWords(element: Element, limit = Number.POSITIVE_INFINITY, unlinked?: string[]): { words: number; linked: number } {
  let words = 0;
  let linked = 0;
  const visit = (node: Element, inLink: boolean): boolean => {
    for (const child of node.children) {
      if (child.type === 'text') {
        const count = countWordRuns(child.data);
        words += count;
        if (inLink) linked += count;
        else unlinked?.push(child.data);
        if (words >= limit) return false;
      } else if (child.type === 'tag' && !visit(child as Element, inLink || (child as Element).name === 'a')) return false;
    }
    return true;
  };
  visit(element, element.name === 'a');
  return { words, linked };
}

/** An element's text outside its links, its text nodes joined by spaces. */
export function unlinkedText(element: Element): string {
  const unlinked: string[] = [];
  linkWords(element, Number.POSITIVE_INFINITY, unlinked);
  return unlinked.join(' ');
}

/**
 * Keys of a block element: those of its text, and for a block that is mostly links, its label —
 * the text outside the links ("All About", "More on:", "Related:") — so that a label followed by
 * different links on every page is still seen as one template line.
 */
export function blockElementKeys(block: Element): string[] {
  const keys = blockTextKeys(block);
  const label = labelKey(block);
  return label ? [...keys, label] : keys;
}

/**
 * The keys of a block's text, kept per element (a prepared page does not change): learning a
 * wrapper keys every block of its node on each sample page, and applying the wrapper to a sample
 * (the leave-one-out check) asks for the same blocks' keys again.
 */
const textKeysOfBlock = new WeakMap<Element, string[]>();
const blockTextKeys = (block: Element): string[] => cached(textKeysOfBlock, block, () => blockKeys(textOf(block)));

/** Whether `element` holds a link (or is one). */
export const holdsLink = (element: Element): boolean => element.name === 'a' || holdsElement(element, (descendant) => descendant.name === 'a');

function labelKey(block: Element): string | null {
  // Without a link there is no label to key (most blocks: paragraphs, comments), and measuring
  // the block's links and words is most of what keying it costs.
  if (!holdsLink(block)) return null;
  const unlinked: string[] = [];
  const { linked: linkedWords } = linkWords(block, Number.POSITIVE_INFINITY, unlinked);
  const label = unlinked.join('').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  const labelWords = label === '' ? 0 : label.split(' ').length;
  return labelWords > 0 && labelWords <= STORED_FORMAT.labelWords && linkedWords >= STORED_FORMAT.labelLinks * labelWords ? `label:${label}` : null;
}

/** Whether a block is a template line: one of its keys is among `templateBlocks` (the label key only computed when some are labels). */
export function isTemplateBlock(block: Element, templateBlocks: ReadonlySet<string>, hasLabels: boolean): boolean {
  if (blockTextKeys(block).some((key) => templateBlocks.has(key))) return true;
  if (!hasLabels) return false;
  const label = labelKey(block);
  return label !== null && templateBlocks.has(label);
}

/**
 * The keys of every block under `root`. A prepared page does not change, so they are kept per
 * root: learning a wrapper asks for the same node's keys once per leave-one-out learning.
 */
const blockKeysOfRoot = new WeakMap<Element, ReadonlySet<string>>();
export function pageBlockKeys(page: PreparedPage, root: Element): ReadonlySet<string> {
  return cached(blockKeysOfRoot, root, () => new Set(textBlocks(page, root).flatMap(blockElementKeys)));
}
