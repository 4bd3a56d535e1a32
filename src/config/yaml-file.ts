import { readFileSync } from 'node:fs';
import { isCollection, isNode, isScalar, LineCounter, parseDocument, visit, type Document, type YAMLError } from 'yaml';
import type { z } from 'zod';
import { ConfigError, fieldName } from './errors.js';

/** A YAML file parsed with positions kept, so that any value can be traced to its line. */
export interface YamlFile {
  file: string;
  document: Document;
  lines: LineCounter;
  data: unknown;
}

export function readYamlFile(file: string): YamlFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(file, null, null, `cannot read: ${(error as Error).message}`);
  }
  return parseYaml(file, text);
}

export function parseYaml(file: string, text: string): YamlFile {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  const [first] = document.errors;
  if (first) {
    // yaml's message repeats the position and ends with a colon before a source excerpt; the
    // ConfigError already carries the line.
    const message = first.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    const opened = unclosedAt(document, first);
    if (opened !== null) {
      const noticed = lines.linePos(first.pos[0]).line;
      throw new ConfigError(file, lines.linePos(opened).line, null, `invalid YAML: ${message} (it opens on this line and is still open on line ${noticed})`);
    }
    throw new ConfigError(file, first.linePos?.[0].line ?? null, null, `invalid YAML: ${message}`);
  }
  return { file, document, lines, data: document.toJS() };
}

/**
 * Where an unclosed `[`, `{` or quote begins. yaml reports such an error where it noticed it —
 * the next line, or past the end of the file — but the line to fix is the one that opened it:
 * the innermost flow collection or quoted scalar that runs up to the error.
 */
function unclosedAt(document: Document, error: YAMLError): number | null {
  if (error.code !== 'BAD_INDENT' && error.code !== 'MISSING_CHAR') return null;
  const at = error.pos[0];
  let start: number | null = null;
  visit(document, (_key, node) => {
    const open = (isCollection(node) && node.flow) || (isScalar(node) && (node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE'));
    const range = isNode(node) ? node.range : null;
    if (open && range && range[0] < at && range[2] >= at && (start === null || range[0] > start)) start = range[0];
  });
  return start;
}

/**
 * The line of the value at `path`, or of its nearest ancestor that exists in the file (a
 * missing field is reported at the mapping that lacks it).
 */
export function lineOf(source: YamlFile, path: ReadonlyArray<PropertyKey>): number | null {
  for (let depth = path.length; depth >= 0; depth--) {
    const keys = path.slice(0, depth) as Array<string | number>;
    const node = depth === 0 ? source.document.contents : source.document.getIn(keys, true);
    if (isNode(node) && node.range) return source.lines.linePos(node.range[0]).line;
    if (isCollection(node) && node.range) return source.lines.linePos(node.range[0]).line;
  }
  return null;
}

/** Validates `source.data` with `schema`; the first problem becomes a located ConfigError. */
export function validateYaml<T extends z.ZodType>(source: YamlFile, schema: T, data: unknown = source.data): z.output<T> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const { path, message } = issueLocation(result.error.issues[0]!);
  throw new ConfigError(source.file, lineOf(source, path), fieldName(path) || null, message);
}

/** The path an issue is about; an unknown key is reported at the key itself, not its parent. */
export function issueLocation(issue: z.core.$ZodIssue): { path: PropertyKey[]; message: string } {
  if (issue.code === 'unrecognized_keys' && issue.keys.length > 0) {
    return { path: [...issue.path, issue.keys[0]!], message: `unknown field ${JSON.stringify(String(issue.keys[0]))}` };
  }
  return { path: issue.path, message: issue.message };
}
