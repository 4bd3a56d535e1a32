import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ExportSink } from '../archive/store.js';
import type { ArticleFilter, WebArchive } from '../archive/store.js';
import type { Settings } from '../config/settings.js';
import type { Logger } from '../util/logger.js';
import { FOREST_SOFTWARE } from '../util/project-root.js';
import { isoTime, utc } from './api.js';
import { requireBearer } from './writes.js';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportWacz } from '../archive/exports/wacz.js';

/**
 * Exports over HTTP, streamed as they are written (an archive's WARC does not fit in memory):
 * the JSONL of articles and versions, the WARC of the raw captures, and the CDXJ index of that
 * WARC. They hand out the whole archive, so each needs the token, like writes.
 *
 * `until` cuts the captures as well as the articles: a WARC and a CDXJ index asked for with the
 * same filter describe the same bytes (record ids and the warcinfo date are derived from the
 * archive), even while the daemon goes on archiving.
 */

const WARC_NAME = 'export.warc.gz';

const filterSchema = {
  type: 'object', additionalProperties: false,
  properties: { feed: { type: 'string', description: 'a feed URL, as subscribed or as fetched' }, since: isoTime, until: { ...isoTime, description: 'captures and articles up to this time' } },
} as const;

type FilterQuery = { Querystring: { feed?: string; since?: string; until?: string } };

const filterOf = (query: FilterQuery['Querystring']): ArticleFilter => ({ feed: query.feed, since: utc(query.since), until: utc(query.until) });

/** A response body written as the export goes, waiting whenever the client reads slower than the archive is read. */
function responseSink(stream: PassThrough): ExportSink {
  let bytes = 0;
  return {
    get bytes() {
      return bytes;
    },
    async write(data) {
      if (stream.destroyed) throw new Error('the client went away');
      const chunk = typeof data === 'string' ? Buffer.from(data) : data;
      bytes += chunk.byteLength;
      if (!stream.write(chunk)) await Promise.race([once(stream, 'drain'), once(stream, 'close')]);
    },
  };
}

/** Sends what `work` writes; a failure half-way cuts the response short (its headers are gone) and is logged. */
function stream(reply: FastifyReply, log: Logger, route: string, work: (sink: ExportSink) => Promise<unknown>) {
  const body = new PassThrough();
  work(responseSink(body)).then(() => body.end(), (error: unknown) => {
    if (!body.destroyed) log.error({ err: error, route }, 'export failed');
    body.destroy(error instanceof Error ? error : new Error(String(error)));
  });
  return reply.send(body);
}

export function exportRoutes(app: FastifyInstance, store: WebArchive, settings: Pick<Settings, 'serve'>, log: Logger): void {
  const protectedExport = { onRequest: async (request: FastifyRequest) => requireBearer(request, settings.serve.token, 'exports') };
  const security = [{ bearer: [] }];

  app.get<FilterQuery>('/api/v1/export.jsonl', {
    ...protectedExport,
    schema: { summary: 'Every article with its versions and checks, one JSON object per line (needs the token)', tags: ['export'], security, querystring: filterSchema },
  }, async (request, reply) => {
    reply.type('application/x-ndjson; charset=utf-8').header('content-disposition', 'attachment; filename="export.jsonl"');
    return stream(reply, log, request.url, (sink) => store.writeJsonl(filterOf(request.query), sink));
  });

  app.get<FilterQuery>('/export.warc.gz', {
    ...protectedExport,
    schema: { summary: 'The raw captures as WARC 1.1, a gzip member per record, with each extracted article as a metadata record (needs the token)', tags: ['export'], security, querystring: filterSchema },
  }, async (request, reply) => {
    const filter = filterOf(request.query);
    reply.type('application/warc').header('content-disposition', `attachment; filename="${WARC_NAME}"`);
    return stream(reply, log, request.url, (sink) => store.writeWarc(filter, sink, WARC_NAME, { gzip: true, software: FOREST_SOFTWARE, capturedUntil: filter.until }));
  });

  app.get<FilterQuery>('/export.wacz', {
    ...protectedExport,
    schema: { summary: 'The captures as a WACZ package (WARC, CDXJ index, pages.jsonl with each article\'s text, datapackage.json), for replay tools (needs the token)', tags: ['export'], security, querystring: filterSchema },
  }, async (request, reply) => {
    const filter = filterOf(request.query);
    // A WACZ is a zip whose index comes last: it is made in a temporary file, then sent.
    const work = mkdtempSync(join(tmpdir(), 'forest-wacz-'));
    const file = join(work, 'export.wacz');
    try {
      await exportWacz(store, filter, file, { software: FOREST_SOFTWARE, capturedUntil: filter.until });
    } catch (error) {
      rmSync(work, { recursive: true, force: true });
      throw error;
    }
    const body = createReadStream(file);
    body.on('close', () => rmSync(work, { recursive: true, force: true }));
    return reply.type('application/wacz').header('content-disposition', 'attachment; filename="export.wacz"').send(body);
  });

  app.get<FilterQuery>('/export.cdxj', {
    ...protectedExport,
    schema: { summary: 'The CDXJ index of /export.warc.gz asked for with the same filter, for pywb-style replay (needs the token)', tags: ['export'], security, querystring: filterSchema },
  }, async (request, reply) => {
    const filter = filterOf(request.query);
    reply.type('text/plain; charset=utf-8').header('content-disposition', 'attachment; filename="export.cdxj"');
    return stream(reply, log, request.url, (sink) => store.writeCdxj(filter, sink, WARC_NAME, { gzip: true, software: FOREST_SOFTWARE, capturedUntil: filter.until }));
  });
}
