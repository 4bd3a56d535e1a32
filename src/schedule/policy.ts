import { formatDuration } from '../util/units.js';
import { nextCronTime } from './cron.js';

/**
 * When to poll a feed next: one pure function of the feed's stored state and the latest poll's
 * outcome. The daemon's loop only asks this function; the adaptive scheduler (learned publishing
 * rate and window) will replace its body without touching the loop.
 */

export interface ScheduleSettings {
  defaultInterval: number;
  minInterval: number;
  maxInterval: number;
  maxBackoff: number;
  jitter: number;
}

export interface FeedScheduleState {
  cron: string | null;
  /** Failed polls in a row, the latest included. */
  consecutiveErrors: number;
  /** RSS ttl in minutes: the publisher's floor. */
  ttlMinutes: number | null;
}

export interface PollOutcome {
  ok: boolean;
  /** From Retry-After on 429/503. */
  retryAfterMs: number | null;
}

export interface PollDecision {
  at: Date;
  reason: string;
}

export function nextPoll(state: FeedScheduleState, outcome: PollOutcome | null, now: Date, settings: ScheduleSettings, random: () => number = Math.random): PollDecision {
  const retryAfter = outcome?.retryAfterMs ?? null;
  if (state.cron) {
    let at = nextCronTime(state.cron, now);
    let reason = `cron "${state.cron}"`;
    if (retryAfter !== null && at.getTime() < now.getTime() + retryAfter) {
      at = nextCronTime(state.cron, new Date(now.getTime() + retryAfter - 1000));
      reason += `, after Retry-After ${formatDuration(retryAfter)}`;
    }
    return { at, reason };
  }

  let interval = settings.defaultInterval;
  let reason = `fixed interval ${formatDuration(interval)}`;
  if (state.consecutiveErrors > 0) {
    // Exponential backoff, capped; a failing feed is still probed at the cap, never dropped.
    interval = Math.min(settings.defaultInterval * 2 ** (state.consecutiveErrors - 1), Math.max(settings.maxBackoff, settings.defaultInterval));
    reason = `backoff after ${state.consecutiveErrors} failure${state.consecutiveErrors > 1 ? 's' : ''}: ${formatDuration(interval)}`;
  }
  if (state.ttlMinutes !== null && state.ttlMinutes * 60_000 > interval) {
    interval = state.ttlMinutes * 60_000;
    reason += `, raised to ttl ${state.ttlMinutes} min`;
  }
  if (retryAfter !== null && retryAfter > interval) {
    interval = retryAfter;
    reason += `, raised to Retry-After ${formatDuration(retryAfter)}`;
  }
  const clamped = Math.min(Math.max(interval, settings.minInterval), Math.max(settings.maxInterval, retryAfter ?? 0));
  if (clamped !== interval) reason += `, clamped to ${formatDuration(clamped)}`;
  // Jitter spreads feeds apart, but never below a Retry-After the site asked for.
  const spread = 1 + settings.jitter * (2 * random() - 1);
  const jittered = Math.max(clamped * spread, retryAfter ?? 0);
  return { at: new Date(now.getTime() + jittered), reason };
}
