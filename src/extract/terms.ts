import { stemmer } from 'stemmer';
import * as stopwords from 'stopword';

/** What a word is made of: Unicode letters, digits and `_` (one class for every word pattern here). */
const WORD_CHARS = String.raw`\p{L}\p{N}_`;

/** Whether a code point is a word character, for the Basic Multilingual Plane: 0 not yet asked, 1 yes, 2 no. */
const WORD_CHAR = new RegExp(`[${WORD_CHARS}]`, 'u');
const isWordCharCache = new Uint8Array(0x10000);
for (let code = 0; code < 128; code++) isWordCharCache[code] = WORD_CHAR.test(String.fromCharCode(code)) ? 1 : 2;
function isWordChar(point: number): boolean {
  if (point > 0xffff) return WORD_CHAR.test(String.fromCodePoint(point));
  let known = isWordCharCache[point]!;
  if (known === 0) isWordCharCache[point] = known = WORD_CHAR.test(String.fromCharCode(point)) ? 1 : 2;
  return known === 1;
}

/**
 * How many runs of letters, digits and `_` `text` holds — `words(text).length` without the
 * lower-casing (which splits a few letters: "İ" becomes "i" and a combining dot) — without making
 * them: counting every text node's words (link density, the maximum subsequence) allocated a
 * sixteenth of what extraction does, arrays of strings only to take their length. One pass over
 * the characters, each looked up once in a table (the Unicode class is asked once per character
 * ever seen): a step of the regular expressions per run took 8% of learning a wrapper on a
 * site whose pages carry long comment threads.
 */
export function countWordRuns(text: string): number {
  let count = 0;
  let inWord = false;
  for (let at = 0; at < text.length; at++) {
    const point = text.codePointAt(at)!;
    if (point > 0xffff) at++;
    const word = isWordChar(point);
    if (word && !inWord) count++;
    inWord = word;
  }
  return count;
}

/**
 * Words of a text: runs of Unicode letters, digits and `_`, lower-cased — what `[WORD_CHARS]+`
 * matches in the lower-cased text, found by the same pass as countWordRuns: twice as fast as the
 * expression on pages with a typographic quote or an accented letter in most paragraphs.
 */
export function words(text: string): string[] {
  const lower = text.toLowerCase();
  const found: string[] = [];
  let start = -1;
  for (let at = 0; at < lower.length; at++) {
    const point = lower.codePointAt(at)!;
    if (isWordChar(point)) {
      if (start < 0) start = at;
    } else if (start >= 0) {
      found.push(lower.slice(start, at));
      start = -1;
    }
    if (point > 0xffff) at++;
  }
  if (start >= 0) found.push(lower.slice(start));
  return found;
}

/** How a language's words become terms: its stop words, and its stemmer. */
export interface TermRules {
  stop: ReadonlySet<string>;
  stem: (word: string) => string;
}

/**
 * Porter's stemmer, remembered: words repeat (a page's words are mostly a few hundred distinct
 * ones, and a site's pages share most of them), and stemming each occurrence was 3% of learning a
 * wrapper. The memory is dropped whole when it holds STEMS_KEPT words, so a daemon that reads
 * millions of distinct tokens over months holds at most that many.
 */
const STEMS_KEPT = 50_000;
const stems = new Map<string, string>();
function rememberedStem(word: string): string {
  let stem = stems.get(word);
  if (stem === undefined) {
    if (stems.size >= STEMS_KEPT) stems.clear();
    stem = stemmer(word);
    stems.set(word, stem);
  }
  return stem;
}

/** English: the stop word list, and Porter's stemmer (the only stemmer Forest ships). */
export const ENGLISH: TermRules = { stop: new Set(stopwords.eng), stem: rememberedStem };

/**
 * The stop word lists of the `stopword` package (ISO 639-3 names) by the primary subtag a page
 * declares (`<html lang="de-AT">` → de). A page in a language of this table has its own stop
 * words and its words unstemmed (Porter's rules are English: on a German word they only do harm);
 * a page without a language, or in another, keeps the English rules.
 */
const LISTS: Record<string, readonly string[]> = {
  af: stopwords.afr, ar: stopwords.ara, bg: stopwords.bul, ca: stopwords.cat, cs: stopwords.ces, da: stopwords.dan, de: stopwords.deu, el: stopwords.ell,
  es: stopwords.spa, et: stopwords.est, eu: stopwords.eus, fa: stopwords.fas, fi: stopwords.fin, fr: stopwords.fra, ga: stopwords.gle, gl: stopwords.glg,
  he: stopwords.heb, hi: stopwords.hin, hr: stopwords.hrv, hu: stopwords.hun, hy: stopwords.hye, id: stopwords.ind, it: stopwords.ita, lt: stopwords.lit,
  lv: stopwords.lav, ms: stopwords.msa, nb: stopwords.nob, nl: stopwords.nld, no: stopwords.nob, pl: stopwords.pol, pt: stopwords.por, ro: stopwords.ron,
  ru: stopwords.rus, sk: stopwords.slk, sl: stopwords.slv, sv: stopwords.swe, tr: stopwords.tur, uk: stopwords.ukr, vi: stopwords.vie,
};

const byLanguage = new Map<string, TermRules>();
const primary = (language: string | null | undefined) => (language ?? '').trim().toLowerCase().split(/[-_]/)[0] ?? '';

/** The term rules of a language tag (`en`, `de-DE`, `pt_BR`, …); English when unknown or absent. */
export function termRules(language: string | null | undefined): TermRules {
  const code = primary(language);
  const list = LISTS[code];
  if (!list) return ENGLISH;
  let rules = byLanguage.get(code);
  if (!rules) {
    rules = { stop: new Set(list), stem: (word) => word };
    byLanguage.set(code, rules);
  }
  return rules;
}

/** The stop words of a language tag, or null when Forest has no list for it. */
export function stopWordsOf(language: string): ReadonlySet<string> | null {
  const code = primary(language);
  if (code === 'en') return ENGLISH.stop;
  return LISTS[code] ? termRules(code).stop : null;
}

/**
 * Terms in the information-retrieval sense (FOREST §3.1): tokenized, stop words removed,
 * stemmed — by the rules of the page's language.
 */
export function terms(text: string, rules: TermRules = ENGLISH): string[] {
  const out: string[] = [];
  for (const word of words(text)) {
    const term = termOfWord(word, rules);
    if (term !== null) out.push(term);
  }
  return out;
}

export function termOfWord(word: string, rules: TermRules = ENGLISH): string | null {
  return rules.stop.has(word) || word.length < 2 || /^\d+$/.test(word) ? null : rules.stem(word);
}
