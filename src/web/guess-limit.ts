import { WEB_OPTIONS, type WebOptions } from './options.js';

/**
 * Wrong tokens counted per client over a sliding window, however the token was presented — the
 * login form, `Authorization: Bearer` on the app, on the API or on the capture port: one limiter
 * for all, or a guesser would just switch doors. Past the limit, every presentation of that
 * client waits (even with the right token, or guessing would only slow down, not stop), and is
 * told how long.
 */
export class GuessLimit {
  /** Client → times of its recent wrong tokens (ms), oldest first; clients in order of last failure. */
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly options: Pick<WebOptions, 'guesses' | 'guessWindow' | 'maxGuessClients'> = WEB_OPTIONS) {}

  private recent(client: string, now: number): number[] {
    const times = (this.failures.get(client) ?? []).filter((time) => time > now - this.options.guessWindow);
    if (times.length === 0) this.failures.delete(client);
    return times;
  }

  /** Seconds `client` must wait before its next token is heard, or 0. */
  wait(client: string, now: number): number {
    const times = this.recent(client, now);
    if (times.length < this.options.guesses) return 0;
    return Math.max(1, Math.ceil((times[times.length - this.options.guesses]! + this.options.guessWindow - now) / 1000));
  }

  failed(client: string, now: number): void {
    const times = [...this.recent(client, now), now].slice(-this.options.guesses);
    this.failures.delete(client);
    this.failures.set(client, times);
    while (this.failures.size > this.options.maxGuessClients) this.failures.delete(this.failures.keys().next().value!);
  }
}
