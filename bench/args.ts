/**
 * A benchmark's `--name=value` arguments, split at the first `=` (a value may hold one:
 * `--node-flags=--v8-pool-size=1`); a bare `--name` has the value ''.
 */
export function benchArgs(argv: readonly string[] = process.argv.slice(2)): Map<string, string> {
  return new Map(argv.map((arg): [string, string] => {
    const [name, ...value] = arg.replace(/^--/, '').split('=');
    return [name!, value.join('=')];
  }));
}
