import type { Element } from 'domhandler';
import { stopWordsOf, words } from './terms.js';
import { rankLanguages } from './trigram-ranking.js';

/**
 * The language of a page (issue #10), which sets the rules of its terms (terms.ts): what it
 * declares — `<html lang>`, then `<meta http-equiv="content-language">`, `og:locale` or
 * `<meta name="language">` — else what its text is written in, by franc (trigram profiles of
 * the Universal Declaration of Human Rights' translations, Cavnar & Trenkle's n-gram method).
 * franc is a well-kept library (wooorm) and needs no model download; its default build knows 187
 * languages, all but two (Basque, Irish) of those Forest has stop words for. Its ranking is
 * computed by trigram-ranking.ts: franc's, to the last bit, several times faster.
 */

/** Less text than this (characters) says too little for a guess to be trusted. */
export const MIN_DETECT_CHARS = 200;
/**
 * The prose looked at. Cavnar & Trenkle ("N-Gram-Based Text Categorization", 1994) classified
 * 99.8 % of texts of 300 bytes or more right; a thousand characters of prose is three times
 * that. franc's cost grows with the text up to the 2,048 characters it reads: on the shared
 * datasets' 608 pages a thousand characters of prose took 2.9 ms a page against 5.2 ms for the
 * first 4,000 characters of the page, and told the language of six more pages, changing none.
 */
export const MAX_DETECT_CHARS = 1000;
/** A leaf this long (characters) is prose — a sentence or more; menus, labels and dates are shorter. */
export const PROSE_CHARS = 80;
/**
 * The guess must stand this far above the next one (franc's scores run from 1 for the best down
 * to 0); a page in two languages, or too mixed to tell, keeps no language.
 */
const MARGIN = 0.05;

/** ISO 639-3 codes franc answers with, as the two-letter tags pages declare (for those Forest has stop words for, and English). */
const TWO_LETTER: Record<string, string> = {
  afr: 'af', arb: 'ar', bul: 'bg', cat: 'ca', ces: 'cs', dan: 'da', deu: 'de', ell: 'el', eng: 'en', spa: 'es', ekk: 'et', pes: 'fa',
  fin: 'fi', fra: 'fr', glg: 'gl', heb: 'he', hin: 'hi', hrv: 'hr', hun: 'hu', hye: 'hy', ind: 'id', ita: 'it', lit: 'lt', lvs: 'lv',
  zlm: 'ms', nob: 'nb', nld: 'nl', pol: 'pl', por: 'pt', ron: 'ro', rus: 'ru', slk: 'sk', slv: 'sl', swe: 'sv', tur: 'tr', ukr: 'uk', vie: 'vi',
};

/** The language the page declares (`<html lang>`, else a language `<meta>` among its declarations), if any. */
export function declaredLanguage(html: Element | undefined, declarations: readonly Element[]): string | null {
  const lang = html?.attribs['lang']?.trim() || html?.attribs['xml:lang']?.trim();
  if (lang) return lang;
  for (const element of declarations) {
    if (element.name !== 'meta') continue;
    const key = (element.attribs['http-equiv'] ?? element.attribs['property'] ?? element.attribs['name'] ?? '').toLowerCase();
    const content = element.attribs['content']?.trim();
    if (content && (key === 'content-language' || key === 'og:locale' || key === 'language')) return content.split(',')[0]!.trim();
  }
  return null;
}

/** The language `text` is written in, as a language tag, or null when it is too short or too mixed to tell. */
export function detectedLanguage(text: string): string | null {
  const sample = text.length > MAX_DETECT_CHARS ? text.slice(0, MAX_DETECT_CHARS) : text;
  if (sample.replace(/\s+/g, ' ').trim().length < MIN_DETECT_CHARS) return null;
  const ranked = rankLanguages(sample, MIN_DETECT_CHARS);
  const best = ranked[0];
  if (!best || best[0] === 'und') return null;
  const close = ranked.filter(([, score]) => best[1] - score < MARGIN);
  return close.length === 1 ? tagOf(best[0]) : byFunctionWords(sample, close.map(([code]) => code));
}

const tagOf = (code: string) => TWO_LETTER[code] ?? code;

/**
 * Stop words make at least this share of a text's words for it to be in their language: function
 * words are about half of running text (the hundred commonest English words make half of what
 * is written), a list of names or labels holds few.
 */
export const MIN_STOP_SHARE = 0.2;

/**
 * Of languages whose trigram scores are too close to tell (franc scores English within MARGIN of
 * Scots on most English pages: 189 of the shared datasets' 201 pages without a language), the one
 * whose function words the text is made of. Grefenstette ("Comparing two language identification
 * schemes", JADT 1995) found common short words as reliable as trigrams once a text has a few
 * sentences. Only languages Forest has stop words for can win (Scots has none: a page in Scots is
 * told English, the closest language with rules); the winner's share must stand MARGIN above the
 * next, as its trigram score had to.
 */
export function byFunctionWords(sample: string, codes: string[]): string | null {
  const tokens = words(sample);
  if (tokens.length === 0) return null;
  const shares = codes
    .flatMap((code) => {
      const stop = stopWordsOf(tagOf(code));
      return stop ? [{ code, share: tokens.filter((word) => stop.has(word)).length / tokens.length }] : [];
    })
    .sort((a, b) => b.share - a.share);
  const [first, second] = shares;
  if (!first || first.share < MIN_STOP_SHARE || (second && first.share - second.share < MARGIN)) return null;
  return tagOf(first.code);
}
