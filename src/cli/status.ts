import { Command } from 'commander';
import type { FeedStatus } from '../archive/store.js';
import { pushInWords } from '../net/websub.js';
import { daemonStatus, type DaemonStatus } from '../daemon/status.js';
import { formatDuration, plural } from '../util/units.js';
import { printJson, settingsFor, withStore } from './context.js';
import { describeGap } from '../daemon/gap-recovery.js';
import { allowHintFor } from '../net/address-check.js';
import { SCHEDULE_OPTIONS } from '../schedule/options.js';
import { scheduleInWords } from '../schedule/words.js';
import { DAEMON_OPTIONS } from '../daemon/options.js';
import { capacityNote } from '../daemon/capacity.js';
import { shownNotification } from '../config/secrets.js';

const relative = (iso: string | null, now: number) => {
  if (!iso) return '—';
  const delta = Date.parse(iso) - now;
  return delta >= 0 ? `in ${formatDuration(delta)}` : `${formatDuration(-delta)} ago`;
};

/** Each daemon on the archive (several share a PostgreSQL archive): who, and its last minute. */
function printDaemons(daemons: DaemonStatus[], now: number): void {
  if (daemons.length === 0) {
    console.log('daemon: not running on this database\n');
    return;
  }
  daemons.forEach((daemon, index) => printDaemon(daemon, daemons.length > 1 ? `daemon ${index + 1} of ${daemons.length}` : 'daemon', now));
}

function printDaemon(daemon: DaemonStatus, label: string, now: number): void {
  const who = `pid ${daemon.pid} on ${daemon.host}, started ${relative(daemon.startedAt, now)}`;
  const beat = `last heartbeat ${formatDuration(daemon.heartbeatAgeMs)} ago`;
  if (daemon.state === 'exited') {
    console.log(`${label}: NOT RUNNING — its process has exited (${who}; ${beat}); a new \`forest run\` takes its place\n`);
    return;
  }
  if (daemon.state === 'presumed-dead') {
    console.log(`${label}: PRESUMED DEAD — no heartbeat for longer than its lease (${formatDuration(DAEMON_OPTIONS.lease.staleAfterMs)}; ${who}; ${beat}); another daemon may take over\n`);
    return;
  }
  const state = daemon.state === 'running' ? 'running' : `NOT RESPONDING (heartbeats are due every ${formatDuration(DAEMON_OPTIONS.lease.heartbeatMs)}; presumed dead after ${formatDuration(DAEMON_OPTIONS.lease.staleAfterMs)})`;
  console.log(`${label}: ${state} (${who}; ${beat})`);
  const report = daemon.report;
  if (report) {
    const { done, backlog } = report;
    console.log(`  last minute: ${done.poll} polls · ${done.capture} captures · ${done.revisit} revisits · ${done.extract} extractions`);
    console.log(`  waiting: ${backlog.duePolls} polls due · ${backlog.pendingCaptures} pages to capture · ${backlog.dueRevisits} revisits due · ${backlog.queuedExtractions} pages to extract · ${backlog.queuedRequisites} pages waiting for their requisites`);
    if (report.pollLagMs > SCHEDULE_OPTIONS.behindScheduleMs) console.log(`  BEHIND SCHEDULE: polls start up to ${formatDuration(report.pollLagMs)} late; intervals are stretched until the backlog clears`);
    const capacity = capacityNote(report);
    if (capacity) console.log(`  AT CAPACITY: ${capacity}`);
    // A report written by an older daemon has no settings file: daemon/status.ts reads it back as null.
    console.log(`  settings: ${report.settingsFile ?? 'the defaults alone (no --config)'}`);
    if (report.storageFullSince) console.log(`  DATABASE FULL since ${relative(report.storageFullSince, now)}: no new work until there is room (forest vacuum, database.maxSize, disk space)`);
  }
  console.log('');
}

export function printStatus(statuses: FeedStatus[], now = Date.now()): void {
  if (statuses.length === 0) {
    console.log('no feeds subscribed');
    return;
  }
  for (const feed of statuses) {
    const state = !feed.enabled ? 'disabled' : feed.result === 'error' ? `FAILING (${feed.consecutiveErrors} in a row)` : feed.result ?? 'not polled yet';
    console.log(`${feed.title ?? feed.url}\n  ${feed.url}${feed.fetchUrl !== feed.url ? ` → ${feed.fetchUrl}` : ''}`);
    console.log(`  last poll ${relative(feed.lastPoll, now)}: ${state}${feed.httpStatus ? ` (HTTP ${feed.httpStatus})` : ''} · next poll ${relative(feed.nextPoll, now)}`);
    // The schedule in words; the scheduler's figures (rate, window, overflow risk, the binding rule) are in --json.
    console.log(`  ${scheduleInWords(feed)}${feed.window !== null ? ` · the feed lists ${plural(feed.window, 'item')}` : ''}`);
    console.log(`  ${feed.items} items · ${feed.pages} pages captured · ${feed.pendingPages} pending · ${feed.failedPages} failed · ${feed.errors} failed polls`);
    if (feed.articles > 0) console.log(`  ${feed.articles} articles · ${feed.versions} versions · ${feed.checks} checks · next revisit ${relative(feed.nextRevisit, now)}`);
    if (feed.retrying > 0) console.log(`  ${plural(feed.retrying, 'article')} whose last check got no answer: retried ${relative(feed.nextRetry, now)}`);
    if (feed.lastError) {
      const hint = allowHintFor(feed.lastError);
      console.log(`  last error: ${feed.lastError}${hint ? ` (${hint})` : ''}`);
    }
    if (feed.lastPageError) console.log(`  last page error: ${feed.lastPageError}`);
    if (feed.lastGap) console.log(`  ${feed.lastGap.complete ? 'last gap' : 'GAP'}: ${describeGap(feed.lastGap)}`);
    if (feed.push) console.log(`  ${pushInWords(feed.push)}`);
  }
}

