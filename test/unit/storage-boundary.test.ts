import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { test } from 'node:test';

// Issue #9's storage boundary: the daemon, the CLI and the web server reach storage only
// through the Store (src/archive/store.ts) — no SQL, no database handle, no module that holds
// one. A second backend can then implement the Store without touching them.

const SRC = join(import.meta.dirname, '..', '..', 'src');
const ARCHIVE = join(SRC, 'archive');

const importsOf = (file: string) => [...readFileSync(file, 'utf8').matchAll(/^(?:import|export)\b[^;]*?from '([^']+)'/gms)].map((match) => match[1]!);

const SQLITE = join(ARCHIVE, 'sqlite');
const POSTGRES = join(ARCHIVE, 'postgres');
const tsFiles = (folder: string) => readdirSync(folder).filter((name) => name.endsWith('.ts')).map((name) => join(folder, name));

/** Where a relative import from `file` lands, as a path under src/archive (or null when it is not relative). */
const landing = (file: string, from: string) => (from.startsWith('.') ? join(dirname(file), from) : null);
const inFolder = (path: string | null, folder: string) => path !== null && path.startsWith(`${folder}/`);

test('outside src/archive, nothing imports an engine, and no one writes SQL', () => {
  assert.ok(tsFiles(SQLITE).length > 5 && tsFiles(POSTGRES).length > 5, 'the scan finds both engines');
  const offenders: string[] = [];
  for (const folder of readdirSync(SRC).filter((name) => name !== 'archive')) {
    for (const file of tsFiles(join(SRC, folder))) {
      for (const from of importsOf(file)) {
        const path = landing(file, from);
        // Opening an archive (open-archive.ts) is the one thing that names the backend, inside src/archive.
        if (inFolder(path, SQLITE) || inFolder(path, POSTGRES) || path === join(ARCHIVE, 'rows.js') || path === join(ARCHIVE, 'steps.js')) offenders.push(`${folder}/${basename(file)} imports ${from}`);
        if (from === 'better-sqlite3' || from === 'pg') offenders.push(`${folder}/${basename(file)} imports ${from}`);
      }
      if (/\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b/.test(readFileSync(file, 'utf8'))) offenders.push(`${folder}/${basename(file)} holds SQL`);
    }
  }
  assert.deepEqual(offenders, []);
});

test('each engine in its own folder imports nothing of the other, and the code both share imports neither', () => {
  const RULES = join(ARCHIVE, 'rules');
  const shared = [...tsFiles(ARCHIVE).filter((file) => !file.endsWith('open-archive.ts')), ...tsFiles(RULES), ...tsFiles(join(ARCHIVE, 'exports'))];
  assert.ok(tsFiles(RULES).length >= 6, 'the scan finds the shared rules');
  const offenders: string[] = [];
  const check = (files: string[], forbidden: string[], drivers: string[]) => {
    for (const file of files) {
      for (const from of importsOf(file)) {
        if (drivers.includes(from) || forbidden.some((folder) => inFolder(landing(file, from), folder))) offenders.push(`${file.slice(ARCHIVE.length + 1)} imports ${from}`);
      }
    }
  };
  check(tsFiles(SQLITE), [POSTGRES], ['pg']);
  check(tsFiles(POSTGRES), [SQLITE], ['better-sqlite3']);
  check(shared, [SQLITE, POSTGRES], ['pg', 'better-sqlite3']);
  assert.deepEqual(offenders, []);
});

test('the contract imports no backend: store.ts and model.ts name only pure modules and domain types', () => {
  const imports = ['store.ts', 'model.ts'].flatMap((name) => importsOf(join(ARCHIVE, name)));
  assert.ok(imports.length > 0);
  const backend = imports.filter((from) => from.startsWith('./sqlite/') || from.startsWith('./postgres/') || from.startsWith('./rules/') || /rows|steps|export|search\.js/.test(from));
  assert.deepEqual(backend, []);
});

test('each engine is loaded only when chosen: the PostgreSQL store never loads better-sqlite3, the SQLite store never loads pg, and opening neither loads either', () => {
  // A child process each, whose CommonJS module cache (where both drivers land) is read after the import.
  const loads = (module: string | null) => {
    const script = `import { createRequire } from 'node:module';
${module ? `await import(${JSON.stringify(join(SRC, module))});` : `await import(${JSON.stringify(join(SRC, 'archive', 'open-archive.ts'))});`}
const cache = Object.keys(createRequire(import.meta.url).cache);
console.log(JSON.stringify({ sqlite: cache.some((path) => path.includes('/node_modules/better-sqlite3/')), pg: cache.some((path) => path.includes('/node_modules/pg/')) }));`;
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', cwd: join(SRC, '..') });
    assert.equal(result.status, 0, result.stderr);
    return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { sqlite: boolean; pg: boolean };
  };
  assert.deepEqual(loads('archive/postgres/store.ts'), { sqlite: false, pg: true });
  assert.deepEqual(loads('archive/sqlite/store.ts'), { sqlite: true, pg: false });
  assert.deepEqual(loads(null), { sqlite: false, pg: false }, 'open-archive.ts imports the engine it opens, when it opens it');
});
