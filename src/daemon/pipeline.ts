import { isStorageFull, type ArticleToRevisit, type CheckedPage, type FeedGap, type FeedToPoll, type ItemToCapture } from '../archive/store.js';
import { nextCheck, retryCheck } from '../schedule/revisit.js';
import type { FeedItem, ParsedFeed } from '../feeds/model.js';
import { FetchError, type FetchResult } from '../net/fetcher.js';
import { allowHintFor } from '../net/address-check.js';
import { freshnessMs } from '../net/freshness.js';
import { estimateRate, nextPoll, relaxWhenPushed, stretchWhenBehind } from '../schedule/policy.js';
import { discoverHub, hubKeptUp, pushedNow } from '../net/websub.js';
import { observePoll, parseState } from '../schedule/state.js';
import { redirectVerdict } from './availability.js';
import { describeGap, gapRecord, gapSuspected, walkBack } from './gap-recovery.js';
import { feedEventOf } from './feed-events.js';
import { recordUnchangedRevisit } from './extraction.js';
import { lookAtPictures } from './pictures.js';
import type { PipelineContext } from './context.js';
import { namesRequisites } from './requisites.js';
import type { RevisitTask } from './tasks.js';
import { SCHEDULE_OPTIONS } from '../schedule/options.js';

/** The date a feed shows for an item, as the scheduler reads it. */
const shownDate = (item: FeedItem): number | null => {
  const value = item.published ?? item.updated;
  return value ? Date.parse(value) : null;
};

/** Raised when work is cut short by shutdown: nothing is recorded for it. */
const aborted = (error: unknown, signal: AbortSignal) => signal.aborted || (error instanceof FetchError && error.kind === 'aborted');

/**
 * Work that failed for Forest's own reasons records nothing against the feed, item or article:
 * cut short by shutdown, or unable to write because the database is full (the daemon stops
 * taking work and says so; the unit stays due).
 */
function notTheirFailure(error: unknown, signal: AbortSignal): boolean {
  if (isStorageFull(error)) throw error;
  return aborted(error, signal);
}

/** Compresses a fetched body in the pool, against the reference capture of its site (archive/codec.ts). */
const encodeCapture = async (context: PipelineContext, result: FetchResult) =>
  context.pool.encode({ body: result.body, reference: await context.store.captureReference(result.finalUrl) });

/** What the pool needs to judge a revisited page before anything of it is stored (tasks.ts, revisitTask). */
async function revisitInput(context: PipelineContext, article: ArticleToRevisit, result: FetchResult, previousDigest: string | null): Promise<RevisitTask> {
  const { store, settings } = context;
  return {
    page: { body: result.body, contentType: result.contentType, url: result.finalUrl, feed: article.item },
    maxBytes: settings.extract.maxBytes,
    templates: await store.templateChoices(article.feedId),
    compare: await store.comparisonKey(article.itemId),
    previousDigest,
    reference: await store.captureReference(result.finalUrl),
  };
}

/** A refused address's log line names the setting that would allow it. */
const fixFor = (error: string) => {
  const fix = allowHintFor(error);
  return fix === null ? {} : { fix };
};

/** One document of a feed's archive, parsed in the pool; null when it cannot be had (the walk back ends there). */
async function fetchFeedDocument(context: PipelineContext, url: string, signal: AbortSignal): Promise<ParsedFeed | null> {
  try {
    const fetched = await context.fetcher.fetch(url, {}, signal);
    if (fetched.status !== 200) return null;
    const outcome = await context.pool.parseFeed({ body: fetched.body, url: fetched.finalUrl, contentType: fetched.contentType });
    return 'error' in outcome ? null : outcome.feed;
  } catch {
    return null;
  }
}

