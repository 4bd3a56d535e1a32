import { z } from 'zod';
import type { ArticleRow, CheckRow, VersionRow } from './rules/articles.js';
import type { ChangeRow } from './rules/access.js';
import type { PendingSnapshot, TemplatePage } from './rules/extractions.js';
import type { FeedCounts } from './feed-counts.js';
import type { FeedRow } from './rules/feeds.js';
import type { ItemRow } from './rules/items.js';
import type { GapEventRow, VersionEventRow } from './rules/notifications.js';
import { blockSchema, normalizedObjectSchema } from './normalize.js';
import { joinedHeaders, json } from './rows.js';
import type {
  ArchiveEvent, Article, ArticleSummary, ArticleToRevisit, Change, Check, Feed, FeedStatus, FeedToPoll, PushSubscriptionRecord, StoredCapture, Version,
} from './store.js';

/**
 * Rows become domain types here, the same for both backends: their tables have the same columns
 * (migrations/ and migrations/postgres/), so a row read from either is mapped once. The JSON a
 * row holds (a version's object, its diff and change kinds, a feed's tags) is validated as it is
 * read, so a damaged row is an error naming the row rather than a wrong value somewhere later.
 */

export const changeKind = z.enum(['title', 'byline', 'dates', 'body-edit', 'paragraphs-added', 'paragraphs-removed', 'media-added', 'media-removed', 'picture-changed']);
const wordPart = z.object({ op: z.enum(['equal', 'added', 'removed']), text: z.string() });
const blockChange = z.union([
  z.object({ op: z.literal('equal'), count: z.number() }),
  z.object({ op: z.enum(['added', 'removed']), block: blockSchema }),
  z.object({ op: z.literal('changed'), before: blockSchema, after: blockSchema, words: z.array(wordPart) }),
]);
const pictureSide = z.object({ sha256: z.string(), contentType: z.string().nullable(), width: z.number().nullable(), height: z.number().nullable(), fetchedAt: z.string() });
export const objectDiff = z.object({
  fields: z.array(z.object({ field: z.enum(['title', 'byline', 'published']), before: z.string().nullable(), after: z.string().nullable() })),
  blocks: z.array(blockChange),
  media: z.object({ added: z.array(z.string()), removed: z.array(z.string()) }),
  pictures: z.array(z.object({ url: z.string(), before: pictureSide, after: pictureSide })).optional(),
  kinds: z.array(changeKind),
  editedShare: z.number(),
  summary: z.string(),
});

export const feedGapSchema = z.object({ since: z.string(), until: z.string(), recovered: z.number(), pages: z.number(), complete: z.boolean(), missing: z.number().nullable() });

export const feedOf = (row: FeedRow): Feed => ({
  id: row.id, subscribedUrl: row.subscribed_url, url: row.url, title: row.title ?? row.feed_title, feedTitle: row.feed_title, siteUrl: row.site_url,
  tags: json(z.array(z.string()), row.tags, `feed ${row.id}'s tags`), schedule: row.cron, enabled: row.enabled === 1, format: row.format,
  subscription: {
    url: row.subscribed_url, title: row.title, siteUrl: row.site_url, tags: json(z.array(z.string()), row.tags, `feed ${row.id}'s tags`), schedule: row.cron,
    enabled: row.enabled === 1, requisites: row.requisites === null ? null : json(z.array(z.enum(['images', 'styles', 'media'])), row.requisites, `feed ${row.id}'s requisites`),
  },
});

export const articleOf = (row: ArticleRow): Article => ({
  id: row.id, feedId: row.feed_id, url: row.url, finalUrl: row.final_url, canonicalUrl: row.canonical_url, title: row.title, versions: row.versions,
  firstCaptured: row.first_captured, lastChecked: row.last_checked, nextCheck: row.next_check_at, goneSince: row.gone_since, failedChecks: row.failed_checks,
});

export function versionOfRow(row: VersionRow): Version {
  const where = `version ${row.n} of article ${row.article_id}`;
  return {
    n: row.n, snapshotId: row.snapshot_id, capturedAt: row.captured_at, method: row.method, wrapperId: row.wrapper_id, reason: row.extraction_reason, hash: row.hash,
    change: json(z.array(changeKind), row.change, `${where} (change)`), summary: row.summary,
    diff: row.diff === null ? null : json(objectDiff, row.diff, `${where} (diff)`),
    title: row.title, byline: row.byline, published: row.published, text: row.text, html: row.html,
    object: json(normalizedObjectSchema, row.blocks, `${where} (object)`),
    reextracted: row.reextracted_at !== null && row.first_method !== null && row.first_hash !== null ? { at: row.reextracted_at, firstMethod: row.first_method, firstHash: row.first_hash } : null,
  };
}

export const checkOf = (row: CheckRow): Check => ({ at: row.at, status: row.status, result: row.result, version: row.version_n, reason: row.reason });

