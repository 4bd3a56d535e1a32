import { createHash } from 'node:crypto';
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { STATUS_CODES } from 'node:http';
import { WARCRecord, WARCSerializer } from 'warcio';
import { checksOf, versionsOf, type CheckRow, type VersionRow } from '../rules/articles.js';
import { getBlob } from '../rules/captures.js';
import { requisitesOf } from '../rules/requisites.js';
import { rows, type Steps } from '../steps.js';
import { loadCodec } from '../codec.js';
import { z } from 'zod';
import { integer, joinedHeaders, json, nullableInteger, nullableText, text } from '../rows.js';
import { cdxjLines } from './cdxj.js';
import type { ArticleFilter, ArticleSummary, Progress, Store, StoredRequisite } from '../store.js';
import type { ExportSink, ExportReport, WarcOptions, WarcIndexEntry } from '../store.js';

/**
 * Exports of the archive: JSONL (one line per article, every version) and WARC 1.1 (the raw
 * captures as request/response records, revisit records for repeated payloads, and each
 * extracted article as a metadata record referring to its response), and a CDXJ index of the
 * WARC's captures. They write to a sink: a file (written beside the target and renamed into place,
 * so a failed export never leaves half a file under its name) or a response (forest serve).
 */

/**
 * Writes to `path` atomically: everything to a temporary file, then a rename; a failure removes
 * the temporary file. Errors name the file the user asked for, never the temporary one.
 */
class AtomicFile implements ExportSink {
  private readonly temp: string;
  private readonly fd: number;
  bytes = 0;

  constructor(private readonly path: string) {
    this.temp = `${path}.partial-${process.pid}`;
    try {
      this.fd = openSync(this.temp, 'w');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const folder = dirname(path);
      if (code === 'ENOENT') throw new Error(`cannot write ${path}: the folder ${folder} does not exist (create it first)`);
      if (code === 'EACCES' || code === 'EPERM') throw new Error(`cannot write ${path}: no permission to write in ${folder}`);
      if (code === 'ENOTDIR') throw new Error(`cannot write ${path}: part of ${folder} is a file, not a folder`);
      throw new Error(`cannot write ${path}: ${(error as Error).message.replace(this.temp, path)}`);
    }
  }

  /** Runs `work` on a new file at `path`; the file appears only if `work` succeeds. */
  static async write<T>(path: string, work: (file: AtomicFile) => T | Promise<T>): Promise<T> {
    const file = new AtomicFile(path);
    try {
      const result = await work(file);
      file.commit();
      return result;
    } catch (error) {
      file.discard();
      throw error;
    }
  }

  write(data: Uint8Array | string): void {
    const buffer = typeof data === 'string' ? Buffer.from(data) : data;
    writeSync(this.fd, buffer);
    this.bytes += buffer.length;
  }

  private commit(): void {
    closeSync(this.fd);
    renameSync(this.temp, this.path);
  }

  private discard(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed by a failed commit
    }
    rmSync(this.temp, { force: true });
  }
}

/**
 * What an export reads, a backend's rows as both backends store them: exports are built once,
 * here, on these reads (each backend answers them with its own SQL).
 */
export interface ExportSource {
  /** Every article the filter selects, oldest first. */
  exportArticles(filter: ArticleFilter): Promise<ArticleSummary[]>;
  exportVersions(articleId: number): Promise<VersionRow[]>;
  exportChecks(articleId: number): Promise<CheckRow[]>;
  /** The article's captures in the order they were fetched, each with the check and version it made. */
  exportCaptures(articleId: number): Promise<ExportCapture[]>;
  /** A stored body, decoded (the codec is loaded), or null. */
  exportBody(sha256: string): Promise<Buffer | null>;
  /** A capture's requisites (issue #67). */
  exportRequisites(snapshotId: number): Promise<StoredRequisite[]>;
}

/** A version's change kinds, as stored (JSON). */
const changeKinds = z.array(z.string());

