import got, { RequestError, TimeoutError, type Headers } from 'got';
import type { LookupFunction } from 'node:net';
import { AddressPolicy, type PrivateNetworksSetting } from './address-policy.js';
import { BlockedAddressError, guardedLookup, literalRefusal } from './guarded-lookup.js';
import { HostQueue } from './host-queue.js';
import { retryAfterMs } from './retry-after.js';
import type { HostGate } from '../archive/store.js';

/**
 * Caps that protect the process from one host. Node's own header limit (16 KB) is the right
 * size: real responses stay far below it and a 1 MB header is refused before it is buffered.
 */
export const MAX_HEADER_BYTES = 16 * 1024;
/**
 * A host that answers 429 or 503 is paused as a whole (every feed and page on it), for its
 * Retry-After when it sends one, else for a pause that doubles with each answer in a row —
 * RFC 9110 §15.6.4 lets a server ask for time, and asking again means it still needs it.
 */
export const HOST_PAUSE_FIRST_MS = 60_000;
export const HOST_PAUSE_MAX_MS = 6 * 3_600_000;

/** How long a host is paused after its `inRow`-th 429/503 in a row. */
export function hostPauseMs(inRow: number, retryAfterMs: number | null): number {
  const pause = retryAfterMs ?? HOST_PAUSE_FIRST_MS * 2 ** Math.min(Math.max(inRow - 1, 0), 20);
  return Math.min(pause, HOST_PAUSE_MAX_MS);
}

export interface FetcherOptions {
  userAgent: string;
  connectTimeout: number;
  timeout: number;
  maxBodySize: number;
  maxRedirects: number;
  concurrency: number;
  perHostDelay: number;
  /** Which non-public addresses may be connected to (see AddressPolicy). */
  allowPrivateNetworks: PrivateNetworksSetting;
  /** The DNS resolver whose answers are checked (the system's by default; tests give their own). */
  resolve?: LookupFunction;
}

export interface ConditionalHeaders {
  etag?: string | null;
  lastModified?: string | null;
}

/** What a fetch may take other than a page's defaults. */
export interface FetchLimits {
  /** Bytes at most (never more than `http.maxBodySize`). */
  maxBytes?: number;
  /** The Accept header sent. */
  accept?: string;
  /**
   * How long the host rests after this request, when less than perHostDelay: a page's requisite,
   * loaded after the page as a browser loads it (HostQueue: the page pace still holds between pages).
   */
  restMs?: number;
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

export type FetchErrorKind = 'timeout' | 'dns' | 'connection' | 'too-large' | 'redirects' | 'aborted' | 'invalid-url' | 'blocked' | 'bad-body' | 'other';

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
    if (code === 'EBLOCKED') return new FetchError('blocked', error.message, url, durationMs);
    if (code === 'ERR_UNSUPPORTED_PROTOCOL') {
      return new FetchError('blocked', `blocked: unsupported scheme ${error.message.replace(/^Unsupported protocol: /, '')} (only http and https are fetched)`, url, durationMs);
    }
    if (code === 'HPE_HEADER_OVERFLOW') return new FetchError('too-large', `response headers larger than the ${MAX_HEADER_BYTES}-byte limit`, url, durationMs);
    if (error instanceof TimeoutError) {
      const what = error.event === 'request' ? 'no complete response within the request timeout (http.timeout)' : `timed out waiting for ${error.event} (http.connectTimeout)`;
      return new FetchError('timeout', `timed out: ${what}`, url, durationMs);
    }
    if (code === 'ETIMEDOUT') return new FetchError('timeout', `timed out (${error.message})`, url, durationMs);
    if (code?.startsWith('Z_') || code?.startsWith('ERR_BROTLI') || code?.startsWith('ERR__')) {
      return new FetchError('bad-body', `the body is not valid compressed data (${error.message})`, url, durationMs);
    }
    if (code === 'ENOTFOUND') return new FetchError('dns', `host not found: ${new URL(url).host}`, url, durationMs);
    if (code === 'EAI_AGAIN') return new FetchError('dns', `host lookup failed for now (EAI_AGAIN): ${new URL(url).host}`, url, durationMs);
    if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EPIPE') {
      return new FetchError('connection', `connection failed (${code})`, url, durationMs);
    }
    if (code === 'ERR_TOO_MANY_REDIRECTS') return new FetchError('redirects', error.message, url, durationMs);
    if (code === 'ERR_BODY_TOO_LARGE') return new FetchError('too-large', `body larger than ${maxBodySize} bytes`, url, durationMs);
    if (code === 'ERR_ABORTED' || error.name === 'AbortError') return new FetchError('aborted', 'aborted', url, durationMs);
    return new FetchError('other', `${code ? `${code}: ` : ''}${error.message}`, url, durationMs);
  }
  if (error instanceof BlockedAddressError) return new FetchError('blocked', error.message, url, durationMs);
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && error.name === 'AbortError') return new FetchError('aborted', 'aborted', url, durationMs);
  return new FetchError('other', message, url, durationMs);
}

