import { z } from 'zod';
import { decodeStoredBody, encodeBody, sha256, type EncodedBody, type ReferenceBody, type StoredBody } from '../archive/codec.js';
import { diffObjects, type ObjectDiff } from '../archive/diff.js';
import { normalizeArticle, normalizedObjectSchema, objectHash, type NormalizedObject } from '../archive/normalize.js';
import { packContent } from '../archive/packed-content.js';
import { parseJson as json } from '../util/json.js';
import type { ExtractedFields, FeedFields, RedoneVersion, StoredComparisonKey, TemplateChoice } from '../archive/store.js';
import { preparePage, type PreparedPage } from '../extract/dom.js';
import { EXTRACTOR_VERSION, emptyArticle, extractFromPage, notHtmlReason, type ArticleObject } from '../extract/extract.js';
import { learnFromSamples, type SamplePage } from '../extract/learn.js';
import { canonicalLink } from '../extract/metadata.js';
import { closestTemplate, structureSignature } from '../extract/template.js';
import { wrapperSchema, type Wrapper } from '../extract/wrapper.js';
import { FeedParseError, type ParsedFeed } from '../feeds/model.js';
import { parseFeed } from '../feeds/parse.js';
import { decodeBody } from '../net/charset.js';
import { requisitesOfCss, requisitesOfHtml, type Requisite } from '../requisites/discover.js';
import { DAEMON_OPTIONS } from './options.js';

/**
 * The daemon's CPU work, as pure functions over plain data: they run in the worker pool
 * (src/daemon/pool.ts), so the main thread only does I/O and short write transactions. A page
 * is parsed once per task: its canonical URL, template, article object, normalized object, hash
 * and diff all come from that one parse.
 */

/** What a worker posts once its module has loaded (worker.ts), with its thread's id in the kernel; the pool counts them (pool.ts). */
export const WORKER_LOADED = 'forest:worker-loaded';
export const workerLoaded = z.object({ kind: z.literal(WORKER_LOADED), tid: z.number().int().nullable() });

/** A stored page, still compressed. */
export interface PageInput {
  body: StoredBody;
  contentType: string | null;
  url: string;
  feed: FeedFields;
}

/** The object a new extraction is compared with: the article's comparison key, without the capture it came from. */
export type ComparisonKey = Omit<StoredComparisonKey, 'snapshotId'>;

export interface ExtractTask {
  page: PageInput;
  maxBytes: number;
  templates: TemplateChoice[];
  compare: ComparisonKey | null;
}

export type Comparison =
  | { kind: 'first' }
  | { kind: 'same' }
  | { kind: 'edited'; diff: ObjectDiff }
  /** The key was made another way (method or wrapper): it must be rebased before comparing. */
  | { kind: 'rebase' };

export interface ExtractOutcome {
  canonicalUrl: string | null;
  /** The template the page belongs to: an existing one's id, or the signature of a new one; null when not HTML. */
  template: { id: number } | { signature: string[] } | null;
  /** The wrapper the object was extracted with (method forest). */
  wrapperId: number | null;
  article: ArticleObject;
  object: NormalizedObject | null;
  hash: string | null;
  /**
   * The HTML and the object packed for storage (packed-content.ts), here in the pool rather than
   * in the write transaction; null when no version can come of the extraction (no object, or
   * the comparison key's own).
   */
  packed: Uint8Array | null;
  comparison: Comparison;
}

const extractOptions = (page: { feed: FeedFields }, wrapper: Wrapper | null) => ({
  feedTitle: page.feed.title, feedSummary: page.feed.summary, feedPublished: page.feed.published, feedUpdated: page.feed.updated, feedAuthor: page.feed.author, wrapper,
});

function prepare(page: PageInput, maxBytes: number): { prepared: PreparedPage } | { reason: string } {
  return prepareBytes(decodeStoredBody(page.body), page, maxBytes);
}

function prepareBytes(bytes: Buffer, page: { contentType: string | null; url: string }, maxBytes: number): { prepared: PreparedPage } | { reason: string } {
  const reason = notHtmlReason(bytes, page.contentType, maxBytes);
  if (reason) return { reason };
  return { prepared: preparePage(bytes, { url: page.url, contentType: page.contentType }) };
}

/** How a key made by `method`/`wrapperId` relates to a new extraction made the same way or not. */
const sameWay = (key: ComparisonKey, method: string, wrapperId: number | null) => key.method === method && key.wrapperId === wrapperId && key.extractor === EXTRACTOR_VERSION;

function compare(key: ComparisonKey | null, object: NormalizedObject, hash: string, method: string, wrapperId: number | null): Comparison {
  if (!key) return { kind: 'first' };
  if (key.hash === hash) return { kind: 'same' };
  if (!sameWay(key, method, wrapperId)) return { kind: 'rebase' };
  return { kind: 'edited', diff: diffObjects(json(normalizedObjectSchema, key.object, 'the comparison key'), object) };
}

