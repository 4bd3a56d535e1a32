import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

// Issue #9's storage boundary: the daemon, the CLI and the web server reach storage only
// through the Store (src/archive/store.ts) — no SQL, no database handle, no module that holds
// one. A second backend can then implement the Store without touching them.

const SRC = join(import.meta.dirname, '..', '..', 'src');
const ARCHIVE = join(SRC, 'archive');

const importsOf = (file: string) => [...readFileSync(file, 'utf8').matchAll(/^(?:import|export)\b[^;]*?from '([^']+)'/gms)].map((match) => match[1]!);

/** The modules of src/archive that touch the database: they import database.ts or better-sqlite3 (store.ts's factory aside). */
function databaseModules(): Set<string> {
  const modules = readdirSync(ARCHIVE).filter((name) => name.endsWith('.ts'));
  const touches = new Set(modules.filter((name) => importsOf(join(ARCHIVE, name)).some((from) => from === './database.js' || from === 'better-sqlite3')));
  return touches;
}

test('outside src/archive, nothing imports a module that holds the database, and no one writes SQL', () => {
  const database = databaseModules();
  assert.ok(database.has('queues.ts') && database.has('article-lists.ts'), 'the scan finds the modules that hold the database');
  const offenders: string[] = [];
  for (const folder of readdirSync(SRC).filter((name) => name !== 'archive')) {
    for (const name of readdirSync(join(SRC, folder)).filter((file) => file.endsWith('.ts'))) {
      const file = join(SRC, folder, name);
      for (const from of importsOf(file)) {
        const module = /^\.\.\/archive\/(.+)\.js$/.exec(from)?.[1];
        // Opening an archive (open-archive.ts) is the one thing that names the backend, inside src/archive.
        if (module && (database.has(`${module}.ts`) || module.startsWith('sqlite-') || module === 'rows')) offenders.push(`${folder}/${name} imports archive/${module}.ts`);
        if (from === 'better-sqlite3') offenders.push(`${folder}/${name} imports better-sqlite3`);
      }
      const source = readFileSync(file, 'utf8');
      if (/\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b/.test(source)) offenders.push(`${folder}/${name} holds SQL`);
    }
  }
  assert.deepEqual(offenders, []);
});

test('the rules both engines run (rules/, steps.ts) import neither engine: no driver, no connection, no module of either', () => {
  const RULES = join(ARCHIVE, 'rules');
  const files = [...readdirSync(RULES).filter((name) => name.endsWith('.ts')).map((name) => join(RULES, name)), join(ARCHIVE, 'steps.ts')];
  assert.ok(files.length >= 4, 'the scan finds the shared rules');
  const database = databaseModules();
  const offenders = files.flatMap((file) => importsOf(file).filter((from) => from === 'better-sqlite3' || from === 'pg' || from.includes('postgres/')
    || /(^|\/)(database|sqlite-[\w-]+)\.js$/.test(from) || (from.startsWith('../') && database.has(from.slice(3).replace(/\.js$/, '.ts'))))
    .map((from) => `${file.slice(ARCHIVE.length + 1)} imports ${from}`));
  assert.deepEqual(offenders, []);
});

test('the contract imports no backend: store.ts names only pure modules and domain types', () => {
  const database = databaseModules();
  const imports = importsOf(join(ARCHIVE, 'store.ts'));
  assert.ok(imports.length > 0);
  const backend = imports.filter((from) => from.startsWith('./') && (database.has(from.slice(2).replace(/\.js$/, '.ts')) || /sqlite|rows|queries|lease|polls|snapshots|export|search\.js/.test(from)));
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
  assert.deepEqual(loads('archive/sqlite-store.ts'), { sqlite: true, pg: false });
  assert.deepEqual(loads(null), { sqlite: false, pg: false }, 'open-archive.ts imports the engine it opens, when it opens it');
});
