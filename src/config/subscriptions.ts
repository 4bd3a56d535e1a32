import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isSeq, parseDocument, YAMLSeq, type Document } from 'yaml';
import { z } from 'zod';
import type { Subscription } from '../archive/feeds.js';
import { cronProblem } from '../schedule/cron.js';
import { ConfigError } from './errors.js';
import { lineOf, parseYaml, readYamlFile, validateYaml } from './yaml-file.js';

/** A feed URL: absolute http(s). */
export const feedUrl = z.string().trim().refine((value) => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}, 'must be an absolute http:// or https:// URL');

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
