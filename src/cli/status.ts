import { Command } from 'commander';
import { BEHIND_SCHEDULE_MS } from '../daemon/pipeline.js';
import { daemonStatus, feedStatuses, type DaemonStatus, type FeedStatus } from '../daemon/status.js';
import { formatDuration } from '../util/units.js';
import { printJson, settingsFor, withDatabase } from './context.js';

const relative = (iso: string | null, now: number) => {
  if (!iso) return '—';
  const delta = Date.parse(iso) - now;
  return delta >= 0 ? `in ${formatDuration(delta)}` : `${formatDuration(-delta)} ago`;
};

function printDaemon(daemon: DaemonStatus | null, now: number): void {
  if (!daemon) {
    console.log('daemon: not running on this database\n');
    return;
  }
  const who = `pid ${daemon.pid} on ${daemon.host}, since ${relative(daemon.startedAt, now)}`;
  if (daemon.stale) {
    console.log(`daemon: NOT RESPONDING (${who}; last heartbeat ${relative(daemon.heartbeatAt, now)})\n`);
    return;
  }
  console.log(`daemon: running (${who})`);
  const report = daemon.report;
  if (report) {
    const { done, backlog } = report;
    console.log(`  last minute: ${done.poll} polls · ${done.capture} captures · ${done.revisit} revisits · ${done.extract} extractions`);
    console.log(`  waiting: ${backlog.duePolls} polls due · ${backlog.pendingCaptures} pages to capture · ${backlog.dueRevisits} revisits due · ${backlog.queuedExtractions} pages to extract`);
    if (report.pollLagMs > BEHIND_SCHEDULE_MS) console.log(`  BEHIND SCHEDULE: polls start up to ${formatDuration(report.pollLagMs)} late; intervals are stretched until the backlog clears`);
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
    console.log(`  last poll ${relative(feed.lastPoll, now)}: ${state}${feed.httpStatus ? ` (HTTP ${feed.httpStatus})` : ''} · next poll ${relative(feed.nextPoll, now)}${feed.scheduleReason ? ` (${feed.scheduleReason})` : ''}`);
    if (feed.ratePerHour !== null || feed.window !== null) {
      const rate = feed.ratePerHour === null ? 'unknown' : feed.ratePerHour >= 1 ? `${feed.ratePerHour.toFixed(1)}/h` : `${(feed.ratePerHour * 24).toFixed(2)}/day`;
      console.log(`  publishing rate ${rate} · window ${feed.window ?? '?'} items`);
    }
    console.log(`  ${feed.items} items · ${feed.pages} pages captured · ${feed.pendingPages} pending · ${feed.failedPages} failed · ${feed.errors} failed polls`);
    if (feed.articles > 0) console.log(`  ${feed.articles} articles · ${feed.versions} versions · ${feed.checks} checks · next revisit ${relative(feed.nextRevisit, now)}`);
    if (feed.lastError) console.log(`  last error: ${feed.lastError}`);
    if (feed.lastPageError) console.log(`  last page error: ${feed.lastPageError}`);
  }
}

export function statusCommand(): Command {
  return new Command('status')
    .option('--json', 'one JSON object per feed per line')
    .description('per feed: last poll and its result, next poll, items, pages, errors, articles, versions and the next revisit')
    .action(async (options: { json?: boolean }, command: Command) => {
      const settings = settingsFor(command);
      const { statuses, daemon } = await withDatabase(settings, (db) => ({ statuses: feedStatuses(db), daemon: daemonStatus(db) }));
      if (options.json) return statuses.forEach(printJson);
      printDaemon(daemon, Date.now());
      printStatus(statuses);
    });
}
