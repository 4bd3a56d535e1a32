import { seededRandom, seedOf } from '../util/random.js';
import { capitalize, headline, paragraph, personName, sentence, words } from './prose.js';

/** One made-up article of a synthetic site; everything follows from (site, index). */
export interface SyntheticArticle {
  index: number;
  slug: string;
  title: string;
  author: string;
  publishedAt: number;
  /** The time of the last edit applied (publishedAt until then). */
  updatedAt: number;
  /** How many scripted edits this copy has had. */
  revision: number;
  summary: string;
  paragraphs: string[];
  image: { file: string; caption: string } | null;
  quote: string | null;
  list: string[] | null;
  tags: string[];
}

export function makeArticle(site: string, index: number, publishedAt: number): SyntheticArticle {
  const random = seededRandom(seedOf(`${site}#${index}`));
  const title = headline(random);
  const paragraphs = Array.from({ length: 4 + Math.floor(random() * 5) }, () => paragraph(random));
  return {
    index,
    slug: `${String(index).padStart(4, '0')}-${title.toLowerCase().split(' ').slice(0, 4).join('-')}`,
    title,
    author: personName(random),
    publishedAt,
    updatedAt: publishedAt,
    revision: 0,
    summary: paragraphs[0]!.split('. ')[0]! + '.',
    paragraphs,
    image: { file: `img-${index}.jpg`, caption: sentence(random) },
    quote: random() < 0.6 ? sentence(random) : null,
    list: random() < 0.5 ? Array.from({ length: 3 + Math.floor(random() * 3) }, () => words(random, 4).join(' ')) : null,
    tags: words(random, 2),
  };
}

/** The edits a newsroom makes after publishing; each changes the article object itself. */
export type EditKind = 'correct-word' | 'add-paragraph' | 'change-headline' | 'remove-image';

export const EDIT_KINDS: readonly EditKind[] = ['correct-word', 'add-paragraph', 'change-headline', 'remove-image'];

/** An edit of article `index` of `site`, made `after` ms (clock time) after the web's clock starts. */
export interface ScriptedEdit {
  site: string;
  index: number;
  after: number;
  kind: EditKind;
}

/** The article with one more edit applied (a new object; deterministic), or the same article when the edit changes nothing. */
export function applyEdit(article: SyntheticArticle, kind: EditKind, at: number): SyntheticArticle {
  // An image already gone cannot be removed again: no edit, no new revision.
  if (kind === 'remove-image' && article.image === null) return article;
  const random = seededRandom(seedOf(`${article.slug}#edit${article.revision}`));
  const edited: SyntheticArticle = { ...article, paragraphs: [...article.paragraphs], updatedAt: at, revision: article.revision + 1 };
  if (kind === 'correct-word') {
    // A correction: one word of the second paragraph replaced by another.
    const target = Math.min(1, edited.paragraphs.length - 1);
    const list = edited.paragraphs[target]!.split(' ');
    const position = Math.min(3, list.length - 1);
    const replacement = words(random, 6).find((word) => word !== list[position]!.toLowerCase()) ?? 'amended';
    list[position] = replacement;
    edited.paragraphs[target] = list.join(' ');
  } else if (kind === 'add-paragraph') {
    edited.paragraphs.push(`Update: ${paragraph(random)}`);
  } else if (kind === 'change-headline') {
    edited.title = `${article.title} ${capitalize(words(random, 1)[0]!)} Confirmed`;
  } else {
    edited.image = null;
  }
  return edited;
}