/** A template's structure signature, as stored (JSON). */
const templateSignature = z.array(z.string());

/** Parses a captured page once and extracts everything the archive keeps of it. */
export function extractTask(task: ExtractTask): ExtractOutcome {
  return extractBytes(decodeStoredBody(task.page.body), task.page, task);
}

function extractBytes(bytes: Buffer, input: Omit<PageInput, 'body'>, task: Omit<ExtractTask, 'page'>): ExtractOutcome {
  const ready = prepareBytes(bytes, input, task.maxBytes);
  if ('reason' in ready) {
    return { canonicalUrl: null, template: null, wrapperId: null, article: emptyArticle(ready.reason), object: null, hash: null, packed: null, comparison: { kind: 'first' } };
  }
  const page = ready.prepared;
  const signature = structureSignature(page);
  const template = closestTemplate(signature, task.templates.map((choice) => ({ ...choice, signature: json(templateSignature, choice.signature, `template ${choice.id}'s signature`) })));
  const key = task.compare;
  const wrapper = template?.wrapper ? json(wrapperSchema, template.wrapper, `template ${template.id}'s wrapper`) : null;
  const article = extractFromPage(page, { ...extractOptions(input, wrapper), knownSource: key?.source ?? null });
  const wrapperId = article.method === 'forest' ? template?.wrapperId ?? null : null;
  const base = { canonicalUrl: canonicalLink(page), template: template ? { id: template.id } : { signature }, wrapperId, article };
  if (article.method === 'none') return { ...base, object: null, hash: null, packed: null, comparison: { kind: 'first' } };
  // Made from what the key was made from: the key's object (extractFromPage left the HTML unmade).
  if (key?.source && article.source === key.source) return { ...base, object: json(normalizedObjectSchema, key.object, 'the comparison key'), hash: key.hash, packed: null, comparison: { kind: 'same' } };
  const object = normalizeArticle(article);
  const hash = objectHash(object);
  const comparison = compare(key, object, hash, article.method, wrapperId);
  return { ...base, object, hash, packed: comparison.kind === 'same' ? null : packContent(article.html, object), comparison };
}

/** A revisited page as fetched, not yet stored. */
export interface RevisitTask extends Omit<ExtractTask, 'page'> {
  page: Omit<PageInput, 'body'> & { body: Uint8Array };
  /** The payload digest of the article's latest capture. */
  previousDigest: string | null;
  /** The site's reference capture, for the body when it is to be stored. */
  reference: ReferenceBody | null;
}

export type RevisitOutcome =
  /** The article object is the one the article's comparison key holds, on a page of a known template: no body to store. */
  | { kind: 'same'; sha256: string; extracted: ExtractOutcome & { template: { id: number } } }
  /**
   * Anything else (the same bytes, an edit, a key to rebase, a new layout, no object): the body,
   * encoded, for the queued extraction, and the extraction made here (null for the same bytes),
   * which the queued extraction takes instead of parsing the page again (extracted-ahead.ts).
   */
  | { kind: 'store'; body: EncodedBody; extracted: ExtractOutcome | null };

/**
 * A revisit, extracted before anything is stored: most revisits find the article as it was
 * (bench:scale: 10,244 of 10,301, the rest byte-identical or failed), and those need neither compressing nor, later,
 * decompressing and extracting again. Only a page that may hold news is encoded for storage,
 * as a first capture is, and its extraction goes with it for the queue (extracted-ahead.ts).
 */
export function revisitTask(task: RevisitTask): RevisitOutcome {
  const bytes = Buffer.from(task.page.body.buffer, task.page.body.byteOffset, task.page.body.byteLength);
  const digest = sha256(bytes);
  const extracted = digest !== task.previousDigest ? extractBytes(bytes, task.page, task) : null;
  const template = extracted?.template ?? null;
  if (extracted?.comparison.kind === 'same' && template !== null && 'id' in template) return { kind: 'same', sha256: digest, extracted: { ...extracted, template } };
  return { kind: 'store', body: encodeBody(bytes, task.reference), extracted };
}

export interface RebaseTask {
  /** The snapshot the key was made from, with the feed fields of the new capture (the same signifiers on both sides); null when it is gone. */
  page: PageInput | null;
  maxBytes: number;
  method: string;
  wrapperId: number | null;
  /** JSON of the wrapper, or null (single page). */
  wrapper: string | null;
  /** The new extraction's object, to compare with the rebased key. */
  object: NormalizedObject;
  hash: string;
  /** The key made the old way. */
  previous: ComparisonKey;
  /** The article's versions, oldest first: those made another way are re-extracted the new way too. */
  versions: VersionToRedo[];
}

