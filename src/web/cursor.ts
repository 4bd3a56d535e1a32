import { z } from 'zod';
import type { ArticleCursor } from '../archive/store.js';
import { Problem } from './problems.js';

/** A cursor is the last article of a page, opaque to clients (base64url JSON): the API's `next` and the article list's "older" link. */
const cursorShape = z.tuple([z.string(), z.number().int()]);

export const encodeCursor = (cursor: ArticleCursor) => Buffer.from(JSON.stringify([cursor.firstCaptured, cursor.id])).toString('base64url');

export function decodeCursor(text: string): ArticleCursor {
  try {
    const [firstCaptured, articleId] = cursorShape.parse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')));
    return { firstCaptured, id: articleId };
  } catch {
    throw new Problem(400, 'Bad cursor', 'the cursor is not one this server gave: start again without it');
  }
}
