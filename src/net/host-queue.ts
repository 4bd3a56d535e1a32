/**
 * Politeness: at most `concurrency` requests in flight overall, at most one per host, and at
 * least `perHostDelay` ms between the end of one request to a host and the start of the next.
 * A lighter request (`rest` below perHostDelay: a page's requisites, loaded after it as a
 * browser loads them) is one at a time with the others too, and starts `rest` after the last
 * request; a full request starts perHostDelay after the last full one (and the last light one's
 * rest after it) — the page pace holds whatever requisites come between. A host's full requests go
 * before its lighter ones, and lighter requests take at most half the overall concurrency: the
 * rest stays for the work they follow.
 *
 * The daemon's dispatcher asks `readyAt` before it hands a host work, so that requests rarely
 * wait here; the queue is the guarantee, the dispatcher the plan. Nothing a task registers
 * outlives it: the abort listener of a waiting request is removed as soon as the request starts
 * or is dropped (a listener left on the daemon-wide signal would keep every result alive).
 */
interface HostState {
  busy: boolean;
  /** When the last request ended, and the rest it asked for after it. */
  lastEnd: number;
  lastRest: number;
  /** When the last full request ended: the next full one waits perHostDelay from then. */
  lastFullEnd: number;
  /** A pause the server asked for (429/503): no request before it. */
  deferredUntil: number;
  /** A deferral asked for while a request was in flight: it holds after the release. */
  deferredTo: number;
}

const idle = (): HostState => ({ busy: false, lastEnd: -Infinity, lastRest: 0, lastFullEnd: -Infinity, deferredUntil: 0, deferredTo: 0 });

