import { z } from 'zod';
import { integer, nullableText, text } from '../rows.js';

/** The rows of the archive's events as webhooks are told them, on either engine (the queries that read them are each engine's: they page by two cursors in its dialect). */

export const versionEventRow = z.object({
  id: integer, articleId: integer, n: integer, title: nullableText, url: text, feed: text, feedTitle: nullableText, tags: text,
  capturedAt: text, change: text, summary: nullableText, diff: nullableText,
});

export const gapEventRow = z.object({
  id: integer, feedId: integer, feed: text, feedTitle: nullableText, tags: text, gap: nullableText, feedEvent: z.enum(['failing', 'gone']).nullable(), startedAt: text, status: z.number().int().nullable(),
  error: nullableText,
});

export type VersionEventRow = z.infer<typeof versionEventRow>;

export type GapEventRow = z.infer<typeof gapEventRow>;
