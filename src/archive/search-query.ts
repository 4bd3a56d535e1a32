import { SearchQueryError } from './store.js';

/**
 * Forest's search language, parsed by Forest (not by a database engine) and translated for each
 * backend, so that whatever a user types is searched or answered with a one-line reason:
 *
 *   words              every word (implicit AND; `AND` may be written)
 *   "a phrase"         the words in this order (a quote left open runs to the end)
 *   a OR b             either
 *   -word, NOT word    not this (at least one word of the query must be wanted)
 *   prefix*            any word starting so
 *   title:word         in the title only (also title:"a phrase", title:prefix*)
 *   ( … )              grouping (a parenthesis left open closes at the end)
 *
 * A word is a run of letters and digits, as the index tokenizes text: `harbour-bridge` and
 * `it's` are searched as the phrases "harbour bridge" and "it s", which is where the index has
 * them. Keywords are upper case (`or` is a word). Punctuation alone (`*`, `!`) is passed over.
 */

export type SearchField = 'title' | null;

export type SearchNode =
  /** Consecutive index words (one for a plain word); `prefix` applies to the last. */
  | { kind: 'phrase'; words: string[]; prefix: boolean; field: SearchField }
  | { kind: 'and'; include: SearchNode[]; exclude: SearchNode[] }
  | { kind: 'or'; any: SearchNode[] };

/** The index's words in `text`: runs of letters, marks and digits. */
export const indexWords = (text: string) => text.match(/[\p{L}\p{M}\p{N}]+/gu) ?? [];

type Token =
  | { kind: 'text'; text: string; prefix: boolean; quoted: boolean; field: SearchField; negated: boolean }
  | { kind: 'open'; field: SearchField; negated: boolean }
  | { kind: 'close' }
  | { kind: 'or' }
  | { kind: 'and' }
  | { kind: 'not' };

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < query.length) {
    const rest = query.slice(i);
    const space = /^\s+/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    // A leading `-` negates what follows it directly; `title:` names the field of what follows.
    const marks = /^(-?)(title:)?/i.exec(rest)!;
    const negated = marks[1] === '-';
    const field: SearchField = marks[2] ? 'title' : null;
    i += marks[0].length;
    const next = query[i];
    if (next === undefined) break;
    // A `-` or `title:` with nothing after it: passed over.
    if (/\s/.test(next)) continue;
    if (next === '"') {
      const end = query.indexOf('"', i + 1);
      const body = end < 0 ? query.slice(i + 1) : query.slice(i + 1, end);
      i = end < 0 ? query.length : end + 1;
      const prefix = query[i] === '*';
      if (prefix) i++;
      tokens.push({ kind: 'text', text: body, prefix, quoted: true, field, negated });
    } else if (next === '(') {
      tokens.push({ kind: 'open', field, negated });
      i++;
    } else if (next === ')') {
      tokens.push({ kind: 'close' });
      i++;
    } else {
      const word = /^[^\s()"]+/.exec(query.slice(i))![0];
      i += word.length;
      if (!negated && !field && (word === 'OR' || word === 'AND' || word === 'NOT')) tokens.push({ kind: word === 'OR' ? 'or' : word === 'AND' ? 'and' : 'not' });
      else tokens.push({ kind: 'text', text: word, prefix: word.endsWith('*'), quoted: false, field, negated });
    }
  }
  return tokens;
}

/** A node's field, pushed down to its phrases (`title:(a OR b)`). */
function withField(node: SearchNode, field: SearchField): SearchNode {
  if (field === null) return node;
  if (node.kind === 'phrase') return { ...node, field };
  if (node.kind === 'or') return { kind: 'or', any: node.any.map((child) => withField(child, field)) };
  return { kind: 'and', include: node.include.map((child) => withField(child, field)), exclude: node.exclude.map((child) => withField(child, field)) };
}

class Parser {
  private at = 0;
  constructor(private readonly tokens: Token[]) {}

  /** orExpr := andExpr ('OR' andExpr)* ; null when it holds no word. */
  or(): SearchNode | null {
    const any: SearchNode[] = [];
    for (;;) {
      const part = this.and();
      if (part) any.push(part);
      if (this.tokens[this.at]?.kind !== 'or') break;
      this.at++;
    }
    return any.length === 0 ? null : any.length === 1 ? any[0]! : { kind: 'or', any };
  }