/**
 * The one HTTP client of Forest (on got): conditional GET, gzip/deflate/brotli, redirects with
 * their statuses recorded, connect and total timeouts, a cap on the decompressed body (a gzip
 * bomb stops at the cap, not at the end of memory), per-host politeness, a host-wide pause on
 * 429/503, and the address policy checked on every connection and every redirect hop.
 */
/** The longest the fetcher sleeps before asking a shared gate for a host again. */
const GATE_MAX_WAIT_MS = 1000;

/** Waits `ms`, or rejects when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** How long a host the DNS said does not exist is believed not to (NXDOMAIN's negative caching; typical SOA minimums are minutes). */
const UNKNOWN_HOST_MS = 60_000;

export class Fetcher {
  private readonly queue: HostQueue;
  private readonly policy: AddressPolicy;
  private readonly lookup: LookupFunction;
  /** Hosts' politeness shared with other daemons on the archive (shareHosts), or null. */
  private gate: HostGate | null = null;
  /** Per host, this process's give of it still on its way to the gate. */
  private readonly giving = new Map<string, Promise<void>>();
  /** 429/503 answers in a row, per host (an entry lives only while a host keeps refusing). */
  private readonly refusalsInRow = new Map<string, number>();
  /**
   * Hosts the DNS said do not exist, until when that answer is believed (a resolver's negative
   * cache, RFC 2308): a page naming fifty images on a dead host costs one lookup, not fifty
   * requests queued behind that host's politeness.
   */
  private readonly unknownHosts = new Map<string, number>();

  constructor(private readonly options: FetcherOptions) {
    this.queue = new HostQueue(options.concurrency, options.perHostDelay);
    this.policy = AddressPolicy.from(options.allowPrivateNetworks);
    this.lookup = guardedLookup(this.policy, options.resolve);
  }

  /** When `host` may take its next request (see HostQueue.readyAt). */
  readyAt(host: string): number {
    return this.queue.readyAt(host);
  }

  /** Hosts busy or resting after a request. */
  get unreadyHosts(): number {
    return this.queue.unreadyHosts;
  }

  /**
   * Keeps each host's politeness with other processes too (several daemons on one archive): every
   * request takes its host from `gate` first — waiting while another daemon's request to it is in
   * flight or within its delay — and gives it back when it ends.
   */
  shareHosts(gate: HostGate | null): void {
    this.gate = gate;
  }

  /** Runs `request` once the shared gate (if any) has given this process the host, which then rests `restMs` for every process. */
  private async gated<T>(host: string, signal: AbortSignal | undefined, restMs: number, request: () => Promise<T>): Promise<T> {
    const gate = this.gate;
    if (!gate) return request();
    // This process's last give of the host lands before its next take.
    await this.giving.get(host);
    for (let wait = await gate.take(host, restMs); wait > 0; wait = await gate.take(host, restMs)) await pause(Math.min(wait, GATE_MAX_WAIT_MS), signal);
    try {
      return await request();
    } finally {
      // The answer does not wait for the give (a round trip to the database). A give that fails
      // (the database unreachable) leaves the host to expire with this daemon's heartbeat.
      const given: Promise<void> = gate.give(host, restMs).catch(() => undefined).finally(() => {
        if (this.giving.get(host) === given) this.giving.delete(host);
      });
      this.giving.set(host, given);
    }
  }

  /** The gives still on their way to the database (the daemon waits for them before it closes the archive). */
  async settled(): Promise<void> {
    await Promise.all(this.giving.values());
  }

  /** No request starts after this; waiting ones fail as aborted. */
  close(): void {
    this.queue.close();
  }

  /** `limits`: a smaller body cap and another Accept than a page's (a page's requisites: requisites/fetch.ts). */
  async fetch(url: string, conditional: ConditionalHeaders = {}, signal?: AbortSignal, limits: FetchLimits = {}): Promise<FetchResult> {
    const target = this.allowedTarget(url);
    const { host } = target;
    const max = Math.min(limits.maxBytes ?? this.options.maxBodySize, this.options.maxBodySize);
    const unknown = () => (this.unknownHosts.get(target.hostname) ?? 0) > Date.now();
    const notFound = () => new FetchError('dns', `host not found: ${host}`, url, 0);
    if (unknown()) throw notFound();
    try {
      return await this.queue.run(
        host,
        async (unsent) => {
          // Queued behind a request that found the host unknown: not sent, and no rest for the host.
          if (unknown()) {
            unsent();
            throw notFound();
          }
          return this.gated(host, signal, limits.restMs ?? this.options.perHostDelay, async () => {
            const result = await this.request(url, conditional, signal, { ...limits, maxBytes: max });
            this.pauseHostIfAsked(host, result);
            return result;
          });
        },
        signal,
        limits.restMs,
      );
    } catch (error) {
      const failure = classify(error, url, 0, max);
      if (failure.kind === 'dns' && failure.message.startsWith('host not found')) this.rememberUnknown(target.hostname);
      throw failure;
    }
  }

