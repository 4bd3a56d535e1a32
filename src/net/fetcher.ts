import got, { RequestError, type Headers } from 'got';
import { HostQueue } from './host-queue.js';
import { retryAfterMs } from './retry-after.js';

export interface FetcherOptions {
  userAgent: string;
  connectTimeout: number;
  timeout: number;
  maxBodySize: number;
  maxRedirects: number;
  concurrency: number;
  perHostDelay: number;
}

export interface ConditionalHeaders {
  etag?: string | null;
  lastModified?: string | null;
}

export interface Redirect {
  status: number;
  from: string;
  to: string;
}

export interface FetchResult {
  url: string;
  finalUrl: string;
  status: number;
  headers: Record<string, string>;
  contentType: string | null;
  /** Decompressed body (empty on 304). */
  body: Buffer;
  redirects: Redirect[];
  /** The new address when every redirect on the way was permanent (301/308); otherwise null. */
  permanentUrl: string | null;
  notModified: boolean;
  /** From Retry-After on 429/503. */
  retryAfterMs: number | null;
  fetchedAt: Date;
  durationMs: number;
}

export type FetchErrorKind = 'timeout' | 'dns' | 'connection' | 'too-large' | 'redirects' | 'aborted' | 'invalid-url' | 'other';

/** A request that produced no HTTP response worth keeping. HTTP error statuses are results, not FetchErrors. */
export class FetchError extends Error {
  override name = 'FetchError';
  constructor(readonly kind: FetchErrorKind, message: string, readonly url: string, readonly durationMs: number) {
    super(message);
  }
}

function flatHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

function headerFromRaw(raw: string[], name: string): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) return raw[i + 1];
  return undefined;
}

function classify(error: unknown, url: string, durationMs: number, maxBodySize: number): FetchError {
  if (error instanceof FetchError) return error;
  if (error instanceof RequestError) {
    const code = error.code;
    if (code === 'ETIMEDOUT' || error.name === 'TimeoutError') return new FetchError('timeout', `timed out (${error.message})`, url, durationMs);
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new FetchError('dns', `host not found: ${new URL(url).host}`, url, durationMs);
    if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EPIPE') {
      return new FetchError('connection', `connection failed (${code})`, url, durationMs);
    }
    if (code === 'ERR_TOO_MANY_REDIRECTS') return new FetchError('redirects', error.message, url, durationMs);
    if (code === 'ERR_BODY_TOO_LARGE') return new FetchError('too-large', `body larger than ${maxBodySize} bytes`, url, durationMs);
    if (code === 'ERR_ABORTED' || error.name === 'AbortError') return new FetchError('aborted', 'aborted', url, durationMs);
    return new FetchError('other', `${code ? `${code}: ` : ''}${error.message}`, url, durationMs);
  }
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && error.name === 'AbortError') return new FetchError('aborted', 'aborted', url, durationMs);
  return new FetchError('other', message, url, durationMs);
}

/**
 * The one HTTP client of Forest (on got): conditional GET, gzip/deflate/brotli, redirects with
 * their statuses recorded, connect and total timeouts, a cap on the decompressed body (a gzip
 * bomb stops at the cap, not at the end of memory), and per-host politeness.
 */
export class Fetcher {
  private readonly queue: HostQueue;

  constructor(private readonly options: FetcherOptions) {
    this.queue = new HostQueue(options.concurrency, options.perHostDelay);
  }

  /** When `host` may take its next request (see HostQueue.readyAt). */
  readyAt(host: string): number {
    return this.queue.readyAt(host);
  }

  /** Hosts busy or resting after a request. */
  get unreadyHosts(): number {
    return this.queue.unreadyHosts;
  }

  /** No request starts after this; waiting ones fail as aborted. */
  close(): void {
    this.queue.close();
  }

  async fetch(url: string, conditional: ConditionalHeaders = {}, signal?: AbortSignal): Promise<FetchResult> {
    let host: string;
    try {
      const parsed = new URL(url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`unsupported scheme ${parsed.protocol}`);
      host = parsed.host;
    } catch (error) {
      throw new FetchError('invalid-url', `invalid URL: ${(error as Error).message}`, url, 0);
    }
    try {
      return await this.queue.run(host, () => this.request(url, conditional, signal), signal);
    } catch (error) {
      throw classify(error, url, 0, this.options.maxBodySize);
    }
  }

  private async request(url: string, conditional: ConditionalHeaders, signal?: AbortSignal): Promise<FetchResult> {
    const started = performance.now();
    const fetchedAt = new Date();
    const redirects: Redirect[] = [];
    const headers: Record<string, string> = {
      'user-agent': this.options.userAgent,
      accept: 'application/atom+xml, application/rss+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, text/html;q=0.8, */*;q=0.5',
    };
    if (conditional.etag) headers['if-none-match'] = conditional.etag;
    if (conditional.lastModified) headers['if-modified-since'] = conditional.lastModified;
    const max = this.options.maxBodySize;
    const stream = got.stream(url, {
      headers,
      decompress: true,
      followRedirect: true,
      maxRedirects: this.options.maxRedirects,
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: { connect: this.options.connectTimeout, request: this.options.timeout },
      signal,
      hooks: {
        beforeRedirect: [
          (options, response) => {
            redirects.push({ status: response.statusCode, from: response.url ?? url, to: String(options.url) });
          },
        ],
      },
    });
    try {
      const response = await new Promise<import('got').Response>((resolve, reject) => {
        stream.once('response', resolve);
        stream.once('error', reject);
      });
      const declared = Number(response.headers['content-length']);
      // got's decompression removes content-encoding from `headers`; the raw headers keep it.
      const encoded = headerFromRaw(response.rawHeaders, 'content-encoding');
      // Content-Length counts compressed bytes, so it can only reject early when not compressed.
      if (!encoded && Number.isFinite(declared) && declared > max) {
        stream.destroy();
        throw new FetchError('too-large', `body of ${declared} bytes is larger than the ${max}-byte limit`, url, performance.now() - started);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > max) {
          stream.destroy();
          throw new FetchError('too-large', `body larger than the ${max}-byte limit${encoded ? ` once decompressed (${encoded})` : ''}`, url, performance.now() - started);
        }
        chunks.push(chunk);
      }
      const status = response.statusCode;
      const flat = flatHeaders(response.headers);
      if (encoded && !flat['content-encoding']) flat['content-encoding'] = encoded;
      const permanent = redirects.length > 0 && redirects.every((redirect) => redirect.status === 301 || redirect.status === 308);
      return {
        url,
        finalUrl: response.url,
        status,
        headers: flat,
        contentType: flat['content-type'] ?? null,
        body: Buffer.concat(chunks),
        redirects,
        permanentUrl: permanent ? response.url : null,
        notModified: status === 304,
        retryAfterMs: status === 429 || status === 503 ? retryAfterMs(flat['retry-after']) : null,
        fetchedAt,
        durationMs: Math.round(performance.now() - started),
      };
    } catch (error) {
      throw classify(error, url, Math.round(performance.now() - started), max);
    } finally {
      // got's request stream is not auto-destroyed, and only its destruction removes the abort
      // listener it put on `signal`: without this every finished request stayed reachable from
      // the daemon-wide signal (MaxListenersExceededWarning, and memory that grew per fetch).
      stream.destroy();
    }
  }
}
