import { readFileSync } from 'node:fs';
import { isCollection, isNode, LineCounter, parseDocument, type Document } from 'yaml';
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
    const line = first.linePos?.[0].line ?? null;
    throw new ConfigError(file, line, null, `invalid YAML: ${first.message.split('\n')[0]}`);
  }
  return { file, document, lines, data: document.toJS() };
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
