import { diffArrays, diffWords } from 'diff';
import { wordCount, type Block, type NormalizedObject } from './normalize.js';
import { plural } from '../util/units.js';

/**
 * The structured diff between two versions of an article (docs/architecture.md §6): blocks aligned by their
 * content, a word diff inside the blocks that were edited, and the kinds of change an archivist
 * filters on. Pure: both sides are normalized objects.
 */

export type ChangeKind = 'title' | 'byline' | 'dates' | 'body-edit' | 'paragraphs-added' | 'paragraphs-removed' | 'media-added' | 'media-removed' | 'picture-changed';

export interface WordPart {
  op: 'equal' | 'added' | 'removed';
  text: string;
}

/** Unchanged blocks are a count (a run of them), so that a stored diff does not repeat the text. */
export type BlockChange =
  | { op: 'equal'; count: number }
  | { op: 'added' | 'removed'; block: Block }
  | { op: 'changed'; before: Block; after: Block; words: WordPart[] };

export interface FieldChange {
  field: 'title' | 'byline' | 'published';
  before: string | null;
  after: string | null;
}

export interface ObjectDiff {
  fields: FieldChange[];
  blocks: BlockChange[];
  media: { added: string[]; removed: string[] };
  /** Pictures of the object whose URL stayed and whose picture changed (picture-diff.ts); absent in a diff of text. */
  pictures?: PictureChange[];
  kinds: ChangeKind[];
  /** Words removed or added inside edited blocks, over the words of the earlier body. */
  editedShare: number;
  summary: string;
}

/** One side of a changed picture: the bytes kept of it, and what they show. */
export interface PictureSide {
  sha256: string;
  contentType: string | null;
  width: number | null;
  height: number | null;
  /** When these bytes were fetched (a memento of the picture at that time serves them). */
  fetchedAt: string;
}

export interface PictureChange {
  url: string;
  before: PictureSide;
  after: PictureSide;
}

/** Two blocks this similar (Dice coefficient of their words) are one block edited, not one replaced. */
const SAME_BLOCK = 0.5;

const blockKey = (block: Block) => `${block.kind}\u0000${block.text}\u0000${(block.links ?? []).join(' ')}`;

function similarity(a: string, b: string): number {
  const count = (text: string) => {
    const counts = new Map<string, number>();
    for (const word of text.toLowerCase().split(/\s+/).filter(Boolean)) counts.set(word, (counts.get(word) ?? 0) + 1);
    return counts;
  };
  const left = count(a);
  const right = count(b);
  let shared = 0;
  for (const [word, n] of left) shared += Math.min(n, right.get(word) ?? 0);
  const total = wordCount(a) + wordCount(b);
  return total === 0 ? 1 : (2 * shared) / total;
}

export function wordDiff(before: string, after: string): WordPart[] {
  return diffWords(before, after).map((part) => ({ op: part.added ? 'added' : part.removed ? 'removed' : 'equal', text: part.value }));
}

/**
 * Within one run of removed and added blocks, pairs each removed block with the first later
 * added block similar enough to be its edit; the rest stay removed or added.
 */
function pairRun(removed: Block[], added: Block[]): BlockChange[] {
  const out: BlockChange[] = [];
  let next = 0;
  for (const before of removed) {
    const match = added.findIndex((after, index) => index >= next && similarity(before.text, after.text) >= SAME_BLOCK && before.kind === after.kind);
    if (match < 0) {
      out.push({ op: 'removed', block: before });
      continue;
    }
    for (const skipped of added.slice(next, match)) out.push({ op: 'added', block: skipped });
    out.push({ op: 'changed', before, after: added[match]!, words: wordDiff(before.text, added[match]!.text) });
    next = match + 1;
  }
  for (const rest of added.slice(next)) out.push({ op: 'added', block: rest });
  return out;
}

export function alignBlocks(before: Block[], after: Block[]): BlockChange[] {
  const parts = diffArrays(before, after, { comparator: (a: Block, b: Block) => blockKey(a) === blockKey(b) });
  const out: BlockChange[] = [];
  let removed: Block[] = [];
  let added: Block[] = [];
  const flush = () => {
    out.push(...pairRun(removed, added));
    removed = [];
    added = [];
  };
  for (const part of parts) {
    if (part.removed) removed.push(...part.value);
    else if (part.added) added.push(...part.value);
    else {
      flush();
      out.push({ op: 'equal', count: part.value.length });
    }
  }
  flush();
  return out;
}

