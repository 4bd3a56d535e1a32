import { Command } from 'commander';
import type { PageProgress, PageRequest, Store } from '../archive/store.js';
import type { Settings } from '../config/settings.js';
import { archiveByHand } from '../daemon/by-hand.js';
import { httpUrl } from '../config/subscriptions.js';
import { daemonIdentity, leaseRequest } from '../daemon/service.js';
import { allowHintFor } from '../net/address-check.js';
import { createLogger } from '../util/logger.js';
import { formatDuration, plural } from '../util/units.js';
import { durationOption } from './run.js';
import { printJson, settingsFor, UsageError, withStore } from './context.js';

/** How often a page a running daemon archives is looked at while the command waits. */
const WAIT_STEP_MS = 500;

interface Outcome {
  url: string;
  /** archived (captured and extracted), revisited, failed, or waiting (the wait ran out). */
  result: 'archived' | 'revisited' | 'failed' | 'waiting';
  article: number | null;
  versions: number | null;
  requisites: number;
  error: string | null;
}

export function captureCommand(): Command {
  return new Command('capture')
    .argument('<url...>', 'pages to archive (http or https)')
    .option('--wait <duration>', 'how long to wait for a running daemon to archive them', durationOption, 120_000)
    .option('--json', 'one JSON object per page: its article, versions, requisites, or why it failed')
    .option('--verbose', 'log each step (the daemon\'s log lines) on stderr')
    .description('archive pages that are in no feed: captured with their requisites, extracted, and revisited like a feed item\'s page')
    .addHelpText('after', `
Each page joins the archive's list of pages archived by hand (shown as the feed "Pages archived
by hand"). When no daemon runs on the archive, this command archives the pages itself — the
page, its images and styles (capture.requisites), its article object — and the daemon revisits
them later on the usual schedule (revisit.after). When a daemon runs, it archives them within
seconds, and this command waits for it (--wait). A page archived already is revisited now: a new
version is kept only if it changed.`)
    .action(async (urls: string[], options: { wait: number; json?: boolean; verbose?: boolean }, command: Command) => {
      const pages = urls.map((url) => {
        const parsed = httpUrl.safeParse(url);
        if (!parsed.success) throw new UsageError(`${url}: ${parsed.error.issues[0]?.message ?? 'not a URL'}`);
        return new URL(parsed.data).toString();
      });
      const settings = settingsFor(command);
      const outcomes = await withStore(settings, (store) => archive(store, settings, pages, options), { create: true });
      for (const outcome of outcomes) {
        if (options.json) printJson(outcome);
        // A page not archived is a one-line reason on stderr, as every command's failure.
        else if (outcome.result === 'failed' || outcome.result === 'waiting') process.stderr.write(`forest: ${describe(outcome)}\n`);
        else console.log(describe(outcome));
      }
      if (outcomes.some((outcome) => outcome.result === 'failed' || outcome.result === 'waiting')) process.exitCode = 1;
    });
}

async function archive(store: Store, settings: Settings, urls: string[], options: { wait: number; verbose?: boolean }): Promise<Outcome[]> {
  const requests = await store.addPages(urls, new Date());
  const since = new Date().toISOString();
  const me = daemonIdentity();
  const lease = await store.acquireLease(leaseRequest(settings, me));
  if (lease.acquired) {
    // Failures are this command's output; the log says more with --verbose.
    const log = createLogger({ level: options.verbose ? 'info' : 'error', pretty: settings.log.pretty }, 2);
    const stop = new AbortController();
    const onSignal = () => stop.abort(new Error('interrupted'));
    process.once('SIGINT', onSignal);
    try {
      await archiveByHand(store, settings, log, requests, stop.signal);
    } finally {
      process.off('SIGINT', onSignal);
      await store.releaseLease(me.owner);
    }
  } else {
    process.stderr.write(`a daemon runs on this archive (pid ${lease.holder.pid} on ${lease.holder.host}): it archives ${urls.length === 1 ? 'the page' : 'the pages'}; waiting up to ${formatDuration(options.wait)}\n`);
  }
  const deadline = Date.now() + (lease.acquired ? 0 : options.wait);
  for (;;) {
    const outcomes = await Promise.all(requests.map(async (request) => outcomeOf(request, await store.pageProgress(request.itemId), since)));
    if (outcomes.every((outcome) => outcome.result !== 'waiting') || Date.now() >= deadline) return outcomes;
    await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
  }
}

function outcomeOf(request: PageRequest, progress: PageProgress | null, since: string): Outcome {
  const base = { url: request.url, article: progress?.article ?? null, versions: progress?.versions ?? null, requisites: progress?.requisites ?? 0, error: progress?.error ?? null };
  if (!progress) return { ...base, result: 'failed', error: 'the page is no longer in the archive' };
  if (request.state === 'revisit') return { ...base, result: progress.lastChecked !== null && progress.lastChecked >= since ? 'revisited' : 'waiting' };
  if (progress.state === 'failed' || (progress.state === 'pending' && progress.error !== null)) return { ...base, result: 'failed' };
  if (progress.state === 'captured' && progress.extracted > 0) return progress.article === null ? { ...base, result: 'failed', error: 'nothing could be extracted from the page (it is kept as a capture)' } : { ...base, result: 'archived' };
  return { ...base, result: 'waiting' };
}

function describe(outcome: Outcome): string {
  const where = outcome.article === null ? '' : ` → article ${outcome.article} (${plural(outcome.versions ?? 0, 'version')}; \`forest show ${outcome.article}\`)`;
  switch (outcome.result) {
    case 'archived':
      return `archived ${outcome.url}${where}, with ${plural(outcome.requisites, 'requisite')}`;
    case 'revisited':
      return `revisited ${outcome.url}${where}`;
    case 'failed':
    {
      const fix = outcome.error === null ? null : allowHintFor(outcome.error);
      return `failed: ${outcome.url}: ${outcome.error ?? 'not archived'}${fix ? ` — ${fix}` : ''}`;
    }
    case 'waiting':
      return `still waiting: ${outcome.url} is queued; the daemon archives it (\`forest articles --feed forest:pages\` lists what is archived)`;
  }
}
