import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isMap, isSeq, parseDocument, YAMLSeq, type Document } from 'yaml';
import { z } from 'zod';
import type { Subscription } from '../archive/store.js';
import { cronProblem } from '../schedule/cron.js';
import { ConfigError } from './errors.js';
import { lineOf, parseYaml, readYamlFile, validateYaml } from './yaml-file.js';

/**
 * A URL Forest fetches (a feed's, or a page archived by hand): absolute http(s), with no white space or control character inside (a URL parser
 * drops a newline or tab silently, so `…/feed\nX` would be subscribed as another URL than the
 * one written; a space must be percent-encoded).
 */
export const httpUrl = z.string().trim().refine((value) => !/[\u0000-\u0020\u007f-\u009f]/.test(value), 'holds white space or a control character: percent-encode it (a space is %20)').refine((value) => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}, 'must be an absolute http:// or https:// URL');
export const feedUrl = httpUrl;

export const cronExpression = z.string().trim().superRefine((value, ctx) => {
  const problem = cronProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: `invalid cron expression: ${problem}` });
});

const subscriptionSchema = z.strictObject({
  url: feedUrl,
  title: z.string().nullish(),
  siteUrl: z.string().nullish(),
  tags: z.array(z.string()).default([]),
  schedule: cronExpression.nullish(),
  enabled: z.boolean().default(true),
  requisites: z.array(z.enum(['images', 'styles', 'media'])).nullish(),
});

const listSchema = z.array(subscriptionSchema).nullish().transform((list) => list ?? []);

/**
 * Reads the subscription list (a YAML list of feeds). A missing file is an empty list; a bad
 * one fails with file, line and field.
 */
export function readSubscriptions(file: string): Subscription[] {
  if (!existsSync(file)) return [];
  const source = readYamlFile(file);
  const list = validateYaml(source, listSchema);
  const seen = new Map<string, number>();
  list.forEach((subscription, index) => {
    const first = seen.get(subscription.url);
    if (first !== undefined) {
      throw new ConfigError(file, lineOf(source, [index, 'url']), `[${index}].url`, `duplicate of feed [${first}]: ${subscription.url}`);
    }
    seen.set(subscription.url, index);
  });
  return list;
}

/**
 * Edits the list in place, keeping its comments and layout (yaml's Document API), and writes
 * it atomically (temp file + rename).
 */
export function editSubscriptions(file: string, edit: (list: YAMLSeq, document: Document) => void): void {
  const document = existsSync(file) ? readYamlFile(file).document : parseDocument('# Forest subscription list: see config/feeds.example.yaml\n[]\n');
  if (document.contents === null || (!isSeq(document.contents) && document.toJS() === null)) document.contents = new YAMLSeq();
  if (!isSeq(document.contents)) throw new ConfigError(file, 1, null, 'expected a list of feeds');
  edit(document.contents, document);
  const seq = document.contents;
  if (seq.items.length > 0) seq.flow = false;
  // Validate what we are about to write, so an edit can never leave an unreadable list.
  const text = document.toString();
  validateYaml(parseYaml(file, text), listSchema);
  // The list's folder is made on the first subscription (config/ may not exist where forest is
  // run); errors name the list, not the temporary file.
  const temporary = `${file}.tmp-${process.pid}`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(temporary, text);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new ConfigError(file, null, null, `cannot write the subscription list: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** The URLs the list subscribes to. */
export function urlsOf(list: YAMLSeq): Set<string> {
  const urls = new Set<string>();
  for (const item of list.items) {
    const value = (item as { get?: (key: string) => unknown }).get?.('url');
    if (typeof value === 'string') urls.add(value);
  }
  return urls;
}

export function indexOfUrl(list: YAMLSeq, url: string): number {
  return list.items.findIndex((item) => {
    const value = (item as { get?: (key: string) => unknown }).get?.('url');
    return value === url;
  });
}

/** A subscription to add: what `forest feeds add` and `POST /api/v1/feeds` take. */
export interface NewSubscription {
  url: string;
  title?: string | undefined;
  tags?: string[] | undefined;
  schedule?: string | undefined;
  enabled?: boolean | undefined;
}

/** Checks a value from a command line or a request; `source` says where it came from in errors. */
function checked<T>(schema: z.ZodType<T>, value: unknown, source: string, field: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new ConfigError(source, null, field, result.error.issues[0]!.message);
  return result.data;
}

/** Adds a feed to the list (an error names the list when it is there already); returns its URL as written. */
export function addSubscription(file: string, subscription: NewSubscription, source: string): string {
  const url = checked(feedUrl, subscription.url, source, 'url');
  const schedule = subscription.schedule !== undefined ? checked(cronExpression, subscription.schedule, source, 'schedule') : undefined;
  editSubscriptions(file, (list, document) => {
    if (indexOfUrl(list, url) >= 0) throw new ConfigError(file, null, 'url', `already subscribed: ${url}`);
    const entry: Record<string, unknown> = { url };
    if (subscription.title) entry['title'] = subscription.title;
    if (subscription.tags?.length) entry['tags'] = subscription.tags;
    if (schedule) entry['schedule'] = schedule;
    if (subscription.enabled === false) entry['enabled'] = false;
    list.add(document.createNode(entry));
  });
  return url;
}

/** Removes a feed from the list (the archive keeps what it archived). */
export function removeSubscription(file: string, url: string): void {
  editSubscriptions(file, (list) => {
    const index = indexOfUrl(list, url);
    if (index < 0) throw new ConfigError(file, null, 'url', `not subscribed: ${url}`);
    list.delete(index);
  });
}

/** Resumes or pauses polling a feed. */
export function setSubscriptionEnabled(file: string, url: string, enabled: boolean): void {
  editSubscriptions(file, (list) => {
    const index = indexOfUrl(list, url);
    const entry = list.get(index, true);
    if (index < 0 || !isMap(entry)) throw new ConfigError(file, null, 'url', `not subscribed: ${url}`);
    entry.set('enabled', enabled);
  });
}
