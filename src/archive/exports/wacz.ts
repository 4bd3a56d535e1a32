import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { finished } from 'node:stream/promises';
import archiver from 'archiver';
import type { ArchiveReader, ArticleFilter, ArticleSummary, ExportReport, WarcOptions } from '../store.js';

/**
 * WACZ 1.1.1 (the Webrecorder package format that ReplayWeb.page, pywb and browsertrix
 * exchange): a zip, its entries stored uncompressed, holding the captures' WARC
 * (`archive/data.warc.gz`), its CDXJ index (`indexes/index.cdxj`, offsets into that WARC),
 * `pages/pages.jsonl` — one line per article with its title, first capture time and text, so a
 * replay tool lists and searches them — and `datapackage.json` with every file's SHA-256, itself
 * digested in `datapackage-digest.json`. Built on Store reads (the WARC and CDXJ exports, the
 * articles), the same for any backend. @harvard-lil/js-wacz was tried first and not kept: its
 * 0.1.6 hashes every file given by path twice over (it pipes the stream into the hash and also
 * feeds it each chunk), so its datapackage.json digests of the WARC and pages are wrong (checked
 * with Python's zipfile). The zip is archiver's, the maintained streaming zip writer.
 */

const WARC_NAME = 'data.warc.gz';
const PAGE_BATCH = 200;

/** Every article the filter selects, newest first, a batch at a time. */
async function* articlesOf(store: ArchiveReader, filter: ArticleFilter): AsyncGenerator<ArticleSummary> {
  let cursor = null;
  do {
    const page = await store.articlesAfter(filter, cursor, PAGE_BATCH);
    yield* page.articles;
    cursor = page.next;
  } while (cursor !== null);
}

/** pages.jsonl: the header line, then one line per article (its latest version's title and text). */
async function pagesJsonl(store: ArchiveReader, filter: ArticleFilter, capturedUntil: string | undefined): Promise<string> {
  const lines = [JSON.stringify({ format: 'json-pages-1.0', id: 'pages', title: 'Articles archived by Forest', hasText: true })];
  for await (const summary of articlesOf(store, filter)) {
    if (capturedUntil !== undefined && summary.firstCaptured > capturedUntil) continue;
    const [article, versions] = await Promise.all([store.article(summary.id), store.versions(summary.id)]);
    const latest = versions.filter((version) => capturedUntil === undefined || version.capturedAt <= capturedUntil).at(-1);
    lines.push(JSON.stringify({ id: `article-${summary.id}`, url: article?.finalUrl ?? summary.url, ts: summary.firstCaptured, title: latest?.title ?? summary.title ?? undefined, text: latest?.text ?? '' }));
  }
  return `${lines.join('\n')}\n`;
}

const sha256 = (data: Buffer) => `sha256:${createHash('sha256').update(data).digest('hex')}`;

async function fileDigest(path: string): Promise<{ hash: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { hash: `sha256:${hash.digest('hex')}`, bytes };
}

/** Writes the WACZ of the articles `filter` selects to `path` (beside it first, then renamed into place). */
export async function exportWacz(store: ArchiveReader, filter: ArticleFilter, path: string, options: Pick<WarcOptions, 'software' | 'progress' | 'capturedUntil'>): Promise<ExportReport> {
  const work = mkdtempSync(join(tmpdir(), 'forest-wacz-'));
  const partial = join(dirname(path), `.${WARC_NAME}.${process.pid}.partial.wacz`);
  try {
    const warc = join(work, WARC_NAME);
    const report = await store.exportWarc(filter, warc, { gzip: true, ...options });
    // The index of the same WARC: the export is deterministic (record ids and dates come from
    // the archive), so the offsets it computes point into the file just written.
    let cdxj = '';
    await store.writeCdxj(filter, { write: (data) => void (cdxj += typeof data === 'string' ? data : Buffer.from(data).toString('utf8')), get bytes() { return Buffer.byteLength(cdxj); } }, WARC_NAME, { gzip: true, software: options.software, ...(options.capturedUntil !== undefined ? { capturedUntil: options.capturedUntil } : {}) });
    const index = Buffer.from(cdxj);
    const pages = Buffer.from(await pagesJsonl(store, filter, options.capturedUntil));
    const resources = [
      { name: WARC_NAME, path: `archive/${WARC_NAME}`, ...(await fileDigest(warc)) },
      { name: 'index.cdxj', path: 'indexes/index.cdxj', hash: sha256(index), bytes: index.length },
      { name: 'pages.jsonl', path: 'pages/pages.jsonl', hash: sha256(pages), bytes: pages.length },
    ];
    const datapackage = Buffer.from(JSON.stringify({
      profile: 'data-package', wacz_version: '1.1.1', title: 'Forest export', description: `Pages captured by ${options.software}, with the article object of each`,
      created: new Date().toISOString(), software: options.software, resources,
    }, null, 2));
    const digest = Buffer.from(JSON.stringify({ path: 'datapackage.json', hash: sha256(datapackage) }, null, 2));

    const zip = archiver('zip', { store: true });
    const output = createWriteStream(partial);
    zip.pipe(output);
    zip.file(warc, { name: `archive/${WARC_NAME}` });
    zip.append(index, { name: 'indexes/index.cdxj' });
    zip.append(pages, { name: 'pages/pages.jsonl' });
    zip.append(datapackage, { name: 'datapackage.json' });
    zip.append(digest, { name: 'datapackage-digest.json' });
    await Promise.all([zip.finalize(), finished(output)]);
    renameSync(partial, path);
    return report;
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(partial, { force: true });
  }
}