async function articleRecord(source: ExportSource, article: ArticleSummary) {
  return {
    ...article,
    versions: (await source.exportVersions(article.id)).map((version) => ({
      n: version.n, capturedAt: version.captured_at, method: version.method, wrapper: version.wrapper_id, hash: version.hash,
      change: json(changeKinds, version.change, `version ${version.n} of article ${version.article_id} (change)`), summary: version.summary,
      title: version.title, byline: version.byline, published: version.published, text: version.text, html: version.html,
    })),
    checks: (await source.exportChecks(article.id)).map((check) => ({ at: check.at, status: check.status, result: check.result, version: check.version_n, reason: check.reason })),
  };
}

export function exportJsonl(source: ExportSource, filter: ArticleFilter, path: string, progress?: Progress): Promise<ExportReport> {
  return AtomicFile.write(path, (file) => writeJsonl(source, filter, file, progress));
}

/** One line per article, with every version and check. */
export async function writeJsonl(source: ExportSource, filter: ArticleFilter, sink: ExportSink, progress?: Progress): Promise<ExportReport> {
  const articles = await source.exportArticles(filter);
  let versions = 0;
  for (const [index, article] of articles.entries()) {
    const record = await articleRecord(source, article);
    versions += record.versions.length;
    await sink.write(`${JSON.stringify(record)}\n`);
    progress?.(index + 1, articles.length);
  }
  return { articles: articles.length, versions, records: { article: articles.length }, bytes: sink.bytes };
}

/** A capture as an export reads it (ExportSource.exportCaptures). */
export const exportCapture = z.object({
  snapshot_id: integer,
  article_id: integer,
  url: text,
  final_url: text,
  fetched_at: text,
  status: integer,
  headers: text,
  content_type: nullableText,
  sha256: nullableText,
  payload_digest: nullableText,
  check_result: nullableText,
  check_reason: nullableText,
  version_n: nullableInteger,
  new_version: nullableInteger,
});
export type ExportCapture = z.infer<typeof exportCapture>;

/** The rows of ExportSource.exportCaptures: snapshots with the check and the version each made (the same SQL on both backends). */
const EXPORT_CAPTURE_QUERY = `SELECT snapshots.id AS snapshot_id, articles.id AS article_id, snapshots.url, snapshots.final_url, snapshots.fetched_at,
      snapshots.status, snapshots.headers, snapshots.content_type, snapshots.sha256, snapshots.payload_digest, checks.result AS check_result, checks.reason AS check_reason, checks.version_n, versions.n AS new_version
    FROM articles JOIN snapshots ON snapshots.item_id = articles.item_id
    LEFT JOIN checks ON checks.snapshot_id = snapshots.id LEFT JOIN versions ON versions.snapshot_id = snapshots.id
    WHERE articles.id = ? ORDER BY snapshots.fetched_at, snapshots.id`;

/**
 * A store's exports, written once: both engines' stores extend this, and give it the list of
 * articles (their dialect's filter) and a way to run a shared rule that reads (steps.ts).
 */
export abstract class ExportingStore implements ExportSource {
  abstract exportArticles(filter: ArticleFilter): Promise<ArticleSummary[]>;
  /** Runs a shared rule that reads, on the store's engine. */
  protected abstract query<T>(steps: Steps<T>): Promise<T>;

  exportVersions(articleId: number) {
    return this.query(versionsOf(articleId));
  }

  exportChecks(articleId: number) {
    return this.query(checksOf(articleId));
  }

  exportCaptures(articleId: number) {
    return this.query(rows(exportCapture, EXPORT_CAPTURE_QUERY, [articleId], 'exportCaptures'));
  }

  exportBody(sha256: string) {
    return this.query(getBlob(sha256));
  }

  exportRequisites(snapshotId: number) {
    return this.query(requisitesOf(snapshotId));
  }

  exportJsonl(...args: Parameters<Store['exportJsonl']>) {
    return exportJsonl(this, ...args);
  }

  exportWarc(...args: Parameters<Store['exportWarc']>) {
    return exportWarc(this, ...args);
  }

  writeJsonl(...args: Parameters<Store['writeJsonl']>) {
    return writeJsonl(this, ...args);
  }

  writeWarc(...args: Parameters<Store['writeWarc']>) {
    return writeWarc(this, ...args);
  }

  writeCdxj(...args: Parameters<Store['writeCdxj']>) {
    return writeCdxj(this, ...args);
  }
}

