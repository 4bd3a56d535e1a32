/**
 * `npm run bench:srcset`: how many candidates the `srcset`s of real pages list, and what keeping
 * all of them, the three widest (Forest's cap, requisites/discover.ts) or the widest alone would
 * fetch — on every page of ../shared/datasets. The bytes of those images are not in the datasets
 * (their hosts are gone), so the measure is requests; a candidate's width says what its bytes grow
 * with (area: width²).
 *
 *   npm run bench:srcset [-- --datasets=DIR] [--json]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parseDocument } from 'htmlparser2';
import { isTag, type AnyNode } from 'domhandler';
import { srcsetCandidates } from '../src/requisites/discover.js';
import { LAZY_SRCSET } from '../src/requisites/discover.js';
import { benchArgs } from './args.js';

const args = benchArgs();
const DATASETS = args.get('datasets') ?? join(import.meta.dirname, '..', '..', 'shared', 'datasets');

function* pages(): Generator<string> {
  const benchmark = join(DATASETS, 'article-benchmark', 'html');
  for (const file of readdirSync(benchmark).sort()) yield gunzipSync(readFileSync(join(benchmark, file))).toString('utf8');
  for (const set of readdirSync(join(DATASETS, 'same-template'))) {
    const dir = join(DATASETS, 'same-template', set);
    for (const site of readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
      for (const file of readdirSync(join(dir, site.name)).filter((name) => name.endsWith('.html'))) yield readFileSync(join(dir, site.name, file), 'utf8');
    }
  }
}

function srcsets(nodes: AnyNode[], out: string[]): void {
  for (const node of nodes) {
    if (!isTag(node)) continue;
    for (const [name, value] of Object.entries(node.attribs)) if (name === 'srcset' || LAZY_SRCSET.test(name)) out.push(value);
    srcsets(node.children, out);
  }
}

const widths = (srcset: string) => srcsetCandidates(srcset).map((candidate) => Number(/(\d+)w\b/.exec(candidate.descriptors)?.[1] ?? NaN));
let pageCount = 0;
let withSrcset = 0;
const lists: number[][] = [];
for (const html of pages()) {
  pageCount++;
  const found: string[] = [];
  srcsets(parseDocument(html).children, found);
  if (found.length > 0) withSrcset++;
  for (const srcset of found) lists.push(widths(srcset));
}
const candidates = lists.reduce((sum, list) => sum + list.length, 0);
const keep = (cap: number) => lists.reduce((sum, list) => sum + Math.min(cap, list.length), 0);
// Pixels fetched (width² for width descriptors), against fetching every candidate.
const area = (cap: number) => lists.reduce((sum, list) => sum + list.filter(Number.isFinite).sort((a, b) => b - a).slice(0, cap).reduce((s, w) => s + w * w, 0), 0);
const result = {
  pages: pageCount, pagesWithSrcset: withSrcset, srcsets: lists.length, candidates,
  perSrcset: lists.length ? candidates / lists.length : 0, maxPerSrcset: Math.max(0, ...lists.map((list) => list.length)),
  requests: { all: candidates, three: keep(3), one: keep(1) },
  pixelsShare: { three: area(3) / Math.max(1, area(Infinity)), one: area(1) / Math.max(1, area(Infinity)) },
};
if (args.has('json')) console.log(JSON.stringify(result));
else {
  console.log(`${result.pages} pages, ${result.pagesWithSrcset} with a srcset; ${result.srcsets} srcsets listing ${result.candidates} candidates (${result.perSrcset.toFixed(1)} each, at most ${result.maxPerSrcset})`);
  console.log('| kept per srcset | requests | share of the pixels of every candidate (width²) |');
  console.log('|---|---|---|');
  console.log(`| every candidate | ${result.requests.all} | 100% |`);
  console.log(`| the three widest (Forest) | ${result.requests.three} | ${(100 * result.pixelsShare.three).toFixed(0)}% |`);
  console.log(`| the widest alone | ${result.requests.one} | ${(100 * result.pixelsShare.one).toFixed(0)}% |`);
}
