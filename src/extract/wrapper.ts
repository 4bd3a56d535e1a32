import type { Element } from 'domhandler';
import { z } from 'zod';
import type { PreparedPage } from './dom.js';
import { STORED_FORMAT } from './options.js';
import { cached } from '../util/cached.js';

/**
 * A FOREST wrapper: the element type of the best structural pattern (FOREST §3.2, Definition 2)
 * as a structured selector, matched directly on the parsed tree; `xpath` renders it for people.
 */
export interface Wrapper {
  /** The element type: tag + tolerant id/class, or, for an element without them, its path below
   *  the nearest typed ancestor (e.g. `td[class=story]/div`). */
  type: string;
  tag: string;
  /** id/class in tolerant form; empty when the element is typed by its path and dfs. */
  attributes: Record<string, string>;
  /** dfs positions seen across the sample pages (the selector when there are no attributes). */
  dfs: number[];
  level: number;
  xpath: string;
  relevance: number;
  samples: number;
  /** Normalised texts of blocks that recur inside the wrapped node across the samples: template. */
  templateBlocks: string[];
  /** The element type of the template's deck slot, when the deck sits apart from the body. */
  deck?: string;
  /**
   * Keywords of the page's own metadata that most samples share (the site's name and motto):
   * they say what the site is, not what the page is, so the per-page guard does not count them.
   */
  siteTerms?: string[];
}

/** A wrapper as stored (JSON): checked when read back. */
export const wrapperSchema = z.object({
  type: z.string(), tag: z.string(), attributes: z.record(z.string(), z.string()), dfs: z.array(z.number()), level: z.number(), xpath: z.string(),
  relevance: z.number(), samples: z.number(), templateBlocks: z.array(z.string()), deck: z.string().optional(), siteTerms: z.array(z.string()).optional(),
}) satisfies z.ZodType<Wrapper>;

const TYPED_BY = ['id', 'class'];

/**
 * Tolerant form of an attribute value (FOREST §3.2): its first token, digits removed —
 * "post wrapper-09" and "post wrapper-02" are both "post".
 */
export function tolerantForm(value: string): string {
  const first = value.trim().split(/\s+/)[0] ?? '';
  return first.replace(/\d+/g, '').replace(/[-_]+$/g, '').replace(/^[-_]+/g, '');
}

export function typeAttributes(element: Element): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of TYPED_BY) {
    const value = element.attribs[name];
    if (value === undefined) continue;
    const tolerant = tolerantForm(value);
    if (tolerant !== '') out[name] = tolerant;
  }
  return out;
}

/**
 * The element type (Definition 2) as a key: tag + tolerant id/class. The paper types an element
 * without attributes by its dfs alone, which differs from page to page as soon as one page has a
 * paragraph more above it; such an element is typed here by its tag under its parent's type
 * (up to a few levels), which is as specific but stable across pages. Its dfs positions are kept
 * in the wrapper, as in the paper's XPath, to break ties.
 */
export function elementType(element: Element): string {
  return cached(typeOfElement, element, () => typeOf(element));
}

/**
 * Types kept per element: a prepared page does not change, and matching a wrapper asks every
 * element of every sample page for its type, once per leave-one-out learning.
 */
const typeOfElement = new WeakMap<Element, string>();

function typeOf(element: Element): string {
  const attributes = typeAttributes(element);
  const keys = Object.keys(attributes);
  if (keys.length > 0) return `${element.name}[${keys.map((key) => `${key}=${attributes[key]}`).join(',')}]`;
  const path: string[] = [element.name];
  let node = element.parent;
  while (node && node.type === 'tag' && path.length < STORED_FORMAT.typePathLength) {
    const parent = node as Element;
    const parentAttributes = typeAttributes(parent);
    if (Object.keys(parentAttributes).length > 0 || parent.name === 'body') {
      path.unshift(elementType(parent));
      break;
    }
    path.unshift(parent.name);
    node = parent.parent;
  }
  return path.join('/');
}

/**
 * XPath for people: `//div[contains(@class,'story')]`; a wrapper that also tells elements apart by
 * their position says so in words after it — the position is Forest's count of elements in
 * document order, no attribute of the page an XPath could test.
 */
export function renderXPath(type: string, dfs: number[]): string {
  const steps = type.split('/').map((step) => {
    const match = /^([a-z0-9]+)(?:\[(.*)\])?$/i.exec(step);
    if (!match) return step;
    const conditions = (match[2] ?? '').split(',').filter(Boolean).map((pair) => {
      const [name, value] = pair.split('=');
      return `contains(@${name},'${value}')`;
    });
    return `${match[1]}${conditions.length ? `[${conditions.join(' and ')}]` : ''}`;
  });
  const position = dfs.length > 0 ? ` (element ${dfs.map((d) => d + 1).join(' or ')} in document order)` : '';
  return `//${steps.join('/')}${position}`;
}

/**
 * A page's elements by tag name, kept per page: learning matches each candidate wrapper on every
 * sample page, once per leave-one-out learning, and a wrapper's tag rules out most elements.
 */
const tagIndex = new WeakMap<PreparedPage, Map<string, Element[]>>();
const elementsByTag = (page: PreparedPage) => cached(tagIndex, page, () => {
  const index = new Map<string, Element[]>();
  for (const element of page.elements) cached(index, element.name, () => []).push(element);
  return index;
});

/** The elements of `page` the wrapper selects: learned level first, then a learned dfs, then the most text. */
export function matchWrapper(page: PreparedPage, wrapper: Wrapper): Element[] {
  const matches = (elementsByTag(page).get(wrapper.tag) ?? []).filter((element) => elementType(element) === wrapper.type);
  const score = (element: Element) => {
    const dfs = page.dfs.get(element)!;
    return Math.abs(page.depths[dfs]! - wrapper.level) * 2 + (wrapper.dfs.includes(dfs) ? 0 : 1);
  };
  return matches.sort((a, b) => score(a) - score(b));
}