/**
 * The revisit profile of a capture whose body Forest did not keep because the article object
 * extracted from it was the one already archived (the page differed only around the article: ads,
 * counters). WARC 1.1 §6.7 allows profiles beyond the two it defines; this one is Forest's.
 */
export const SAME_OBJECT_PROFILE = 'https://forest.invalid/warc/revisit/same-article-object';

/** WARC-Date: ISO-8601 UTC to the second (WARC 1.1 allows fractions, readers expect this). */
const warcDate = (iso: string) => `${iso.slice(0, 19)}Z`;

/**
 * HTTP headers as they describe the stored payload: Forest keeps bodies decompressed, so the
 * transfer and content encodings are dropped and the length is the stored one.
 */
function payloadHeaders(stored: Record<string, string>, length: number): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(stored)) {
    if (/^(content-encoding|transfer-encoding|content-length|connection)$/i.test(name)) continue;
    headers[name] = value;
  }
  headers['content-length'] = String(length);
  return headers;
}

export async function exportWarc(source: ExportSource, filter: ArticleFilter, path: string, options: WarcOptions): Promise<ExportReport> {
  return AtomicFile.write(path, (file) => writeWarc(source, filter, file, path.split('/').pop()!, options));
}

/**
 * The CDXJ index of the WARC that writeWarc makes with the same filter and options (cdxj.ts):
 * the WARC is made again without being kept, to learn where each capture's record lies.
 */
export async function writeCdxj(source: ExportSource, filter: ArticleFilter, sink: ExportSink, filename: string, options: Omit<WarcOptions, 'onCapture' | 'progress'>): Promise<{ captures: number; bytes: number }> {
  const entries: WarcIndexEntry[] = [];
  let counted = 0;
  const counter: ExportSink = {
    write: (data) => void (counted += typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength),
    get bytes() {
      return counted;
    },
  };
  await writeWarc(source, filter, counter, filename, { ...options, onCapture: (entry) => entries.push(entry) });
  for (const line of cdxjLines(entries, filename)) await sink.write(`${line}\n`);
  return { captures: entries.length, bytes: sink.bytes };
}

/**
 * A record's WARC-Record-ID, derived from what it records (a UUID in the name-based form of RFC
 * 9562 §5.5, from SHA-1): the same archive exports to the same bytes, so a CDXJ index made from
 * one export points into another one made with the same filter.
 */