/** A feed's line in status: its row, its counts (each table read once), its WebSub subscription. */
export function feedStatusOf(row: FeedRow, count: FeedCounts | undefined, push: PushSubscriptionRecord | undefined): FeedStatus {
  const enabled = row.enabled === 1;
  return {
    id: row.id, url: row.subscribed_url, fetchUrl: row.url, title: row.title ?? row.feed_title, enabled,
    lastPoll: row.last_poll_at, result: row.last_result, httpStatus: row.last_status, nextPoll: enabled ? row.next_poll_at : null,
    scheduleReason: row.schedule_reason, ratePerHour: row.rate_per_hour, window: row.window_size,
    items: count?.items ?? 0, pages: count?.pages ?? 0, pendingPages: count?.pendingPages ?? 0, failedPages: count?.failedPages ?? 0,
    errors: row.error_count, consecutiveErrors: row.consecutive_errors, lastError: row.last_error, lastPageError: count?.lastPageError ?? null,
    lastGap: row.last_gap ? json(feedGapSchema, row.last_gap, `feed ${row.id}'s last gap`) : null,
    push: push ? { hub: push.hub, topic: push.topic, state: push.state, leaseUntil: push.leaseUntil, lastPushAt: push.lastPushAt, pushes: push.pushes, lastError: push.lastError } : null,
    articles: count?.articles ?? 0, versions: count?.versions ?? 0, checks: count?.checks ?? 0, nextRevisit: count?.nextRevisit ?? null, retrying: count?.retrying ?? 0, nextRetry: count?.nextRetry ?? null,
  };
}

/** The archive's events after a webhook's cursor, as the notifier composes them. */
export function archiveEvents(versions: VersionEventRow[], gaps: GapEventRow[]): ArchiveEvent[] {
  const tagsOf = (tags: string, where: string) => json(z.array(z.string()), tags, `${where} (its feed's tags)`);
  return [
    ...versions.map((row): ArchiveEvent => {
      const where = `version ${row.n} of article ${row.articleId}`;
      return {
        kind: 'version', id: row.id, articleId: row.articleId, n: row.n, title: row.title, url: row.url, feed: row.feed, feedTitle: row.feedTitle,
        tags: tagsOf(row.tags, where), capturedAt: row.capturedAt, change: json(z.array(z.string()), row.change, `${where} (change)`), summary: row.summary,
        diff: row.diff === null ? null : json(objectDiff, row.diff, `${where} (diff)`),
      };
    }),
    ...gaps.map((row): ArchiveEvent => {
      const about = { id: row.id, feed: row.feed, feedTitle: row.feedTitle, tags: tagsOf(row.tags, `poll ${row.id}`) };
      return row.gap !== null ? { kind: 'gap', ...about, gap: json(feedGapSchema, row.gap, `poll ${row.id} (gap)`) }
        : { kind: 'feed', ...about, feedId: row.feedId, state: row.feedEvent ?? 'failing', at: row.startedAt, status: row.status, error: row.error };
    }),
  ];
}

export const captureOf = (row: PendingSnapshot): StoredCapture => ({
  snapshotId: row.snapshot_id, itemId: row.item_id, feedId: row.feed_id, url: row.url, finalUrl: row.final_url, fetchedAt: row.fetched_at, status: row.status,
  headers: joinedHeaders(row.headers, `capture ${row.snapshot_id} (headers)`),
  contentType: row.content_type, sha256: row.sha256,
  item: { title: row.title, summary: row.summary, published: row.published, updated: row.updated, author: row.author },
});

export function feedToPollOf(row: FeedRow, subscription: PushSubscriptionRecord | null): FeedToPoll {
  const where = `feed ${row.id}`;
  return {
    id: row.id, url: row.url, etag: row.etag, lastModified: row.last_modified, scheduleState: row.schedule_state, cron: row.cron,
    hints: {
      ttlMinutes: row.ttl_minutes, updatePeriod: row.update_period, updateFrequency: row.update_frequency,
      skipHours: json(z.array(z.number()), row.skip_hours, `${where} (skip_hours)`), skipDays: json(z.array(z.string()), row.skip_days, `${where} (skip_days)`),
    },
    maxAgeSeconds: row.max_age_seconds,
    push: subscription && { state: subscription.state, leaseUntil: subscription.leaseUntil, lastPushAt: subscription.lastPushAt, missedInRow: subscription.missedInRow },
  };
}

export const articleToRevisitOf = (row: ArticleRow, item: ItemRow): ArticleToRevisit => ({
  id: row.id, itemId: row.item_id, feedId: row.feed_id, url: row.url, etag: row.etag, lastModified: row.last_modified, revisitStep: row.revisit_step, failedChecks: row.failed_checks,
  item: { title: item.title, summary: item.summary, published: item.published, updated: item.updated, author: item.author },
});

/** An edit in the change feed. */
export const changeOf = (row: ChangeRow): Change => ({
  articleId: row.articleId, version: row.n, capturedAt: row.capturedAt, title: row.title, url: row.url,
  change: json(z.array(changeKind), row.change, `version ${row.n} of article ${row.articleId} (change)`), summary: row.summary,
  diff: row.diff === null ? null : json(objectDiff, row.diff, `version ${row.n} of article ${row.articleId} (diff)`), feed: row.feed, feedTitle: row.feedTitle,
});

/** A template's recent pages as learning reads them: those whose body is kept, with what was extracted from each. */
export const learningPagesOf = (pages: TemplatePage[]) => pages.flatMap((page) => {
  if (page.sha256 === null) return [];
  const extracted = {
    title: page.extracted_title, byline: page.extracted_byline, published: page.extracted_published, modified: page.extracted_modified,
    leadImage: page.extracted_lead_image, language: page.extracted_language, text: page.text,
  };
  return [{ ...captureOf(page), sha256: page.sha256, extracted }];
});

/** A page of articles read with one more than asked (whether a next page exists, without a count), and the cursor of that next page. */
export function pageWithCursor(rows: ArticleSummary[], limit: number): { articles: ArticleSummary[]; next: { firstCaptured: string; id: number } | null } {
  const articles = rows.slice(0, limit);
  const last = articles.at(-1);
  return { articles, next: rows.length > limit && last ? { firstCaptured: last.firstCaptured, id: last.id } : null };
}