/** Fetches, parses and records one feed. Failures are recorded on the feed, never thrown. */
export async function pollFeed(context: PipelineContext, feed: FeedToPoll, signal: AbortSignal): Promise<void> {
  const { store, fetcher, settings, log } = context;
  const now = context.now ?? (() => new Date());
  const startedAt = now();
  const started = performance.now();
  let fetch: FetchResult | null = null;
  let parsed: ParsedFeed | null = null;
  let error: string | null = null;
  let busyTimeout = false;
  try {
    fetch = await fetcher.fetch(feed.url, { etag: feed.etag, lastModified: feed.lastModified }, signal);
    if (fetch.status >= 400 || (fetch.status >= 300 && !fetch.notModified)) {
      error = `HTTP ${fetch.status}${fetch.retryAfterMs !== null ? ` (Retry-After ${Math.round(fetch.retryAfterMs / 1000)}s)` : ''}`;
    } else if (!fetch.notModified) {
      const outcome = await context.pool.parseFeed({ body: fetch.body, url: fetch.finalUrl, contentType: fetch.contentType });
      if ('error' in outcome) error = outcome.error;
      // WebSub discovery (§4): the response's Link header names the hub and topic before the document does.
      else parsed = { ...outcome.feed, feed: { ...outcome.feed.feed, ...discoverHub(fetch.headers['link'], outcome.feed.feed, fetch.finalUrl) } };
    }
  } catch (caught) {
    if (notTheirFailure(caught, signal)) return;
    if (caught instanceof FetchError) error = caught.message;
    else error = `unexpected: ${(caught as Error).message}`;
    // A timeout while Forest itself is behind (its loop and pool saturated) says nothing of the
    // feed: it is recorded, but neither counted as the feed's failure nor backed off from.
    busyTimeout = caught instanceof FetchError && caught.kind === 'timeout' && (context.pollLag?.() ?? 0) > SCHEDULE_OPTIONS.behindScheduleMs;
    if (busyTimeout) error = `${error} while Forest was behind schedule (not counted against the feed)`;
  }
  const result = error ? 'error' : fetch?.notModified ? 'not-modified' : 'ok';
  const at = now().getTime();
  const known = parsed ? await store.knownGuids(feed.id, parsed.items.map((item) => item.guid)) : new Set<string>();
  const previous = parseState(feed.scheduleState);
  const state = observePoll(previous, {
    at,
    failed: error !== null && !busyTimeout,
    notModified: fetch?.notModified ?? false,
    items: parsed?.items.map((item) => ({ guid: item.guid, date: shownDate(item), isNew: !known.has(item.guid) })) ?? null,
  });
  const maxAge = fetch && !error ? freshnessMs(fetch.headers, at) : null;
  const info = parsed?.feed;
  const planned = nextPoll(state, {
    cron: feed.cron,
    ...(info ? { ttlMinutes: info.ttl, updatePeriod: info.updatePeriod, updateFrequency: info.updateFrequency, skipHours: info.skipHours, skipDays: info.skipDays } : feed.hints),
    maxAgeMs: maxAge ?? (feed.maxAgeSeconds !== null ? feed.maxAgeSeconds * 1000 : null),
    retryAfterMs: fetch?.retryAfterMs ?? null,
  }, at, settings.schedule);
  const stretched = stretchWhenBehind(planned, context.pollLag?.() ?? 0, feed.cron);
  // A feed its hub pushes is polled to check the hub (net/websub.ts): new items no push announced
  // count against the hub, and a hub silent twice in a row is dropped.
  const pushed = settings.websub.callbackUrl !== null && feed.push !== null && pushedNow(feed.push, at);
  const decision = pushed ? relaxWhenPushed(stretched, at, settings.websub.pollInterval, feed.cron) : stretched;
  const push = pushed && parsed ? hubKeptUp(feed.push!, previous.lastSuccessAt, parsed.items.filter((item) => !known.has(item.guid)).length) : null;
  if (push?.drop) log.warn({ feed: feed.url }, 'the WebSub hub stayed silent while polls found new items: the feed is polled on its own schedule again');
  // A document that shares nothing with what was seen may have lost items: the feed's archive
  // is followed back to a known item, and the gap recorded either way (gap-recovery.ts). The
  // scheduler saw the document alone; the archive's items are stored beside it.
  let gap: FeedGap | null = null;
  if (parsed && fetch && gapSuspected(previous.lastGuids.length, parsed.items.map((item) => item.guid), known)) {
    const walk = await walkBack(fetch.finalUrl, parsed, (url) => fetchFeedDocument(context, url, signal), (guids) => store.knownGuids(feed.id, guids));
    if (signal.aborted) return;
    gap = gapRecord({
      since: previous.lastSuccessAt ?? at, until: at, documentItems: parsed.items.length,
      documentDates: parsed.items.map(shownDate).filter((date): date is number => date !== null && !Number.isNaN(date)),
      newestKnown: previous.arrivals.at(-1) ?? null, ratePerMs: estimateRate(previous, at)?.uncertainRate ?? null,
    }, walk);
    parsed = { ...parsed, items: [...parsed.items, ...walk.items] };
    log.warn({ feed: feed.url, ...gap }, describeGap(gap));
  }
  const durationMs = Math.round(performance.now() - started);
  const document = fetch && (({ body, ...page }) => ({ ...page, bytes: body.length }))(fetch);
  const report = await store.recordPoll(feed, {
    startedAt, durationMs, result, fetch: document, parsed, error, gap, push,
    feedEvent: feedEventOf({ errorsBefore: previous.consecutiveErrors, errorsAfter: state.consecutiveErrors, status: fetch?.status ?? null }),
    countsAsFailure: !busyTimeout,
    schedule: {
      nextPollAt: decision.at, riskAt: decision.riskAt, reason: decision.reason, state: JSON.stringify(state), ratePerHour: decision.ratePerHour, window: decision.window,
      maxAgeSeconds: maxAge !== null ? Math.round(maxAge / 1000) : null,
    },
    capturePages: settings.capture.enabled,
    // A feed item whose date, title or summary changed says its article was probably edited:
    // look at the page now rather than at the next step of its revisit schedule.
    revisitChangedItemsAt: settings.revisit.enabled ? startedAt : null,
  });
  const fields = {
    feed: feed.url, status: fetch?.status ?? null, result, items: parsed?.items.length ?? 0, new: report.newItems,
    changed: report.changedItems, ms: durationMs, next: decision.at.toISOString(), ...(decision.riskAt ? { riskAt: decision.riskAt.toISOString() } : {}),
  };
  if (error) log.warn({ ...fields, error, ...fixFor(error) }, 'poll failed');
  else log.info({ ...fields, ...(parsed?.warnings.length ? { warnings: parsed.warnings.length } : {}), ...(fetch?.permanentUrl ? { movedTo: fetch.permanentUrl } : {}) }, 'polled');
}