function recordId(...name: Array<string | number>): string {
  const hex = createHash('sha1').update(`forest-warc:${name.join(':')}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `<urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}>`;
}

/** When the export's newest capture (or article) was made: the warcinfo's date, so that an unchanged archive exports the same bytes. */
function newestActivity(articles: ArticleSummary[], capturedUntil: string | undefined): string {
  const newest = articles.reduce((latest, article) => {
    const at = article.lastChecked ?? article.firstCaptured;
    return at > latest ? at : latest;
  }, articles[0]?.firstCaptured ?? '1970-01-01T00:00:00.000Z');
  return capturedUntil !== undefined && capturedUntil < newest ? capturedUntil : newest;
}

type FirstResponses = Map<string, { id: string; url: string; date: string; digest: string | null }>;

/**
 * A capture's requisite as a record (issue #67): its first payload in the export as a `response`
 * (or a `resource` when what was fetched for this capture was a 304 to a conditional GET: Forest
 * has the bytes, not a response that carried them then), a payload already written as a
 * `revisit` with WARC 1.1's standard identical-payload-digest profile. Forest keeps a requisite's
 * type and validators, not its other headers. A requisite whose bytes were not kept has no record.
 */
async function writeRequisite(
  source: ExportSource, requisite: StoredRequisite, snapshotId: number, firstResponse: FirstResponses,
  write: (record: WARCRecord) => Promise<{ offset: number; length: number }>, options: WarcOptions,
): Promise<WarcIndexEntry | null> {
  if (requisite.sha256 === null) return null;
  if (options.capturedUntil !== undefined && requisite.fetchedAt > options.capturedUntil) return null;
  const id = recordId('requisite', snapshotId, requisite.url);
  const date = warcDate(requisite.fetchedAt);
  const status = requisite.status === 304 || requisite.status === null ? 200 : requisite.status;
  const seen = firstResponse.get(requisite.sha256);
  let record: WARCRecord;
  if (seen) {
    record = WARCRecord.create({
      url: requisite.url, date, type: 'revisit', warcVersion: 'WARC/1.1', refersToUrl: seen.url, refersToDate: seen.date,
      statusline: `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd(), httpHeaders: requisite.contentType ? { 'content-type': requisite.contentType } : {},
      warcHeaders: {
        'WARC-Record-ID': id, 'WARC-Profile': 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest', 'WARC-Refers-To': seen.id,
        ...(seen.digest ? { 'WARC-Payload-Digest': seen.digest } : {}),
      },
    }, []);
  } else {
    const body = await source.exportBody(requisite.sha256);
    if (!body) return null;
    record = requisite.status === 304
      ? WARCRecord.create({ url: requisite.url, date, type: 'resource', warcVersion: 'WARC/1.1', warcHeaders: { 'WARC-Record-ID': id, 'Content-Type': requisite.contentType ?? 'application/octet-stream' } }, [body])
      : WARCRecord.create({
          url: requisite.url, date, type: 'response', warcVersion: 'WARC/1.1', statusline: `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd(),
          httpHeaders: { ...(requisite.contentType ? { 'content-type': requisite.contentType } : {}), 'content-length': String(body.length) }, warcHeaders: { 'WARC-Record-ID': id },
        }, [body]);
  }
  const at = await write(record);
  const digest = record.warcPayloadDigest ?? record.warcHeader('WARC-Payload-Digest') ?? null;
  if (!seen) firstResponse.set(requisite.sha256, { id, url: requisite.url, date, digest: record.warcPayloadDigest ?? null });
  return { url: requisite.url, date: requisite.fetchedAt, status, mime: requisite.contentType, digest, ...at };
}

export async function writeWarc(source: ExportSource, filter: ArticleFilter, sink: ExportSink, filename: string, options: WarcOptions): Promise<ExportReport> {
  const articles = await source.exportArticles(filter);
  // The captures' bodies are decoded here, on this thread.
  await loadCodec();
  const counts: Record<string, number> = {};
  /** Writes a record and returns where it lies in the output. */
  const write = async (record: WARCRecord): Promise<{ offset: number; length: number }> => {
    const bytes = await WARCSerializer.serialize(record, { gzip: options.gzip });
    const offset = sink.bytes;
    await sink.write(bytes);
    counts[record.warcType] = (counts[record.warcType] ?? 0) + 1;
    return { offset, length: bytes.byteLength };
  };
  const created = newestActivity(articles, options.capturedUntil);
  await write(WARCRecord.createWARCInfo({ filename, warcVersion: 'WARC/1.1', date: warcDate(created), warcHeaders: { 'WARC-Record-ID': recordId('warcinfo', filename, created) } }, {
    software: options.software,
    format: 'WARC File Format 1.1',
    conformsTo: 'http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/',
    description: 'Pages captured by Forest, with the article object extracted from each as a metadata record',
  }));
  // The first response record of each payload, for revisit records of the same bytes.
  const firstResponse: FirstResponses = new Map();
  let versions = 0;
  for (const [index, article] of articles.entries()) {
    const versionRows = new Map((await source.exportVersions(article.id)).map((version) => [version.n, version]));
    // The article's latest response record: what a capture kept without its body refers to.
    let lastResponse: { id: string; url: string; date: string; digest: string | null } | null = null;
    versions += versionRows.size;
    for (const capture of await source.exportCaptures(article.id)) {
      if (options.capturedUntil !== undefined && capture.fetched_at > options.capturedUntil) continue;
      const id = recordId('capture', capture.snapshot_id);
      const body = capture.sha256 ? await source.exportBody(capture.sha256) ?? Buffer.alloc(0) : Buffer.alloc(0);
      const date = warcDate(capture.fetched_at);
      const url = capture.final_url;
      const httpHeaders = payloadHeaders(joinedHeaders(capture.headers, `capture ${capture.snapshot_id} (headers)`), body.length);
      const statusline = `HTTP/1.1 ${capture.status} ${STATUS_CODES[capture.status] ?? ''}`.trimEnd();
      const seen = capture.sha256 ? firstResponse.get(capture.sha256) : undefined;
      let record: WARCRecord;
      if (!capture.sha256 && capture.payload_digest && lastResponse) {
        // Forest kept no body for this capture: its article object was the one already archived.
        record = WARCRecord.create({
          url, date, type: 'revisit', warcVersion: 'WARC/1.1', refersToUrl: lastResponse.url, refersToDate: lastResponse.date, statusline, httpHeaders,
          warcHeaders: { 'WARC-Record-ID': id, 'WARC-Refers-To': lastResponse.id, 'WARC-Payload-Digest': `sha256:${capture.payload_digest}` },
        }, []);
        // warcio's create() writes the identical-payload-digest profile for every revisit.
        record.warcHeaders.headers.set('WARC-Profile', SAME_OBJECT_PROFILE);
      } else if (seen) {
        record = WARCRecord.create({
          url, date, type: 'revisit', warcVersion: 'WARC/1.1', refersToUrl: seen.url, refersToDate: seen.date, statusline, httpHeaders,
          warcHeaders: {
            'WARC-Record-ID': id,
            'WARC-Profile': 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest',
            'WARC-Refers-To': seen.id,
            ...(seen.digest ? { 'WARC-Payload-Digest': seen.digest } : {}),
          },
        }, []);
      } else {
        record = WARCRecord.create({ url, date, type: 'response', warcVersion: 'WARC/1.1', statusline, httpHeaders, warcHeaders: { 'WARC-Record-ID': id } }, [body]);
      }
      // The request as Forest sent it; headers beyond these are not kept.
      const target = new URL(capture.url);
      await write(WARCRecord.create({
        url: capture.url, date, type: 'request', warcVersion: 'WARC/1.1', statusline: `GET ${target.pathname}${target.search} HTTP/1.1`,
        httpHeaders: { host: target.host, 'user-agent': options.software, 'accept-encoding': 'gzip, deflate, br' },
        warcHeaders: { 'WARC-Record-ID': recordId('request', capture.snapshot_id), 'WARC-Concurrent-To': id },
      }, []));
      const at = await write(record);
      options.onCapture?.({
        url, date: capture.fetched_at, status: capture.status, mime: capture.content_type, digest: record.warcPayloadDigest ?? record.warcHeader('WARC-Payload-Digest') ?? null, ...at,
      });
      if (!seen && capture.sha256) firstResponse.set(capture.sha256, { id, url, date, digest: record.warcPayloadDigest ?? null });
      if (record.warcType === 'response') lastResponse = { id, url, date, digest: record.warcPayloadDigest ?? null };
      // The article object as extracted from this capture: the full version when it made one,
      // otherwise what the check found.
      const version = capture.new_version !== null ? versionRows.get(capture.new_version) : undefined;
      const metadata = {
        article: article.id, feed: article.feed, guid: article.guid, check: capture.check_result, reason: capture.check_reason, version: capture.version_n,
        ...(version ? {
          title: version.title, byline: version.byline, published: version.published, method: version.method, wrapper: version.wrapper_id,
          hash: version.hash, change: json(changeKinds, version.change, `version ${version.n} of article ${version.article_id} (change)`), summary: version.summary, text: version.text, html: version.html,
        } : {}),
      };
      await write(WARCRecord.create({
        url, date, type: 'metadata', warcVersion: 'WARC/1.1',
        warcHeaders: { 'WARC-Record-ID': recordId('metadata', capture.snapshot_id), 'WARC-Refers-To': id, 'Content-Type': 'application/json' },
      }, [Buffer.from(JSON.stringify(metadata))]));
      if (capture.sha256) {
        for (const requisite of await source.exportRequisites(capture.snapshot_id)) {
          const entry = await writeRequisite(source, requisite, capture.snapshot_id, firstResponse, write, options);
          if (entry) options.onCapture?.(entry);
        }
      }
    }
    options.progress?.(index + 1, articles.length);
  }
  return { articles: articles.length, versions, records: counts, bytes: sink.bytes };
}