/**
 * More feeds than this are summarised (`--all` lists them all): a status that scrolls past a
 * screen hides the few feeds that need attention among those that are fine.
 */
export const FEEDS_LISTED_IN_FULL = 12;
/** Feeds needing attention listed in a summary. */
const ATTENTION_LISTED = 10;

/** Totals over every feed, then only the feeds that need attention (failing first). */
export function printSummary(statuses: FeedStatus[], now = Date.now()): void {
  const enabled = statuses.filter((feed) => feed.enabled);
  const failing = enabled.filter((feed) => feed.result === 'error').sort((a, b) => b.consecutiveErrors - a.consecutiveErrors);
  const unpolled = enabled.filter((feed) => feed.lastPoll === null).length;
  const sum = (field: 'items' | 'pages' | 'pendingPages' | 'failedPages' | 'articles' | 'versions' | 'checks' | 'retrying') => statuses.reduce((total, feed) => total + feed[field], 0);
  const nextPoll = enabled.map((feed) => feed.nextPoll).filter((at): at is string => at !== null).sort()[0] ?? null;
  console.log(`${plural(statuses.length, 'feed')}: ${enabled.length - failing.length - unpolled} fine · ${failing.length} failing · ${unpolled} not polled yet · ${statuses.length - enabled.length} disabled · next poll ${relative(nextPoll, now)}`);
  console.log(`${plural(sum('items'), 'item')} · ${plural(sum('pages'), 'page')} captured · ${sum('pendingPages')} pending · ${sum('failedPages')} failed`);
  console.log(`${plural(sum('articles'), 'article')} · ${plural(sum('versions'), 'version')} · ${plural(sum('checks'), 'check')}`);
  if (sum('retrying') > 0) {
    const first = statuses.map((feed) => feed.nextRetry).filter((at): at is string => at !== null).sort()[0] ?? null;
    console.log(`${plural(sum('retrying'), 'article')} whose last check got no answer: retried ${relative(first, now)}`);
  }
  if (failing.length > 0) {
    console.log(`\nfailing${failing.length > ATTENTION_LISTED ? ` (the ${ATTENTION_LISTED} with the longest streaks)` : ''}:`);
    for (const feed of failing.slice(0, ATTENTION_LISTED)) {
      console.log(`  ${feed.url}: ${feed.consecutiveErrors} in a row, last ${relative(feed.lastPoll, now)}: ${feed.lastError ?? `HTTP ${feed.httpStatus ?? '?'}`}`);
    }
  }
  console.log(`\n\`forest status --all\` lists every feed; \`--json\` gives every feed as JSON lines.`);
}

export function statusCommand(): Command {
  return new Command('status')
    .option('--all', `list every feed in full (by default, more than ${FEEDS_LISTED_IN_FULL} feeds are summarised: totals and the failing feeds)`)
    .option('--json', 'JSON lines: one object per feed (every feed, whatever --all says)')
    .description('the daemon (running? its last minute), then per feed: last poll and its result, next poll and why, items, pages, errors, articles, versions and the next revisit')
    .action(async (options: { all?: boolean; json?: boolean }, command: Command) => {
      const settings = settingsFor(command);
      const { statuses, daemons, notifications } = await withStore(settings, async (store) => ({
        statuses: await store.feedStatuses(), daemons: (await store.daemons()).flatMap((holder) => daemonStatus(holder) ?? []), notifications: await store.notificationSummary(),
      }));
      if (options.json) return statuses.forEach(printJson);
      printDaemons(daemons, Date.now());
      if (statuses.length > FEEDS_LISTED_IN_FULL && !options.all) printSummary(statuses);
      else printStatus(statuses);
      for (const webhook of notifications.map(shownNotification)) {
        console.log(`notifications to ${webhook.webhook}: ${webhook.delivered} delivered${webhook.lastDeliveredAt ? ` (last ${relative(webhook.lastDeliveredAt, Date.now())})` : ''}, ${webhook.waiting} waiting${webhook.waiting > 0 && webhook.lastError ? ` (last error: ${webhook.lastError})` : ''}`);
      }
    });
}