  private rememberUnknown(hostname: string): void {
    const now = Date.now();
    if (this.unknownHosts.size >= 4096) for (const [name, until] of this.unknownHosts) if (until <= now) this.unknownHosts.delete(name);
    this.unknownHosts.set(hostname, now + UNKNOWN_HOST_MS);
  }

  /**
   * A form POST (a WebSub hub's subscription request): the same address policy, timeouts and
   * host politeness as a fetch, no redirects followed, and the first few KB of the answer kept
   * (a hub's reason for refusing).
   */
  async postForm(url: string, form: Record<string, string>, signal?: AbortSignal): Promise<{ status: number; body: string }> {
    const target = this.allowedTarget(url);
    const started = performance.now();
    try {
      return await this.queue.run(target.host, () => this.gated(target.host, signal, this.options.perHostDelay, async () => {
        const response = await got.post(url, {
          form, headers: { 'user-agent': this.options.userAgent }, followRedirect: false, throwHttpErrors: false, retry: { limit: 0 },
          timeout: { connect: this.options.connectTimeout, request: this.options.timeout }, dnsLookup: this.lookup, maxHeaderSize: MAX_HEADER_BYTES, signal,
        });
        return { status: response.statusCode, body: response.body.slice(0, 2048) };
      }), signal);
    } catch (error) {
      throw classify(error, url, Math.round(performance.now() - started), this.options.maxBodySize);
    }
  }

  /** `url` parsed, if it is http(s) and its host is not a refused address literal (the policy is checked again on every connection). */
  private allowedTarget(url: string): URL {
    let parsed: URL;
    try {
      parsed = new URL(url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`unsupported scheme ${parsed.protocol}`);
    } catch (error) {
      throw new FetchError('invalid-url', `invalid URL: ${(error as Error).message}`, url, 0);
    }
    const refusal = literalRefusal(this.policy, parsed);
    if (refusal !== null) throw new FetchError('blocked', `blocked: ${refusal}`, url, 0);
    return parsed;
  }

  /** 429/503 pause the whole host; any other answer ends a pause streak. */
  private pauseHostIfAsked(host: string, result: FetchResult): void {
    if (result.status !== 429 && result.status !== 503) {
      this.refusalsInRow.delete(host);
      return;
    }
    const inRow = (this.refusalsInRow.get(host) ?? 0) + 1;
    this.refusalsInRow.set(host, inRow);
    this.queue.deferHost(host, Date.now() + hostPauseMs(inRow, result.retryAfterMs));
  }

  private async request(url: string, conditional: ConditionalHeaders, signal: AbortSignal | undefined, limits: FetchLimits): Promise<FetchResult> {
    const started = performance.now();
    const fetchedAt = new Date();
    const redirects: Redirect[] = [];
    const headers: Record<string, string> = {
      'user-agent': this.options.userAgent,
      accept: limits.accept ?? 'application/atom+xml, application/rss+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, text/html;q=0.8, */*;q=0.5',
    };
    if (conditional.etag) headers['if-none-match'] = conditional.etag;
    if (conditional.lastModified) headers['if-modified-since'] = conditional.lastModified;
    const max = limits.maxBytes ?? this.options.maxBodySize;
    const stream = got.stream(url, {
      headers,
      decompress: true,
      followRedirect: true,
      maxRedirects: this.options.maxRedirects,
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: { connect: this.options.connectTimeout, request: this.options.timeout },
      dnsLookup: this.lookup,
      maxHeaderSize: MAX_HEADER_BYTES,
      signal,
      hooks: {
        beforeRedirect: [
          (options, response) => {
            // got itself refuses a redirect to a scheme other than http(s) (classified below).
            const refusal = literalRefusal(this.policy, new URL(String(options.url)));
            if (refusal !== null) throw new BlockedAddressError(`redirect to ${refusal}`);
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
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > max) {
            stream.destroy();
            throw new FetchError('too-large', `body larger than the ${max}-byte limit${encoded ? ` once decompressed (${encoded})` : ''}`, url, performance.now() - started);
          }
          chunks.push(chunk);
        }
      } catch (error) {
        // The answer had started: say that the body was cut, not that the connection failed.
        const code = error instanceof RequestError ? error.code : undefined;
        if (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'EPIPE') {
          const promised = !encoded && Number.isFinite(declared) ? ` of the ${declared} promised by Content-Length` : '';
          throw new FetchError('connection', `the connection was cut after ${size} bytes of the body${promised} (${code})`, url, Math.round(performance.now() - started));
        }
        throw error;
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