/**
 * Looks at an archived article's page again, with a conditional GET. A 304 or a failure is
 * recorded as a check at once. A page is extracted in the pool before anything is stored: when
 * its article object is the one archived, the check keeps the payload's digest and headers, not
 * its bytes; otherwise the page is stored as a snapshot, and its queued extraction decides
 * whether it is a new version.
 */
export async function revisitPage(context: PipelineContext, article: ArticleToRevisit, signal: AbortSignal): Promise<void> {
  const { store, fetcher, settings, log } = context;
  const started = performance.now();
  const now = () => context.now?.() ?? new Date();
  const page = (status: number | null): CheckedPage => ({ at: now().toISOString(), status, snapshotId: null });
  const schedule = (at: string) => nextCheck(settings.revisit, article.revisitStep, false, at);
  // No answer spends no step: the check is retried, and the host's other pages wait with it.
  const noAnswer = async (status: number | null, reason: string, retryAfterMs: number | null) => {
    const checked = page(status);
    const next = retryCheck(settings.revisit, article.revisitStep, article.failedChecks, checked.at, retryAfterMs);
    context.hostTrouble?.failed(article.url, Date.parse(checked.at), retryAfterMs);
    await store.recordCheck(article.id, checked, 'failed', next, reason);
    log.warn({ url: article.url, article: article.id, status, error: reason, ...fixFor(reason), inRow: next.failures, next: next.at, ms: Math.round(performance.now() - started) },
      next.failures ? 'revisit failed: retried' : 'revisit failed: the step is spent');
  };
  const hostWait = context.hostTrouble?.waitUntil(article.url, now().getTime()) ?? null;
  if (hostWait !== null) {
    const at = new Date(hostWait).toISOString();
    await store.postponeCheck(article.id, at);
    log.debug({ url: article.url, article: article.id, next: at }, 'revisit put off: its host is not answering');
    return;
  }
  try {
    const result = await fetcher.fetch(article.url, { etag: article.etag, lastModified: article.lastModified }, signal);
    const answered = result.status < 500 && result.status !== 429;
    if (answered) context.hostTrouble?.answered(article.url);
    if (result.notModified) {
      const checked = page(304);
      await store.recordCheck(article.id, checked, 'unchanged', schedule(checked.at), 'not modified (304)');
      log.info({ url: article.url, article: article.id, status: 304, ms: result.durationMs }, 'revisited: not modified');
      await lookAtPictures(context, article, signal);
      return;
    }
    if (result.status === 404 || result.status === 410) {
      const body = result.body.length > 0 ? await encodeCapture(context, result) : null;
      await store.recordRevisit(article.id, result, { kind: 'gone', body, next: schedule(result.fetchedAt.toISOString()) });
      log.warn({ url: article.url, article: article.id, status: result.status, ms: result.durationMs }, 'revisited: gone');
      return;
    }
    if (result.status < 200 || result.status >= 300) {
      if (!answered) return await noAnswer(result.status, `HTTP ${result.status}`, result.retryAfterMs);
      const checked = page(result.status);
      await store.recordCheck(article.id, checked, 'failed', schedule(checked.at), `HTTP ${result.status}`);
      log.warn({ url: article.url, article: article.id, status: result.status, ms: result.durationMs }, 'revisit failed');
      return;
    }
    const elsewhere = result.redirects.length > 0 ? redirectVerdict(article.url, result.finalUrl, await store.otherArticleAt(result.finalUrl, article.id)) : null;
    if (elsewhere !== null) {
      await store.recordRevisit(article.id, result, { kind: 'unavailable', body: await encodeCapture(context, result), next: schedule(result.fetchedAt.toISOString()), reason: elsewhere });
      log.warn({ url: article.url, article: article.id, status: result.status, reason: elsewhere, ms: Math.round(performance.now() - started) }, 'revisited: unavailable');
      return;
    }
    const previousDigest = await store.latestPayloadDigest(article.itemId);
    const task = await revisitInput(context, article, result, previousDigest);
    const revisit = await context.pool.revisit(task);
    if (revisit.kind === 'same' && await recordUnchangedRevisit(context, article, result, revisit)) {
      log.info({ url: article.url, article: article.id, status: result.status, bytes: result.body.length, ms: Math.round(performance.now() - started) }, 'revisited: same object');
      await lookAtPictures(context, article, signal);
      return;
    }
    const body = revisit.kind === 'store' ? revisit.body : await encodeCapture(context, result);
    if (body.sha256 === previousDigest) {
      // Byte for byte the last capture: nothing to extract, no body to store again.
      const snapshotId = await store.recordRevisit(article.id, result, { kind: 'identical', body, next: schedule(result.fetchedAt.toISOString()) });
      log.info({ url: article.url, article: article.id, status: result.status, snapshot: snapshotId, ms: Math.round(performance.now() - started) }, 'revisited: identical payload');
      await lookAtPictures(context, article, signal);
      return;
    }
    const snapshotId = await store.recordRevisit(article.id, result, { kind: 'extract', body, requisites: wantsRequisites(context, result) });
    context.requisites?.add(snapshotId, result);
    // The page was extracted above: its queued extraction takes that result (extracted-ahead.ts).
    if (revisit.kind === 'store' && revisit.extracted) context.ahead?.remember(snapshotId, task, revisit.extracted);
    log.info({ url: article.url, article: article.id, status: result.status, bytes: result.body.length, snapshot: snapshotId, ms: Math.round(performance.now() - started) }, 'revisited');
  } catch (caught) {
    if (notTheirFailure(caught, signal)) return;
    await noAnswer(null, caught instanceof Error ? caught.message : String(caught), null);
  }
}

