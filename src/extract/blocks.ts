import type { Element } from 'domhandler';
import { BLOCK_TAGS, isInside, textOf, type PreparedPage } from './dom.js';

/**
 * Keys of a block's text for comparing blocks across pages: the text itself (case, digits and
 * spacing normalised), and, for a short block, its shape — names, numbers, addresses masked —
 * so that "By Ann Lee · 3 comments" and "By Bo Chan · 12 comments" are seen as one template line.
 */
export function blockKeys(text: string): string[] {
  const exact = text.toLowerCase().replace(/[\d]+/g, '0').replace(/\s+/g, ' ').trim();
  if (exact === '') return [];
  const words = text.trim().split(/\s+/);
  if (words.length > 12) return [exact];
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

export function pageBlockKeys(page: PreparedPage, root: Element): Set<string> {
  return new Set(textBlocks(page, root).flatMap((block) => blockKeys(textOf(block))));
}
