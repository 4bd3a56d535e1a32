import { join } from 'node:path';

/**
 * One process of bench:cpu-share (cpu-share.ts): loads the extraction code, then extracts pages
 * `from`, `from + step`, … of bench:cluster's web as its pool would (extractTask on the stored,
 * encoded page), each once, and prints its CPU as JSON: loading (until the first page) and
 * extraction, and the CPU per page of its first and last hundred pages.
 *
 *   node --import tsx bench/cpu-share-child.ts PAGES HOSTS FROM STEP
 */

const [pages, hosts, from, step] = process.argv.slice(2).map(Number) as [number, number, number, number];
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const { loadCodec, encodeBody } = await import('../src/archive/codec.js');
const { extractTask } = await import('../src/daemon/tasks.js');
const { dressedPage, pageOf, sites, titleOf } = await import('./scale/pages.js');
await loadCodec();
const SITES = sites(join(import.meta.dirname, '..', '..', 'shared', 'datasets'));
const loaded = cpuMs();

const perPage: number[] = [];
for (let feed = from; feed < pages; feed += step) {
  // As bench:cluster's web serves the page of feed `feed`'s backlog item (web.ts, `page`): its site's files, the CDN's fonts and a photograph named.
  const bytes = dressedPage(pageOf(SITES, hosts, feed, 0), { cdn: 'http://127.0.255.1:8080', photo: `/images/${feed}-0.jpg`, promo: feed });
  const { encoding, data } = encodeBody(bytes);
  const before = cpuMs();
  extractTask({
    page: { body: { encoding, data }, contentType: 'text/html; charset=utf-8', url: `http://127.1.${feed % 250}.${1 + (feed % hosts) % 250}:8080/post/${feed}`, feed: { title: titleOf(bytes), summary: null, published: null, updated: null, author: null } },
    maxBytes: 5_000_000, templates: [], compare: null,
  });
  perPage.push(cpuMs() - before);
}
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
console.log(JSON.stringify({
  loadCpuMs: loaded, extractCpuMs: perPage.reduce((sum, ms) => sum + ms, 0), pages: perPage.length,
  firstHundredMsPerPage: mean(perPage.slice(0, 100)), lastHundredMsPerPage: mean(perPage.slice(-100)),
}));
