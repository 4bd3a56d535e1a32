import type { PreparedPage } from './dom.js';
import { typeAttributes } from './wrapper.js';
import { EXTRACTOR_OPTIONS, STORED_FORMAT } from './options.js';

/**
 * Which template a page uses: its structural signature — the typed elements (tag + tolerant
 * id/class) of its upper levels — compared by Jaccard similarity. Pages of one feed that use
 * different layouts (an article vs a gallery) fall into different templates and get their own
 * wrappers.
 */

export function structureSignature(page: PreparedPage): string[] {
  const types = new Set<string>();
  page.elements.forEach((element, dfs) => {
    const depth = page.depths[dfs]!;
    if (depth > STORED_FORMAT.signatureDepth) return;
    const attributes = typeAttributes(element);
    const keys = Object.keys(attributes);
    if (keys.length > 0) types.add(`${element.name}[${keys.map((key) => `${key}=${attributes[key]}`).join(',')}]@${depth}`);
  });
  return [...types].sort();
}

export function jaccard(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 && b.length === 0) return 1;
  const setB = new Set(b);
  let shared = 0;
  for (const value of a) if (setB.has(value)) shared++;
  return shared / (a.length + b.length - shared);
}

/** The most similar known template, if similar enough. */
export function closestTemplate<T extends { signature: readonly string[] }>(signature: readonly string[], templates: readonly T[], threshold = EXTRACTOR_OPTIONS.templateMatch): T | null {
  let best: T | null = null;
  let bestScore = threshold;
  for (const template of templates) {
    const score = jaccard(signature, template.signature);
    if (score >= bestScore) {
      best = template;
      bestScore = score;
    }
  }
  return best;
}
