import type { Element } from 'domhandler';
import { isInside, textOf, type PreparedPage } from './dom.js';
import { pageMetadataTexts } from './signifiers.js';
import { words } from './terms.js';
import { EXTRACTOR_OPTIONS, type ExtractorOptions } from './options.js';
import { elementType } from './wrapper.js';

/**
 * The deck (standfirst): the summary a page shows between headline and body, often in a slot of
 * its own away from the body's container, and usually the very text of the page's description.
 * One page cannot tell a deck from a teaser shown beside the article; the sample pages of a
 * template can: the element type that holds the page's own description, before the wrapped
 * node, on most of them, is the template's deck slot.
 */

const normalized = (text: string) => words(text).join(' ');

/** The element before `node` (outside it) whose text is the page's description, if any. */
export function descriptionBefore(page: PreparedPage, node: Element, t: ExtractorOptions = EXTRACTOR_OPTIONS): Element | null {
  const descriptions = pageMetadataTexts(page).map(normalized).filter((text) => text.split(' ').length >= t.deckWords);
  if (descriptions.length === 0) return null;
  const start = page.dfs.get(node) ?? 0;
  for (const leaf of page.leaves) {
    if ((page.dfs.get(leaf.element) ?? 0) >= start) break;
    if (leaf.words.length < t.deckWords || isInside(leaf.element, node)) continue;
    const text = normalized(textOf(leaf.element));
    // Descriptions are often the deck cut short ("…"): a long enough prefix will do.
    if (descriptions.some((description) => text === description || (description.length > t.deckPrefixChars && text.startsWith(description.slice(0, Math.floor(description.length * t.deckPrefixShare)))))) {
      return leaf.element;
    }
  }
  return null;
}

/** The deck slot's element type, when the description sits in one on at least `deckSlotShare` of the samples. */
export function learnDeckSlot(samples: Array<{ page: PreparedPage; node: Element | undefined }>, t: ExtractorOptions = EXTRACTOR_OPTIONS): string | undefined {
  const counts = new Map<string, number>();
  for (const { page, node } of samples) {
    const element = node ? descriptionBefore(page, node, t) : null;
    if (element) counts.set(elementType(element), (counts.get(elementType(element)) ?? 0) + 1);
  }
  const [type, count] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? [undefined, 0];
  return type !== undefined && count >= Math.max(2, Math.ceil(t.deckSlotShare * samples.length)) ? type : undefined;
}

/** On a page, the nearest element of the deck slot's type before the article node, outside it. */
export function deckBefore(page: PreparedPage, node: Element, type: string, t: ExtractorOptions = EXTRACTOR_OPTIONS): Element | null {
  const start = page.dfs.get(node) ?? 0;
  // The type's own tag: the last step of a path type, before its attributes.
  const tag = type.split('/').pop()!.split('[')[0];
  let found: Element | null = null;
  for (const element of page.elements) {
    const dfs = page.dfs.get(element) ?? 0;
    if (dfs >= start) break;
    if (element.name === tag && elementType(element) === type && !isInside(node, element) && textOf(element).split(/\s+/).length >= t.deckElementWords) found = element;
  }
  return found;
}
