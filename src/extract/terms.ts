import { stemmer } from 'stemmer';
import { eng } from 'stopword';

/** Words of a text: runs of Unicode letters, digits and `_`, lower-cased. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
}

const STOP = new Set(eng);

/**
 * Terms in the information-retrieval sense (FOREST §3.1): tokenized, stop words removed,
 * stemmed (Porter). Signifiers and the x/y counts of §3.3 are both in terms.
 */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const word of words(text)) {
    if (STOP.has(word) || word.length < 2 || /^\d+$/.test(word)) continue;
    out.push(stemmer(word));
  }
  return out;
}

export function termOfWord(word: string): string | null {
  return STOP.has(word) || word.length < 2 || /^\d+$/.test(word) ? null : stemmer(word);
}
