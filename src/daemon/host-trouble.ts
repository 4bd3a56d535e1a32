/**
 * Hosts whose revisits get no answer (pure state, one per daemon). When one of a host's pages
 * fails to answer, the host is probably down: its other articles due in the meantime are put off
 * to the same time instead of each spending a request (and its own failure) on a host known to
 * be down. Any answer from the host clears it. The wait doubles with the host's failures in a
 * row, from `revisit.retryDelay`, up to HOST_TROUBLE_OPTIONS.maxDoublings of it, and is never
 * shorter than the server's Retry-After — so a single broken page on a healthy host holds its
 * neighbours back by minutes at most, until one of them answers.
 */

import { hostOf as politenessKey } from './dispatch.js';

/** The host a URL's requests go to, as the dispatcher keys politeness (a URL it cannot read is its own key). */
const hostOf = (url: string) => politenessKey(url) ?? url;

export const HOST_TROUBLE_OPTIONS = {
  /** The host's wait grows to retryDelay × 2^maxDoublings at most (5 min → 80 min by default). */
  maxDoublings: 4,
};

export class HostTrouble {
  private readonly hosts = new Map<string, { failures: number; until: number }>();

  constructor(private readonly retryDelayMs: number) {}

  /** A request to `url`'s host got no answer at `at`: until when its other pages wait. */
  failed(url: string, at: number, retryAfterMs: number | null): number {
    const host = hostOf(url);
    const known = this.hosts.get(host);
    // Requests already on their way when the host was found down are the same evidence, not a
    // new failure: the wait doubles only for a failure after the host's last wait ran out.
    const failures = known && at < known.until ? known.failures : (known?.failures ?? 0) + 1;
    const wait = this.retryDelayMs * 2 ** Math.min(failures - 1, HOST_TROUBLE_OPTIONS.maxDoublings);
    const until = Math.max(known?.until ?? 0, at + Math.max(wait, retryAfterMs ?? 0));
    this.hosts.set(host, { failures, until });
    return until;
  }

  /** The host of `url` answered. */
  answered(url: string): void {
    this.hosts.delete(hostOf(url));
  }

  /** When a page of `url`'s host may be tried again, if that is after `at`; null when it may be now. */
  waitUntil(url: string, at: number): number | null {
    const until = this.hosts.get(hostOf(url))?.until;
    return until !== undefined && until > at ? until : null;
  }
}