/**
 * A version of the article, as stored, with its capture (null when its body is gone, or when it is
 * the key's capture — `page` above, extracted once for both).
 */
export interface VersionToRedo {
  n: number;
  method: string;
  wrapperId: number | null;
  hash: string;
  object: NormalizedObject;
  page: PageInput | null;
  keyCapture: boolean;
}

export interface RebaseOutcome {
  /** The key made the new way; null when the old snapshot yields nothing that way (keep the old key). */
  key: ComparisonKey | null;
  comparison: Extract<Comparison, { kind: 'same' } | { kind: 'edited' }>;
  /** The versions made another way, re-extracted (docs/architecture.md: a change of method is not an edit anywhere). */
  versions: RedoneVersion[];
}

/**
 * Re-extracts the snapshot behind an article's comparison key the way its new capture was
 * extracted (like with like: a better wrapper is not an edit), once per change of wrapper, and
 * compares.
 */
export function rebaseTask(task: RebaseTask): RebaseOutcome {
  const { previous } = task;
  const wrapper = task.wrapper ? json(wrapperSchema, task.wrapper, 'the new wrapper') : null;
  const again = task.page ? extractAgain(task.page, task.maxBytes, wrapper) : null;
  if (!again) {
    const old = json(normalizedObjectSchema, previous.object, 'the comparison key');
    return { key: null, comparison: previous.hash === task.hash ? { kind: 'same' } : { kind: 'edited', diff: diffObjects(old, task.object) }, versions: [] };
  }
  const object = normalizeArticle(again);
  const hash = objectHash(object);
  const key: ComparisonKey = { hash, method: task.method, wrapperId: task.wrapperId, object: JSON.stringify(object), extractor: EXTRACTOR_VERSION, source: again.source };
  return { key, comparison: hash === task.hash ? { kind: 'same' } : { kind: 'edited', diff: diffObjects(object, task.object) }, versions: redoVersions(task, wrapper, again) };
}

/** A page extracted the way given (a wrapper, or the single page), or null when that way finds nothing. */
function extractAgain(page: PageInput, maxBytes: number, wrapper: Wrapper | null): ArticleObject | null {
  const ready = prepare(page, maxBytes);
  const again = 'prepared' in ready ? extractFromPage(ready.prepared, extractOptions(page, wrapper)) : null;
  return again && again.method !== 'none' ? again : null;
}

/**
 * The article's versions made another way than the new extraction, re-extracted its way, and the
 * diffs between neighbours where either changed: what a reader compares — diff, search, history,
 * exports — is then made one way, and a change of method never reads as an edit. A version whose
 * capture is gone, or which the new way cannot read, stays as it was.
 */
function redoVersions(task: RebaseTask, wrapper: Wrapper | null, keyAgain: ArticleObject): RedoneVersion[] {
  const made = task.versions.map((version) => {
    if (version.method === task.method && version.wrapperId === task.wrapperId) return { version, again: null };
    const again = version.keyCapture ? keyAgain : version.page ? extractAgain(version.page, task.maxBytes, wrapper) : null;
    return { version, again };
  });
  const objects = made.map(({ version, again }) => (again ? normalizeArticle(again) : version.object));
  return made.flatMap(({ version, again }, index) => {
    const object = objects[index]!;
    const neighbourRedone = index > 0 && made[index - 1]!.again !== null;
    if (!again && !neighbourRedone) return [];
    const content = again && {
      hash: objectHash(object), method: task.method, wrapperId: task.wrapperId, title: again.title, byline: again.byline, published: again.published, text: again.text,
      packed: packContent(again.html, object),
    };
    return [{ n: version.n, was: version.hash, content, diff: index > 0 ? diffObjects(objects[index - 1]!, object) : null }];
  });
}

export interface LearnTask {
  samples: Array<PageInput & { snapshotId: number }>;
  /** Pages of the template to re-extract with the new wrapper, with what was last extracted from them. */
  pages: Array<PageInput & { snapshotId: number; extracted: ExtractedFields }>;
  maxBytes: number;
  /** JSON of the template's active wrapper: learning the same one again changes nothing. */
  current: string | null;
  /**
   * A routine re-learning (learningDue), not drift: a wrapper that differs from the active one
   * (in its template blocks, say) but changes none of `pages` is no reason for a new version —
   * a new version makes every article's comparison key of the template stale.
   */
  routine: boolean;
}

