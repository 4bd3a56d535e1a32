import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

/** A fresh directory removed when the test file ends (kept with FOREST_TEST_KEEP=1, for a post-mortem). */
export function tempDir(prefix = 'forest-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (!process.env['FOREST_TEST_KEEP']) after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function writeFile(dir: string, name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}
