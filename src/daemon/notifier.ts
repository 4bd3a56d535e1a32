import { createHmac } from 'node:crypto';
import type { ArchiveEvent, ArchiveNotifications, NotifyEvent, QueuedNotification } from '../archive/store.js';
import { redactUrl, webhookLabel, withoutCredentials } from '../config/secrets.js';
import type { Settings } from '../config/settings.js';
import type { Logger } from '../util/logger.js';
import { FOREST_SOFTWARE } from '../util/project-root.js';
import { DAEMON_OPTIONS } from './options.js';

/**
 * Webhook notifications (issue #53): a signed JSON POST per archive event, from the outbox the
 * archive keeps (archive/notifications.ts). The signature is Miniflux's and GitHub's scheme — an
 * HMAC-SHA256 of the exact body with the webhook's secret, in `X-Forest-Signature: sha256=<hex>`
 * — and the body carries the time it was sent, so that a receiver can refuse a replayed one.
 * A receiver that does not answer 2xx is tried again after `notify.retryDelay`, twice as long
 * each time, up to `notify.maxRetryDelay`: nothing is dropped.
 */

type Webhook = Settings['notify']['webhooks'][number];

/** The changed words of a version's diff: what was removed and added inside edited blocks, and whole blocks added or removed. */
function changedWords(event: Extract<ArchiveEvent, { kind: 'version' }>): { removed: string[]; added: string[] } {
  const removed: string[] = [];
  const added: string[] = [];
  for (const change of event.diff?.blocks ?? []) {
    if (change.op === 'changed') {
      for (const part of change.words) if (part.op !== 'equal') (part.op === 'added' ? added : removed).push(part.text.trim());
    } else if (change.op === 'added') added.push(change.block.text);
    else if (change.op === 'removed') removed.push(change.block.text);
  }
  return { removed: removed.filter(Boolean), added: added.filter(Boolean) };
}

/** Whether an event of `feed` (with `tags`) is for this webhook: no `feeds` nor `tags` means every feed. */
const forWebhook = (webhook: Webhook, feed: string, tags: string[]) =>
  (webhook.feeds === undefined && webhook.tags === undefined) || (webhook.feeds?.includes(feed) ?? false) || (webhook.tags?.some((tag) => tags.includes(tag)) ?? false);

/**
 * An event as the webhook at `webhook` is told it (null: not for it), with absolute links on
 * `base` (serve.publicUrl, or the address `forest serve` listens on). A pure function.
 */
export function composeNotification(webhook: Webhook, event: ArchiveEvent, base: string): { event: NotifyEvent; payload: string } | null {
  if (event.kind === 'feed') {
    if (!webhook.events.includes('feed') || !forWebhook(webhook, event.feed, event.tags)) return null;
    return { event: 'feed', payload: JSON.stringify({ event: 'feed', feed: { url: event.feed, title: event.feedTitle, link: `${base}/feeds/${event.feedId}` }, state: event.state, at: event.at, status: event.status, error: event.error }) };
  }
  if (event.kind === 'gap') {
    if (!webhook.events.includes('gap') || !forWebhook(webhook, event.feed, event.tags)) return null;
    return { event: 'gap', payload: JSON.stringify({ event: 'gap', feed: { url: event.feed, title: event.feedTitle }, gap: event.gap }) };
  }
  const kind: NotifyEvent = event.n === 1 ? 'article' : 'version';
  if (!webhook.events.includes(kind) || !forWebhook(webhook, event.feed, event.tags)) return null;
  const article = `${base}/articles/${event.articleId}`;
  const stamp = event.capturedAt.replace(/[-:T]/g, '').slice(0, 14);
  return {
    event: kind,
    payload: JSON.stringify({
      event: kind,
      feed: { url: event.feed, title: event.feedTitle },
      article: { id: event.articleId, title: event.title, url: event.url },
      version: { n: event.n, capturedAt: event.capturedAt, change: event.change, summary: event.summary, ...(event.n > 1 ? { words: changedWords(event) } : {}) },
      links: {
        article, version: `${article}/versions/${event.n}`, memento: `${base}/captures/${stamp}/${event.url}`,
        ...(event.n > 1 ? { diff: `${article}/diff?from=${event.n - 1}&to=${event.n}` } : {}),
      },
    }),
  };
}

