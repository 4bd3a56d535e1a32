import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository root (the folder with Forest's package.json), found from this file so that it
 * is the same whether the code runs from src/ (tests) or from dist/ (the installed command).
 */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'migrations'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the Forest installation (package.json with migrations/)');
    dir = parent;
  }
  return dir;
}

export const PROJECT_ROOT = findRoot();

/** Forest's version, from its package.json. */
export const FOREST_VERSION: string = (() => {
  const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as unknown;
  return typeof manifest === 'object' && manifest !== null && 'version' in manifest && typeof manifest.version === 'string' ? manifest.version : 'unknown';
})();

/** How Forest names itself as the software of its exports (WARC's warcinfo, the request records' user agent). */
export const FOREST_SOFTWARE = `Forest/${FOREST_VERSION} (feed archiver)`;
