import { existsSync } from 'node:fs';
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
