/**
 * Statements that may wait a moment and go together: a daemon gives back an ended unit's claim
 * after each unit, and on PostgreSQL each statement is a round trip (one a unit was a twentieth of
 * the daemon's queries). Each key waits at most `delayMs`; all that are waiting then go in
 * one `send`. A key added again goes once; one withdrawn before it went, not at all.
 *
 * A statement that must come after a key's goes after `withdraw(key)`: a new claim of a unit
 * whose release is on its way is made after that release, not before it. A send that fails puts its
 * keys back for the next batch (unless taken back meanwhile), so that nothing held is forgotten:
 * the heartbeat renews every claim a daemon holds.
 */
export class Batched<V> {
  private readonly waiting = new Map<string, V>();
  private timer: NodeJS.Timeout | null = null;
  private sending: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly delayMs: number,
    private readonly send: (values: V[]) => Promise<void>,
  ) {}

  add(key: string, value: V): void {
    this.waiting.set(key, value);
    this.timer ??= setTimeout(() => void this.flush(), this.delayMs).unref();
  }

  /**
   * Takes `key` back, and resolves once no statement holding it can land after what the caller
   * sends next: a batch already on its way is waited for (if it fails, the key it would put back
   * is taken back again — before any timer could send it).
   */
  async withdraw(key: string): Promise<void> {
    this.waiting.delete(key);
    await this.sending;
    this.waiting.delete(key);
  }

  /** Sends what waits now. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = [...this.waiting];
    this.waiting.clear();
    if (batch.length === 0) return this.sending;
    this.sending = this.sending
      .then(() => this.send(batch.map(([, value]) => value)))
      .catch(() => {
        if (this.closed) return;
        for (const [key, value] of batch) if (!this.waiting.has(key)) this.waiting.set(key, value);
        this.timer ??= setTimeout(() => void this.flush(), Math.max(this.delayMs, 1000)).unref();
      });
    return this.sending;
  }

  /** Sends what waits, once; nothing is retried after this. */
  async close(): Promise<void> {
    const last = this.flush();
    this.closed = true;
    await last;
  }

  /** Forgets what waits (what it stood for is undone another way). */
  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.waiting.clear();
  }
}
