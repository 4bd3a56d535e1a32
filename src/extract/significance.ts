import type { Element } from 'domhandler';
import { parentElement, type PreparedPage, type TextLeaf } from './dom.js';
import type { Signifiers } from './signifiers.js';
import { termOfWord, termRules } from './terms.js';
import { cached } from '../util/cached.js';

/** Terms of every text leaf, computed once per page. */
const leafTermCache = new WeakMap<PreparedPage, string[][]>();
export function leafTerms(page: PreparedPage): string[][] {
  return cached(leafTermCache, page, () => {
    const rules = termRules(page.language);
    return page.leaves.map((leaf) => leaf.words.map((word) => termOfWord(word, rules)).filter((term): term is string => term !== null));
  });
}

export function pageTerms(page: PreparedPage): string[] {
  return leafTerms(page).flat();
}

/** The distinct terms of the page, computed once per page. */
const termSetCache = new WeakMap<PreparedPage, ReadonlySet<string>>();
export function pageTermSet(page: PreparedPage): ReadonlySet<string> {
  return cached(termSetCache, page, () => new Set(pageTerms(page)));
}

export interface SignificantLeaf {
  leaf: TextLeaf;
  /** Signifier matches in the leaf. */
  matches: number;
  /** The signifiers matched (keywords mode; empty for 3-grams). */
  matched: string[];
}

/**
 * Significant nodes (FOREST §3.2, SIGFEED thesis ch. 2 §5): text leaves whose text matches a
 * signifier — word 3-grams when `mode` is 'trigrams', stemmed keywords otherwise.
 */
export function significantLeaves(page: PreparedPage, signifiers: Signifiers, mode: 'trigrams' | 'keywords'): SignificantLeaf[] {
  const out: SignificantLeaf[] = [];
  const allTerms = leafTerms(page);
  page.leaves.forEach((leaf, index) => {
    let matches = 0;
    const matched: string[] = [];
    if (mode === 'trigrams') {
      for (let i = 0; i + 2 < leaf.words.length; i++) if (signifiers.trigrams.has(`${leaf.words[i]} ${leaf.words[i + 1]} ${leaf.words[i + 2]}`)) matches++;
    } else {
      for (const term of allTerms[index]!) {
        if (!signifiers.keywords.has(term)) continue;
        matches++;
        matched.push(term);
      }
    }
    if (matches > 0) out.push({ leaf, matches, matched });
  });
  return out;
}

export interface TermCounts {
  /** Per element: signifier occurrences x and other terms y in its subtree. */
  counts: Map<Element, { x: number; y: number }>;
  X: number;
  Y: number;
}

/** x and y for every element (its whole subtree), and X and Y for the page (FOREST §3.3). */
export function termCounts(page: PreparedPage, keywords: ReadonlySet<string>): TermCounts {
  const counts = new Map<Element, { x: number; y: number }>();
  let X = 0;
  let Y = 0;
  const allTerms = leafTerms(page);
  page.leaves.forEach((leaf, index) => {
    let x = 0;
    let y = 0;
    for (const term of allTerms[index]!) {
      if (keywords.has(term)) x++;
      else y++;
    }
    X += x;
    Y += y;
    if (x === 0 && y === 0) return;
    for (let element: Element | null = leaf.element; element; element = parentElement(element)) {
      const entry = counts.get(element);
      if (entry) {
        entry.x += x;
        entry.y += y;
      } else {
        counts.set(element, { x, y });
      }
    }
  });
  return { counts, X, Y };
}