export function diffObjects(before: NormalizedObject, after: NormalizedObject): ObjectDiff {
  const fields: FieldChange[] = [];
  if (before.title !== after.title) fields.push({ field: 'title', before: before.title, after: after.title });
  if (before.byline !== after.byline) fields.push({ field: 'byline', before: before.byline, after: after.byline });
  if (before.published !== after.published) fields.push({ field: 'published', before: before.published, after: after.published });
  const blocks = alignBlocks(before.blocks, after.blocks);
  const media = {
    added: after.media.filter((url) => !before.media.includes(url)),
    removed: before.media.filter((url) => !after.media.includes(url)),
  };
  const changed = blocks.filter((change) => change.op === 'changed');
  // A caption comes and goes with its image: it counts as a media change, not a paragraph.
  const countOf = (op: 'added' | 'removed', captions: boolean) =>
    blocks.filter((change) => (change.op === 'added' || change.op === 'removed') && change.op === op && (change.block.kind === 'caption') === captions).length;
  const addedBlocks = countOf('added', false);
  const removedBlocks = countOf('removed', false);
  const addedMedia = media.added.length + countOf('added', true);
  const removedMedia = media.removed.length + countOf('removed', true);
  const editedWords = changed.reduce((sum, change) => sum + change.words.filter((part) => part.op !== 'equal').reduce((n, part) => n + wordCount(part.text), 0), 0);
  const bodyWords = before.blocks.reduce((sum, block) => sum + wordCount(block.text), 0);
  const editedShare = bodyWords === 0 ? (editedWords > 0 ? 1 : 0) : Math.min(1, editedWords / bodyWords);

  const kinds: ChangeKind[] = [];
  const summary: string[] = [];
  for (const field of fields) {
    kinds.push(field.field === 'published' ? 'dates' : field.field);
    summary.push(field.field === 'published' ? `published date ${field.before ?? 'none'} → ${field.after ?? 'none'}` : `${field.field} “${field.before}” → “${field.after}”`);
  }
  if (changed.length > 0) {
    kinds.push('body-edit');
    summary.push(`body edit: ${plural(changed.length, 'block')} edited, ${plural(editedWords, 'word')} changed (${(editedShare * 100).toFixed(1)}% of the text)`);
  }
  if (addedBlocks > 0) {
    kinds.push('paragraphs-added');
    summary.push(`${plural(addedBlocks, 'block')} added`);
  }
  if (removedBlocks > 0) {
    kinds.push('paragraphs-removed');
    summary.push(`${plural(removedBlocks, 'block')} removed`);
  }
  const mediaWords = (urls: number, captions: number) => [urls ? plural(urls, 'media item') : '', captions ? plural(captions, 'caption') : ''].filter(Boolean).join(' and ');
  if (addedMedia > 0) {
    kinds.push('media-added');
    summary.push(`${mediaWords(media.added.length, addedMedia - media.added.length)} added`);
  }
  if (removedMedia > 0) {
    kinds.push('media-removed');
    summary.push(`${mediaWords(media.removed.length, removedMedia - media.removed.length)} removed`);
  }
  return { fields, blocks, media, kinds, editedShare, summary: summary.join('; ') || 'no change' };
}

/**
 * The diff of a version whose object is its predecessor's but for pictures (issue #67): the same
 * URLs now show other pictures (requisites/picture.ts judged them). Its blocks are one run of
 * `blocks` unchanged blocks.
 */
export function pictureDiff(blocks: number, pictures: PictureChange[]): ObjectDiff {
  const size = (side: PictureSide) => (side.width !== null && side.height !== null ? `${side.width}×${side.height}` : side.contentType ?? 'picture');
  const which = pictures.map((change) => `${change.url.split('/').pop() || change.url} (${size(change.before)} → ${size(change.after)})`).join(', ');
  return {
    fields: [], blocks: blocks > 0 ? [{ op: 'equal', count: blocks }] : [], media: { added: [], removed: [] }, pictures, kinds: ['picture-changed'], editedShare: 0,
    summary: `${plural(pictures.length, 'picture')} changed at the same address: ${which}`,
  };
}
