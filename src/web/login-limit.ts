import { WEB_OPTIONS, type WebOptions } from './options.js';

/**
 * Wrong logins counted per client over a sliding window: past the limit, every login of that
 * client waits (even with the right token, or guessing would only slow down, not stop), and is
 * told how long.
 */
export class LoginLimit {
  /** Client → times of its recent wrong logins (ms), oldest first; clients in order of last failure. */
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly options: Pick<WebOptions, 'loginFailures' | 'loginWindow' | 'maxLoginClients'> = WEB_OPTIONS) {}

  private recent(client: string, now: number): number[] {
    const times = (this.failures.get(client) ?? []).filter((time) => time > now - this.options.loginWindow);
    if (times.length === 0) this.failures.delete(client);
    return times;
  }

  /** Seconds `client` must wait before its next login is heard, or 0. */
  wait(client: string, now: number): number {
    const times = this.recent(client, now);
    if (times.length < this.options.loginFailures) return 0;
    return Math.max(1, Math.ceil((times[times.length - this.options.loginFailures]! + this.options.loginWindow - now) / 1000));
  }

  failed(client: string, now: number): void {
    const times = [...this.recent(client, now), now].slice(-this.options.loginFailures);
    this.failures.delete(client);
    this.failures.set(client, times);
    while (this.failures.size > this.options.maxLoginClients) this.failures.delete(this.failures.keys().next().value!);
  }
}
