import type { Element } from 'domhandler';
import { BLOCK_TAGS, isInside, textOf, type PreparedPage } from './dom.js';

/** Text of a block, normalised for comparing blocks across pages. */
export const normalizeBlock = (text: string): string => text.toLowerCase().replace(/[\d]+/g, '0').replace(/\s+/g, ' ').trim();

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

export function blockKeys(page: PreparedPage, root: Element): Set<string> {
  return new Set(textBlocks(page, root).map((block) => normalizeBlock(textOf(block))).filter((key) => key.length > 0));
}
