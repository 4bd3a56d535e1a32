/**
 * A problem in a file the user wrote (settings, subscription list, OPML), located precisely
 * enough to fix it without guessing: file, line and field.
 */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly field: string | null,
    readonly problem: string,
  ) {
    super(`${file}${line !== null ? `:${line}` : ''}: ${field ? `${field}: ` : ''}${problem}`);
    this.name = 'ConfigError';
  }
}

/** "feeds[2].schedule" from a path of keys and indexes. */
export function fieldName(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}
