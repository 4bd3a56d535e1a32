import { seededRandom, seedOf } from '../util/random.js';
import { headline, paragraph, personName, sentence, words } from './prose.js';

/** One made-up article of a synthetic site; everything follows from (site, index). */
export interface SyntheticArticle {
  index: number;
  slug: string;
  title: string;
  author: string;
  publishedAt: number;
  summary: string;
  paragraphs: string[];
  image: { file: string; caption: string };
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
    summary: paragraphs[0]!.split('. ')[0]! + '.',
    paragraphs,
    image: { file: `img-${index}.jpg`, caption: sentence(random) },
    quote: random() < 0.6 ? sentence(random) : null,
    list: random() < 0.5 ? Array.from({ length: 3 + Math.floor(random() * 3) }, () => words(random, 4).join(' ')) : null,
    tags: words(random, 2),
  };
}
