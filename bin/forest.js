#!/usr/bin/env -S node --v8-pool-size=1 --heap-growing-percent=50
// The `forest` command. The TypeScript sources are compiled to dist/ by `npm install` (the
// `prepare` script); this shim only loads the compiled entry point. The flags on the first line:
// one V8 helper thread, and heaps that grow by half before a full collection, as
// ecosystem.config.js explains.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error('forest: dist/ is missing — run `npm install` (or `npm run build`) in the repository first');
  process.exit(1);
}
await import(entry.href);
