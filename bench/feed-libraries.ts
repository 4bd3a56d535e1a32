/**
 * Which feed library? Parses every feed document under the given folders with feedparser (as
 * Forest uses it, through src/feeds) and with rss-parser, and counts what each gets right.
 *
 *   npm run bench:feeds -- DIR…
 *
 * With no folder, the synthetic web's own feeds are used (every format Forest serves, plus a
 * malformed one). Point it at real-world feeds for the evidence that matters.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import RssParser from 'rss-parser';
import { parseFeed } from '../src/feeds/parse.js';
import { decodeBody } from '../src/net/charset.js';
import { makeArticle } from '../src/synthetic/articles.js';
import { renderFeed, type SyntheticFeedFormat } from '../src/synthetic/feed-documents.js';

interface Doc {
  name: string;
  bytes: Buffer;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

function documents(dirs: string[]): Doc[] {
  if (dirs.length === 0) {
    const articles = [0, 1, 2, 3, 4].map((i) => makeArticle('bench', i, Date.UTC(2026, 10, 1, i)));
    const formats: SyntheticFeedFormat[] = ['rss2.0', 'atom1.0', 'rss1.0', 'jsonfeed'];
    return [
      ...formats.map((format) => ({ name: format, bytes: Buffer.from(renderFeed(format, { siteName: 'Bench', siteUrl: 'https://bench.example/', feedUrl: 'https://bench.example/feed', articles })) })),
      { name: 'malformed', bytes: Buffer.from('<rss version="2.0"><channel><title>x &nbsp; y</title><item><title>Fish & chips</title><link>https://bench.example/1</link></item></channel>') },
    ];
  }
  return dirs.flatMap(walk).map((path) => ({ name: path, bytes: readFileSync(path) }))
    .filter((doc) => /<(rss|rdf:RDF|feed)[\s>]|"version"\s*:\s*"https:\/\/jsonfeed/.test(doc.bytes.subarray(0, 4096).toString('latin1')));
}

interface Tally {
  files: number;
  parsed: number;
  items: number;
  dated: number;
  absoluteLinks: number;
  ms: number;
}

const empty = (): Tally => ({ files: 0, parsed: 0, items: 0, dated: 0, absoluteLinks: 0, ms: 0 });
const isAbsolute = (link: string | null | undefined) => Boolean(link && /^https?:\/\//.test(link));
const validDate = (value: string | null | undefined) => Boolean(value && !Number.isNaN(Date.parse(value)) && Date.parse(value) > Date.UTC(1990, 0) && Date.parse(value) < Date.UTC(2100, 0));

async function main(): Promise<void> {
  const docs = documents(process.argv.slice(2));
  const forest = empty();
  const rss = empty();
  const rssParser = new RssParser();
  const failures: Record<string, string[]> = { forest: [], rss: [] };
  for (const doc of docs) {
    const url = 'https://feeds.example/path/feed';
    forest.files++;
    let started = performance.now();
    try {
      const result = await parseFeed(doc.bytes, { url });
      forest.parsed++;
      forest.items += result.items.length;
      forest.dated += result.items.filter((item) => validDate(item.published ?? item.updated)).length;
      forest.absoluteLinks += result.items.filter((item) => isAbsolute(item.link)).length;
    } catch (error) {
      failures['forest']!.push(`${doc.name}: ${(error as Error).message}`);
    }
    forest.ms += performance.now() - started;

    rss.files++;
    started = performance.now();
    try {
      // rss-parser takes text; give it the same decoding Forest uses, so only parsing differs.
      const result = await rssParser.parseString(decodeBody(doc.bytes).text);
      rss.parsed++;
      rss.items += result.items.length;
      rss.dated += result.items.filter((item) => validDate(item.isoDate)).length;
      rss.absoluteLinks += result.items.filter((item) => isAbsolute(item.link)).length;
    } catch (error) {
      failures['rss']!.push(`${doc.name}: ${(error as Error).message.split('\n')[0]}`);
    }
    rss.ms += performance.now() - started;
  }
  const rows = [['library', 'files', 'parsed', 'items', 'items dated', 'abs. links', 'ms total'], ...([['feedparser + Forest', forest], ['rss-parser', rss]] as const).map(([name, t]) => [
    name, String(t.files), `${t.parsed} (${((100 * t.parsed) / t.files).toFixed(1)}%)`, String(t.items),
    `${t.dated} (${t.items ? ((100 * t.dated) / t.items).toFixed(1) : '0'}%)`, `${t.absoluteLinks} (${t.items ? ((100 * t.absoluteLinks) / t.items).toFixed(1) : '0'}%)`, t.ms.toFixed(0),
  ])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  '));
  for (const [name, list] of Object.entries(failures)) {
    if (list.length) console.log(`\n${name} failed on ${list.length}:\n  ${list.slice(0, 8).join('\n  ')}${list.length > 8 ? '\n  …' : ''}`);
  }
}

await main();
