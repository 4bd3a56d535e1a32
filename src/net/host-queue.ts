/**
 * Politeness: at most `concurrency` requests in flight overall, at most one per host, and at
 * least `perHostDelay` ms between the end of one request to a host and the start of the next.
 */
export class HostQueue {
  private running = 0;
  private readonly hosts = new Map<string, { busy: boolean; freeAt: number }>();
  private readonly waiting: Array<{ host: string; start: () => void; reject: (error: Error) => void; signal?: AbortSignal | undefined }> = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly concurrency: number,
    private readonly perHostDelay: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs `task` when its host's turn comes. Rejects if `signal` aborts while waiting. */
  run<T>(host: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      const entry = {
        host,
        signal,
        reject,
        start: () => {
          task().then(resolve, reject).finally(() => this.release(host));
        },
      };
      signal?.addEventListener('abort', () => {
        const index = this.waiting.indexOf(entry);
        if (index >= 0) {
          this.waiting.splice(index, 1);
          reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        }
      }, { once: true });
      this.waiting.push(entry);
      this.pump();
    });
  }

  /** Requests waiting for their turn (for status and tests). */
  get pending(): number {
    return this.waiting.length;
  }

  private release(host: string): void {
    this.running--;
    this.hosts.set(host, { busy: false, freeAt: this.now() + this.perHostDelay });
    this.pump();
  }

  private pump(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const now = this.now();
    let soonest = Infinity;
    for (let i = 0; i < this.waiting.length && this.running < this.concurrency; ) {
      const entry = this.waiting[i]!;
      const state = this.hosts.get(entry.host);
      if (state?.busy) {
        i++;
        continue;
      }
      if (state && state.freeAt > now) {
        soonest = Math.min(soonest, state.freeAt);
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.running++;
      this.hosts.set(entry.host, { busy: true, freeAt: Infinity });
      entry.start();
    }
    if (soonest !== Infinity && this.running < this.concurrency) {
      // Not unref'd: a waiting request must keep the process alive until its turn.
      this.timer = setTimeout(() => this.pump(), Math.max(1, soonest - now));
    }
  }
}
