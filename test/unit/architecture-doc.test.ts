import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PROJECT_ROOT } from '../../src/util/project-root.js';

// docs/architecture.md describes the layout and the data; these checks keep it from drifting:
// a module or a table added without a word in the document fails here.
const doc = readFileSync(join(PROJECT_ROOT, 'docs', 'architecture.md'), 'utf8');

/** The paragraph of "Every module" that describes src/DIR. */
function sectionOf(dir: string): string {
  const start = doc.indexOf(`**src/${dir}**`);
  assert.ok(start >= 0, `docs/architecture.md has no **src/${dir}** paragraph`);
  const next = doc.indexOf('**src/', start + 1);
  return doc.slice(start, next < 0 ? doc.indexOf('\n## ', start) : next);
}

test('docs/architecture.md names every source module in the paragraph of its folder', () => {
  const src = join(PROJECT_ROOT, 'src');
  const missing: string[] = [];
  // Every folder under src, a backend's own folder (src/archive/postgres) too.
  const folders = readdirSync(src, { recursive: true, withFileTypes: true }).filter((entry) => entry.isDirectory())
    .map((entry) => join(entry.parentPath, entry.name).slice(src.length + 1));
  for (const dir of folders) {
    const section = sectionOf(dir);
    for (const file of readdirSync(join(src, dir)).filter((name) => name.endsWith('.ts'))) {
      if (!section.includes(`\`${file}\``)) missing.push(`src/${dir}/${file}`);
    }
  }
  assert.deepEqual(missing, []);
});

test('docs/architecture.md names every table the migrations create, and none that they do not', () => {
  const migrations = join(PROJECT_ROOT, 'migrations');
  const sql = readdirSync(migrations).filter((name) => name.endsWith('.sql')).map((name) => readFileSync(join(migrations, name), 'utf8')).join('\n');
  // schema_migrations is created by archive/sqlite/database.ts, before any migration runs.
  const created = new Set(['schema_migrations', ...[...sql.matchAll(/CREATE\s+(?:VIRTUAL\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)/gi)].map((match) => match[1]!)]);
  assert.ok(created.size >= 15, `${created.size} tables found in the migrations`);
  const dropped = new Set([...sql.matchAll(/DROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?(\w+)/gi)].map((match) => match[1]!));
  const tables = [...created].filter((name) => !dropped.has(name));
  assert.deepEqual(tables.filter((name) => !doc.includes(`\`${name}\``)), []);
  // The data table's first column names tables; each must exist.
  const dataSection = doc.slice(doc.indexOf('## 4. Data'), doc.indexOf('## 5.'));
  const described = [...dataSection.matchAll(/^\| `(\w+)`/gm)].map((match) => match[1]!);
  assert.deepEqual(described.filter((name) => !created.has(name)), []);
});