/** Whether a capture is queued for its requisites with it: they are fetched (a lane takes them), and its page can name some. */
const wantsRequisites = (context: PipelineContext, page: FetchResult): boolean => Boolean(context.requisites) && namesRequisites(page);

/** Fetches and stores the page behind one item. Failures are recorded on the item, never thrown. */
export async function capturePage(context: PipelineContext, item: ItemToCapture, signal: AbortSignal): Promise<void> {
  const { store, fetcher, settings, log } = context;
  const now = context.now ?? (() => new Date());
  const { url } = item;
  if (!url) return;
  const started = performance.now();
  try {
    const result = await fetcher.fetch(url, {}, signal);
    if (result.status >= 400 || result.status < 200 || result.status >= 300) {
      const retryAt = new Date(now().getTime() + Math.max(settings.capture.retryDelay, result.retryAfterMs ?? 0));
      await store.recordCaptureFailure(item.id, `HTTP ${result.status}`, retryAt, settings.capture.maxAttempts);
      log.warn({ url, status: result.status, ms: result.durationMs }, 'capture failed');
      return;
    }
    const body = result.body.length > 0 ? await encodeCapture(context, result) : null;
    const snapshotId = await store.recordCapture(item.id, result, body, wantsRequisites(context, result));
    log.info({ url, status: result.status, bytes: result.body.length, final: result.finalUrl !== url ? result.finalUrl : undefined, snapshot: snapshotId, ms: Math.round(performance.now() - started) }, 'captured');
    context.requisites?.add(snapshotId, result);
  } catch (caught) {
    if (notTheirFailure(caught, signal)) return;
    const message = caught instanceof Error ? caught.message : String(caught);
    await store.recordCaptureFailure(item.id, message, new Date(now().getTime() + settings.capture.retryDelay), settings.capture.maxAttempts);
    log.warn({ url, error: message, ...fixFor(message), ms: Math.round(performance.now() - started) }, 'capture failed');
  }
}