export interface LearnOutcome {
  wrapper: Wrapper | null;
  /** The leave-one-out verdict on the learned wrapper, in words (null when nothing was learned). */
  check: string | null;
  /** The learned wrapper is the active one, or (routine) changes none of the pages: nothing to store or re-extract. */
  unchanged: boolean;
  samples: number;
  /** Pages whose object the new wrapper changes. */
  changed: Array<{ snapshotId: number; article: ArticleObject }>;
}

const FIELDS = ['title', 'byline', 'published', 'modified', 'leadImage', 'language', 'text'] as const satisfies ReadonlyArray<keyof ExtractedFields>;

/** Whether extracting again gave what the extraction holds: every field of the object, not its text alone (a byline or a lead image a wrapper finds or loses is a change). */
const sameFields = (article: ArticleObject, stored: ExtractedFields) => FIELDS.every((field) => article[field] === stored[field]);

/** Learns a FOREST wrapper from a template's recent pages and re-extracts its pages with it. */
export function learnTask(task: LearnTask): LearnOutcome {
  const prepared = new Map<number, PreparedPage>();
  const samples: SamplePage[] = [];
  let held = 0;
  // Newest first, as many as the budget holds (a page that does not fit is passed over: a smaller one may).
  for (const sample of task.samples) {
    const bytes = decodeStoredBody(sample.body);
    if (samples.length >= DAEMON_OPTIONS.learning.minSamples && held + bytes.byteLength > DAEMON_OPTIONS.learning.htmlBytes) continue;
    const ready = prepareBytes(bytes, sample, task.maxBytes);
    if (!('prepared' in ready)) continue;
    held += bytes.byteLength;
    prepared.set(sample.snapshotId, ready.prepared);
    samples.push({ input: ready.prepared, feedTitle: sample.feed.title, feedSummary: sample.feed.summary });
  }
  if (samples.length < 2) return { wrapper: null, check: null, unchanged: false, samples: samples.length, changed: [] };
  const { wrapper, check, unchanged } = learnFromSamples(samples, { current: task.current !== null ? json(wrapperSchema, task.current, 'the active wrapper') : null });
  const verdict = check?.reason ?? null;
  if (!wrapper) return { wrapper: null, check: verdict, unchanged: false, samples: samples.length, changed: [] };
  if (unchanged) return { wrapper, check: verdict, unchanged: true, samples: samples.length, changed: [] };
  const changed = task.pages.flatMap((page) => {
    // The samples' trees are reused (extraction does not change a prepared page).
    const known = prepared.get(page.snapshotId);
    const ready = known ? { prepared: known } : prepare(page, task.maxBytes);
    if (!('prepared' in ready)) return [];
    const article = extractFromPage(ready.prepared, extractOptions(page, wrapper));
    return sameFields(article, page.extracted) ? [] : [{ snapshotId: page.snapshotId, article }];
  });
  const changesNothing = task.routine && task.current !== null && changed.length === 0;
  return { wrapper, check: verdict, unchanged: changesNothing, samples: samples.length, changed };
}

export interface EncodeTask {
  body: Uint8Array;
  /** The site's reference capture, to compress against (codec.ts). */
  reference: ReferenceBody | null;
}

/** Hashes and compresses a fetched body for storage. */
export function encodeTask(task: EncodeTask): EncodedBody {
  return encodeBody(task.body, task.reference);
}

/**
 * A document read for the requisites it names: a captured page's bytes, or a stylesheet's text.
 * Parsing them was about a seventh of the daemon's main-thread time on bench:scale with requisites
 * on (a page parsed again by htmlparser2, its sheets by css-tree) — the pool's work, not the main thread's.
 */
export type DiscoverTask =
  | { kind: 'page'; body: Uint8Array; contentType: string | null; url: string }
  /** A page read back from the archive, still compressed (a capture a daemon left waiting for its requisites). */
  | { kind: 'stored'; body: StoredBody; contentType: string | null; url: string }
  | { kind: 'sheet'; css: string; url: string };

/** What the document names, in the order found (requisites/discover.ts). */
export function discoverTask(task: DiscoverTask): Requisite[] {
  if (task.kind === 'sheet') return requisitesOfCss(task.css, task.url);
  const body = task.kind === 'stored' ? decodeStoredBody(task.body) : task.body;
  return requisitesOfHtml(decodeBody(body, task.contentType).text, task.url);
}

export interface ParseFeedTask {
  body: Uint8Array;
  url: string;
  contentType: string | null;
}

/** A parsed feed, or why the document is not one (an error's class does not cross threads). */
export type ParseFeedOutcome = { feed: ParsedFeed } | { error: string };

export async function parseFeedTask(task: ParseFeedTask): Promise<ParseFeedOutcome> {
  try {
    return { feed: await parseFeed(task.body, { url: task.url, contentType: task.contentType }) };
  } catch (error) {
    if (error instanceof FeedParseError) return { error: error.message };
    throw error;
  }
}
