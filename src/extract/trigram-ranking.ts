import { data } from 'franc/data.js';
import { expressions } from 'franc/expressions.js';
import { asTuples } from 'trigram-utils';

/**
 * franc's ranking of languages (`francAll` with no `only`/`ignore`), computed the same way on the
 * same models, only faster. franc scores a text against every language of its script by looking
 * each of the text's trigrams (600 or so in a thousand characters) up in each language's model
 * (an object of 300 keys): with the Latin script's 100-odd languages, about 60,000 dictionary
 * lookups, 3–6 ms a page — as much as the rest of preparing the page, on the third of pages that
 * declare no language (language.ts). Here the models are inverted once per thread: each trigram
 * lists the languages that have it and its rank there, so a text's trigram costs one lookup and
 * a walk over the languages that know it, and a trigram no language has costs nothing beyond the
 * constant every language is charged for it.
 *
 * The distances are the same integers franc computes (Cavnar & Trenkle's out-of-place measure as
 * franc defines it), in the same order of languages, sorted by the same stable sort and
 * normalised by the same arithmetic: the result is franc's to the last bit, which
 * test/unit/trigram-ranking.test.ts checks against franc itself.
 */

/** franc's constants: the text it reads, and the distance a trigram missing from a model adds. */
const MAX_LENGTH = 2048;
const MAX_DIFFERENCE = 300;

export type Ranking = Array<[language: string, score: number]>;

interface ScriptModels {
  languages: string[];
  /** Per trigram: the languages that have it (indexes into `languages`) and its rank in each. */
  postings: Map<string, { languages: Int32Array; ranks: Int32Array }>;
}

let models: Map<string, ScriptModels> | null = null;

/** The models of every script, inverted (built on first use: about 40,000 trigrams in all). */
function scriptModels(): Map<string, ScriptModels> {
  if (models) return models;
  models = new Map();
  for (const [script, byLanguage] of Object.entries(data)) {
    const languages = Object.keys(byLanguage);
    const lists = new Map<string, Array<[number, number]>>();
    languages.forEach((language, index) => {
      const trigrams = byLanguage[language]!.split('|');
      // As franc builds its model: a trigram listed twice keeps its first (lowest) rank.
      const rank = new Map<string, number>();
      for (let weight = trigrams.length - 1; weight >= 0; weight--) rank.set(trigrams[weight]!, weight);
      for (const [trigram, weight] of rank) {
        const list = lists.get(trigram);
        if (list) list.push([index, weight]);
        else lists.set(trigram, [[index, weight]]);
      }
    });
    const postings = new Map<string, { languages: Int32Array; ranks: Int32Array }>();
    for (const [trigram, list] of lists) postings.set(trigram, { languages: Int32Array.from(list, ([language]) => language), ranks: Int32Array.from(list, ([, rank]) => rank) });
    models.set(script, { languages, postings });
  }
  return models;
}

/** franc's script expressions, in its order (the order decides ties). */
const SCRIPTS = Object.entries(expressions);

/** The script whose characters `value` holds most of (franc's getTopScript: the first of equals wins). */
function topScript(value: string): [string | undefined, number] {
  let top: string | undefined;
  let topCount = -1;
  for (const [script, expression] of SCRIPTS) {
    const count = (value.match(expression)?.length ?? 0) / value.length || 0;
    if (count > topCount) {
      topCount = count;
      top = script;
    }
  }
  return [top, topCount];
}

const undetermined = (): Ranking => [['und', 1]];

/** The languages `value` may be written in, best first, with franc's scores (1 for the best). */
export function rankLanguages(value: string, minLength: number): Ranking {
  if (!value || value.length < minLength) return undetermined();
  const text = value.slice(0, MAX_LENGTH);
  const [script, share] = topScript(text);
  const scriptModel = script === undefined ? undefined : scriptModels().get(script);
  if (script === undefined || !scriptModel) {
    // A script only one language is written in (franc's expressions name such scripts by that language).
    return script === undefined || share === 0 ? undetermined() : [[script, 1]];
  }
  const trigrams = asTuples(text);
  const distances = new Float64Array(scriptModel.languages.length).fill(trigrams.length * MAX_DIFFERENCE);
  for (const [trigram, count] of trigrams) {
    const posting = scriptModel.postings.get(trigram);
    if (!posting) continue;
    for (let i = 0; i < posting.languages.length; i++) {
      distances[posting.languages[i]!]! += Math.abs(count - posting.ranks[i]! - 1) - MAX_DIFFERENCE;
    }
  }
  const ranked: Ranking = scriptModel.languages.map((language, index) => [language, distances[index]!]);
  ranked.sort((a, b) => a[1] - b[1]);
  const min = ranked[0]![1];
  const max = text.length * MAX_DIFFERENCE - min;
  for (const entry of ranked) entry[1] = 1 - (entry[1] - min) / max || 0;
  return ranked;
}
