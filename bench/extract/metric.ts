/**
 * The article-extraction benchmark's metric, exactly (the shared evaluation's definition): tokens
 * are runs of letters, digits and `_` (Unicode); shingles are 4-token windows; per page tp/fp/fn over shingle
 * multisets; precision is the mean over pages with tp + fp > 0, recall the mean over pages with
 * tp + fn > 0 (a page with fp = fn = 0 scores 1); F1 is the harmonic mean of the two means.
 */

export function tokens(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+/gu) ?? [];
}

function shingles(text: string): Map<string, number> {
  const list = tokens(text);
  const out = new Map<string, number>();
  for (let i = 0; i + 4 <= list.length; i++) {
    const key = list.slice(i, i + 4).join(' ');
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

export interface PageScore {
  tp: number;
  fp: number;
  fn: number;
}

export function scorePage(predicted: string, gold: string): PageScore {
  const p = shingles(predicted);
  const g = shingles(gold);
  let tp = 0;
  let fp = 0;
  for (const [key, count] of p) {
    const matched = Math.min(count, g.get(key) ?? 0);
    tp += matched;
    fp += count - matched;
  }
  let goldTotal = 0;
  for (const count of g.values()) goldTotal += count;
  return { tp, fp, fn: goldTotal - tp };
}

export interface Summary {
  precision: number;
  recall: number;
  f1: number;
  pages: number;
}

export function summarize(scores: PageScore[]): Summary {
  const precisions: number[] = [];
  const recalls: number[] = [];
  for (const { tp, fp, fn } of scores) {
    if (fp === 0 && fn === 0) {
      precisions.push(1);
      recalls.push(1);
      continue;
    }
    if (tp + fp > 0) precisions.push(tp / (tp + fp));
    if (tp + fn > 0) recalls.push(tp / (tp + fn));
  }
  const mean = (list: number[]) => (list.length ? list.reduce((a, b) => a + b, 0) / list.length : 0);
  const precision = mean(precisions);
  const recall = mean(recalls);
  return { precision, recall, f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0, pages: scores.length };
}