export class HostQueue {
  private running = 0;
  private lightRunning = 0;
  /** Full requests waiting, per host (kept as they come and go: pump reads it for every waiting entry). */
  private readonly fullWaiting = new Map<string, number>();
  private readonly hosts = new Map<string, HostState>();
  private readonly waiting: Array<{ host: string; light: boolean; rest: number; start: () => void; cancel: () => void }> = [];
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly concurrency: number,
    private readonly perHostDelay: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Runs `task` when its host's turn comes. Rejects if `signal` aborts while waiting. `rest`: how
   * long the host rests after it, when less than perHostDelay (a lighter request). A task that
   * finds it need not send its request after all calls `unsent()`: the host does not rest for it.
   */
  run<T>(host: string, task: (unsent: () => void) => Promise<T>, signal?: AbortSignal, rest = this.perHostDelay): Promise<T> {
    const light = rest < this.perHostDelay;
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      if (this.closed) return reject(shutdownError());
      const onAbort = () => {
        const index = this.waiting.indexOf(entry);
        if (index >= 0) this.unqueue(index);
        reject(abortReason(signal!));
      };
      const entry = {
        host,
        light,
        rest,
        cancel: () => {
          signal?.removeEventListener('abort', onAbort);
          reject(shutdownError());
        },
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          let sent = true;
          // The host is released before the caller resumes, so that it sees the host's delay.
          task(() => (sent = false)).then(
            (value) => {
              this.release(host, rest, light, sent);
              resolve(value);
            },
            (error: unknown) => {
              this.release(host, rest, light, sent);
              reject(error);
            },
          );
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
      if (!light) this.fullWaiting.set(host, (this.fullWaiting.get(host) ?? 0) + 1);
      this.pump();
    });
  }

  /**
   * Stopping: no request starts from now on. Waiting ones are rejected with an AbortError;
   * requests in flight finish (or are aborted by their own signal).
   */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.fullWaiting.clear();
    for (const entry of this.waiting.splice(0)) entry.cancel();
  }

  /** Hosts busy or resting after a request: work for them is passed over for now. */
  get unreadyHosts(): number {
    const now = this.now();
    let count = 0;
    for (const state of this.hosts.values()) if (state.busy || this.startAt(state) > now) count++;
    return count;
  }

  /** Requests waiting for their turn (for status and tests). */
  get pending(): number {
    return this.waiting.length;
  }

  /**
   * When `host` may take its next request: 0 if now, Infinity while one is in flight, else the
   * end of its politeness delay (ms since the epoch).
   */
  readyAt(host: string): number {
    const state = this.hosts.get(host);
    if (!state) return 0;
    if (state.busy) return Infinity;
    const at = this.startAt(state);
    return at <= this.now() ? 0 : at;
  }

  /**
   * Makes a host wait until `until` (ms since the epoch) before its next request. Asked while
   * the host's request is in flight (the answer said "later"), it holds after the release too.
   */
  deferHost(host: string, until: number): void {
    const state = this.hosts.get(host);
    if (!state) this.hosts.set(host, { ...idle(), deferredUntil: until });
    else if (state.busy) state.deferredTo = Math.max(state.deferredTo, until);
    else state.deferredUntil = Math.max(state.deferredUntil, until);
  }

  /**
   * When a request may start on a host in `state`: a full one perHostDelay after the last full
   * one; a light one (`lightRest` given) that long after the last request.
   */
  private startAt(state: HostState, lightRest?: number): number {
    const after = lightRest !== undefined ? state.lastEnd + lightRest : Math.max(state.lastFullEnd + this.perHostDelay, state.lastEnd + state.lastRest);
    return Math.max(after, state.deferredUntil);
  }

  /** Takes waiting entry `index` out of the queue. */
  private unqueue(index: number): void {
    const [entry] = this.waiting.splice(index, 1);
    if (!entry || entry.light) return;
    const left = (this.fullWaiting.get(entry.host) ?? 1) - 1;
    if (left > 0) this.fullWaiting.set(entry.host, left);
    else this.fullWaiting.delete(entry.host);
  }

  private release(host: string, rest: number, light: boolean, sent: boolean): void {
    this.running--;
    if (light) this.lightRunning--;
    const state = this.hosts.get(host) ?? idle();
    if (!sent) {
      this.hosts.set(host, { ...state, busy: false });
      this.pump();
      return;
    }
    const now = this.now();
    this.hosts.set(host, {
      busy: false, lastEnd: now, lastRest: rest, deferredUntil: Math.max(state.deferredUntil, state.deferredTo), deferredTo: 0,
      // A lighter request leaves the page pace where the last full request set it.
      lastFullEnd: light ? state.lastFullEnd : now,
    });
    this.pump();
    this.forgetIdleHosts();
  }

  /** Hosts whose delay has passed need no entry: the map stays as small as the hosts in use. */
  private forgetIdleHosts(): void {
    if (this.hosts.size < 4096) return;
    const now = this.now();
    for (const [host, state] of this.hosts) if (!state.busy && this.startAt(state) <= now) this.hosts.delete(host);
  }

  private pump(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const now = this.now();
    let soonest = Infinity;
    for (let i = 0; !this.closed && i < this.waiting.length && this.running < this.concurrency;) {
      const entry = this.waiting[i]!;
      const state = this.hosts.get(entry.host);
      // A host's full requests go before its lighter ones: a page is never queued behind another page's requisites.
      if (state?.busy || (entry.light && (this.fullWaiting.has(entry.host) || this.lightRunning >= Math.max(1, Math.floor(this.concurrency / 2))))) {
        i++;
        continue;
      }
      const startAt = state ? this.startAt(state, entry.light ? entry.rest : undefined) : 0;
      if (startAt > now) {
        soonest = Math.min(soonest, startAt);
        i++;
        continue;
      }
      this.unqueue(i);
      this.running++;
      if (entry.light) this.lightRunning++;
      this.hosts.set(entry.host, { ...(state ?? idle()), busy: true });
      entry.start();
    }
    if (soonest !== Infinity && this.running < this.concurrency) {
      // Not unref'd: a waiting request must keep the process alive until its turn.
      this.timer = setTimeout(() => this.pump(), Math.max(1, soonest - now));
    }
  }
}

function shutdownError(): Error {
  const error = new Error('shutting down: no new requests');
  error.name = 'AbortError';
  return error;
}

const abortReason = (signal: AbortSignal): Error => (signal.reason instanceof Error ? signal.reason : new Error('aborted'));