/** The body a delivery sends — its outbox id and the time it is sent, then the event — and the headers that sign it. */
export function signedDelivery(delivery: Pick<QueuedNotification, 'payload'> & { id: number | string; event: NotifyEvent | 'test' }, secret: string, now: Date): { body: string; headers: Record<string, string> } {
  const body = `{"id":"forest-${delivery.id}","sentAt":"${now.toISOString()}",${delivery.payload.slice(1)}`;
  const signature = createHmac('sha256', secret).update(body).digest('hex');
  return {
    body,
    headers: {
      'content-type': 'application/json', 'user-agent': FOREST_SOFTWARE,
      'x-forest-event': delivery.event, 'x-forest-delivery': `forest-${delivery.id}`, 'x-forest-signature': `sha256=${signature}`,
    },
  };
}

/** POSTs one delivery; its status, or why it failed (with no part of the webhook's URL in it: config/secrets.ts). */
export async function post(url: string, delivery: { body: string; headers: Record<string, string> }, timeoutMs: number): Promise<{ status: number | null; error: string | null }> {
  try {
    const target = withoutCredentials(url);
    const response = await fetch(target.url, { method: 'POST', body: delivery.body, headers: { ...delivery.headers, ...target.headers }, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
    await response.arrayBuffer().catch(() => undefined);
    return response.ok ? { status: response.status, error: null } : { status: response.status, error: `HTTP ${response.status}` };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s (notify.timeout)` : cause?.code ?? cause?.message ?? (error as Error).message;
    return { status: null, error: redactUrl(why, url) };
  }
}

/**
 * The events since the last pass, queued for each webhook. Run when the daemon starts too, before
 * it takes work: a webhook new to the archive starts from there, and misses nothing after.
 */
export async function queueEvents(store: ArchiveNotifications, settings: Settings['notify'], base: string, now: Date = new Date()): Promise<number> {
  const webhooks = new Map(settings.webhooks.map((webhook) => [webhook.url, webhook]));
  if (webhooks.size === 0) return 0;
  return store.queueNotifications([...webhooks.keys()], (url, event) => composeNotification(webhooks.get(url)!, event, base), DAEMON_OPTIONS.notify.queueLimit, now);
}

/** One pass: the events since the last one queued, then the deliveries due, one at a time. */
export async function notifyPass(store: ArchiveNotifications, settings: Settings['notify'], base: string, log: Logger, now: () => Date = () => new Date()): Promise<void> {
  const webhooks = new Map(settings.webhooks.map((webhook) => [webhook.url, webhook]));
  if (webhooks.size === 0) return;
  await queueEvents(store, settings, base, now());
  const failing = new Set<string>();
  for (const delivery of await store.dueNotifications(now(), DAEMON_OPTIONS.notify.deliveriesPerPass)) {
    const webhook = webhooks.get(delivery.webhook);
    // A webhook taken out of the settings keeps its waiting deliveries until it comes back; one
    // that failed in this pass is not tried again in it (its deliveries keep their order).
    if (!webhook || failing.has(webhook.url)) continue;
    const { status, error } = await post(webhook.url, signedDelivery(delivery, webhook.secret, now()), settings.timeout);
    if (error === null) {
      await store.recordDelivery(delivery.id, { delivered: true, status: status ?? 200 }, now());
      log.info({ webhook: webhookLabel(webhook.url), event: delivery.event, delivery: delivery.id, status }, 'notified');
    } else {
      failing.add(webhook.url);
      const wait = Math.min(settings.retryDelay * 2 ** delivery.attempts, settings.maxRetryDelay);
      await store.recordDelivery(delivery.id, { delivered: false, status, error, retryAt: new Date(now().getTime() + wait) }, now());
      log.warn({ webhook: webhookLabel(webhook.url), event: delivery.event, delivery: delivery.id, status, error, retryInS: Math.round(wait / 1000) }, 'notification failed');
    }
  }
}

/** The base of the links a notification carries: the app's public address, or the one `forest serve` listens on. */
export const linkBase = (serve: Settings['serve']) => (serve.publicUrl ? new URL(serve.publicUrl).origin : `http://${serve.host.includes(':') ? `[${serve.host}]` : serve.host}:${serve.port}`);
