import { diffObjects, type ObjectDiff } from './diff.js';
import type { Block, NormalizedObject } from './normalize.js';
import type { Article, Check, Version, VersionPicture } from './store.js';

/**
 * What an archivist is shown of an article, as plain data: the JSON of `forest history --json`,
 * `forest show --json` and `forest diff --json` (docs/architecture.md §7), which the HTTP API
 * serves unchanged. Pure: the CLI and the web server build their output from these.
 */

/** An article with its versions (what changed in each) and every check: `forest history --json`. */
export function historyView(article: Article, versions: Version[], checks: Check[]) {
  return {
    id: article.id, url: article.url, title: article.title, goneSince: article.goneSince, nextCheck: article.nextCheck, failedChecks: article.failedChecks,
    versions: versions.map((version) => ({
      n: version.n, capturedAt: version.capturedAt, method: version.method, wrapper: version.wrapperId, reason: version.reason, title: version.title, hash: version.hash,
      change: version.change, summary: version.summary, reextracted: version.reextracted,
    })),
    checks,
  };
}

/** One version with its article's URLs: `forest show --json`. */
export function versionView(article: Article, version: Version, alsoAt: number[], pictures: VersionPicture[]) {
  return {
    id: article.id, url: article.url, finalUrl: article.finalUrl, canonicalUrl: article.canonicalUrl,
    version: version.n, versions: article.versions, capturedAt: version.capturedAt, method: version.method, wrapper: version.wrapperId,
    hash: version.hash, title: version.title, byline: version.byline, published: version.published, text: version.text, html: version.html,
    alsoAt, reextracted: version.reextracted,
    // The object's pictures as this version keeps them (issue #67): each URL with the digest of its kept bytes.
    pictures,
  };
}

export interface Comparison {
  diff: ObjectDiff;
  /** Said when the two versions were extracted differently and the diff was not recorded as an edit. */
  caveat: string | null;
}

/**
 * What changed from `before` to `after`. Consecutive versions use the diff recorded when the edit
 * was found (it compared like with like even when the extraction method changed between the two
 * captures); any other pair is diffed now, with a caveat when they were extracted differently.
 */
export function compareVersions(before: Version, after: Version): Comparison {
  const stored = after.n === before.n + 1 ? after.diff : null;
  if (stored) return { diff: stored, caveat: null };
  const caveat = before.method !== after.method || before.wrapperId !== after.wrapperId
    ? `note: v${before.n} was extracted by ${before.method}, v${after.n} by ${after.method}${after.wrapperId ? ` (wrapper ${after.wrapperId})` : ''}; some differences may come from extraction, not from the article`
    : null;
  return { diff: diffObjects(before.object, after.object), caveat };
}

/**
 * The blocks each `equal` run of a diff stands for, read from the later object (the diff's after
 * side is always the newer version's object): the context a reader expands. Null when the
 * diff's runs do not add up to that object's blocks (then only their count is known).
 */
export function unchangedBlocks(diff: ObjectDiff, after: NormalizedObject): Array<Block[] | null> | null {
  let at = 0;
  const runs: Array<Block[] | null> = [];
  for (const change of diff.blocks) {
    if (change.op === 'equal') {
      runs.push(after.blocks.slice(at, at + change.count));
      at += change.count;
    } else {
      runs.push(null);
      if (change.op !== 'removed') at += 1;
    }
  }
  return at === after.blocks.length ? runs : null;
}

/** `forest diff --json`. */
export const diffView = (article: Article, before: Version, after: Version, comparison: Comparison) =>
  ({ id: article.id, a: before.n, b: after.n, ...comparison.diff, ...(comparison.caveat ? { caveat: comparison.caveat } : {}) });