  /** andExpr := (['NOT'] unit)* — until OR, a closing parenthesis or the end. */
  private and(): SearchNode | null {
    const include: SearchNode[] = [];
    const exclude: SearchNode[] = [];
    let negateNext = false;
    for (let token = this.tokens[this.at]; token && token.kind !== 'or' && token.kind !== 'close'; token = this.tokens[this.at]) {
      this.at++;
      if (token.kind === 'and') continue;
      if (token.kind === 'not') {
        negateNext = true;
        continue;
      }
      let unit: SearchNode | null;
      let negated: boolean;
      if (token.kind === 'open') {
        unit = this.or();
        if (this.tokens[this.at]?.kind === 'close') this.at++;
        unit = unit && withField(unit, token.field);
        negated = token.negated;
      } else {
        const words = indexWords(token.text);
        unit = words.length === 0 ? null : { kind: 'phrase', words, prefix: token.prefix, field: token.field };
        negated = token.negated;
      }
      if (unit) (negated || negateNext ? exclude : include).push(unit);
      negateNext = false;
    }
    if (include.length === 0 && exclude.length === 0) return null;
    if (include.length === 0) throw new SearchQueryError(`nothing to search for: every word of "${exclude.map(describe).join(' ')}" is excluded (add a word to find, e.g. harbour -bridge)`);
    return exclude.length === 0 && include.length === 1 ? include[0]! : { kind: 'and', include, exclude };
  }

  /** A `)` with no `(` before it: passed over. */
  skipStrayClose(): boolean {
    if (this.tokens[this.at]?.kind !== 'close') return false;
    this.at++;
    return true;
  }
}

const describe = (node: SearchNode): string =>
  node.kind === 'phrase' ? `${node.field ? 'title:' : ''}${node.words.length > 1 ? `"${node.words.join(' ')}"` : node.words[0]}${node.prefix ? '*' : ''}`
    : node.kind === 'or' ? node.any.map(describe).join(' OR ') : [...node.include.map(describe), ...node.exclude.map((child) => `-${describe(child)}`)].join(' ');

/** The query as Forest reads it; a query with no word to search for is a SearchQueryError saying why. */
export function parseSearchQuery(text: string): SearchNode {
  const parser = new Parser(tokenize(text));
  const parts: SearchNode[] = [];
  do {
    const part = parser.or();
    if (part) parts.push(part);
  } while (parser.skipStrayClose());
  if (parts.length === 0) throw new SearchQueryError(text.trim() ? `no word to search for in ${JSON.stringify(text.trim())}: search for letters or digits` : 'empty query');
  return parts.length === 1 ? parts[0]! : { kind: 'and', include: parts, exclude: [] };
}

/**
 * The query as an SQLite FTS5 expression: every phrase quoted (no word of the user's is ever an
 * FTS5 keyword or special character), every operator parenthesized (no precedence to rely on);
 * FTS5's NOT is binary, so a group's exclusions are taken from its inclusions.
 */
export function toFts5(node: SearchNode): string {
  switch (node.kind) {
    case 'phrase': {
      const phrase = `"${node.words.join(' ')}"${node.prefix ? '*' : ''}`;
      return node.field ? `(${node.field} : ${phrase})` : phrase;
    }
    case 'or':
      return `(${node.any.map(toFts5).join(' OR ')})`;
    case 'and': {
      const included = node.include.length === 1 ? toFts5(node.include[0]!) : `(${node.include.map(toFts5).join(' AND ')})`;
      return node.exclude.reduce((expression, excluded) => `(${expression} NOT ${toFts5(excluded)})`, included);
    }
  }
}

/**
 * The query as a PostgreSQL tsquery (to_tsquery with the index's configuration, which stems each
 * word as the index did): a phrase is its words joined by `<->` (followed by), a prefix is `:*`,
 * `title:` is weight A (the title's weight in the index); every word is quoted, and words are
 * letters and digits only (indexWords), so nothing a user types is ever tsquery syntax.
 */
export function toTsquery(node: SearchNode): string {
  switch (node.kind) {
    case 'phrase': {
      const words = node.words.map((word, index) => {
        const last = index === node.words.length - 1;
        const marks = `${last && node.prefix ? '*' : ''}${node.field === 'title' ? 'A' : ''}`;
        return `'${word}'${marks ? `:${marks}` : ''}`;
      });
      return words.length === 1 ? words[0]! : `(${words.join(' <-> ')})`;
    }
    case 'or':
      return `(${node.any.map(toTsquery).join(' | ')})`;
    case 'and':
      return `(${[...node.include.map(toTsquery), ...node.exclude.map((excluded) => `!${toTsquery(excluded)}`)].join(' & ')})`;
  }
}

/**
 * A snippet's marks joined across a word's inner punctuation: PostgreSQL's ts_headline marks each
 * lexeme of `harbour-bridge` or `it's` apart (`[harbour]-[bridge]`), where SQLite's snippet marks
 * the word whole; both engines' snippets read the same once joined.
 */
export const joinWordMarks = (snippet: string): string => snippet.replace(/\]([^\s[\]\p{L}\p{M}\p{N}])\[/gu, '$1');
