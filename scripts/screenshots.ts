/**
 * The README's screenshots of the web app: serves an archive (default: a fresh `forest demo`
 * archive, which has edits to show) and photographs the dashboard, an edited article, its diff
 * and a search in Debian's Chromium through playwright-core.
 *
 *   node --import tsx scripts/screenshots.ts [ARCHIVE.db] [--out docs/screenshots]
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';

const root = join(import.meta.dirname, '..');
const args = process.argv.slice(2);
const out = args.includes('--out') ? args[args.indexOf('--out') + 1]! : join(root, 'docs', 'screenshots');
let database = args.find((arg) => arg.endsWith('.db'));
if (!database) {
  database = join(mkdtempSync(join(tmpdir(), 'forest-shots-')), 'demo.db');
  execFileSync(process.execPath, [join(root, 'bin', 'forest.js'), 'demo', '--db', database], { stdio: 'inherit' });
}
const server = spawn(process.execPath, [join(root, 'bin', 'forest.js'), 'serve', '--db', database, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const base = await new Promise<string>((resolve) => createInterface({ input: server.stdout! }).on('line', (line) => {
  const match = /listening on (\S+)/.exec(line);
  if (match) resolve(match[1]!);
}));
const browser = await chromium.launch({ executablePath: process.env['FOREST_CHROMIUM'] ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
try {
  mkdirSync(out, { recursive: true });
  const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
  const articles = (await (await fetch(`${base}/api/v1/articles?limit=200`)).json()) as { items: Array<{ id: number; versions: number; title: string }> };
  const edited = articles.items.find((article) => article.versions > 1) ?? articles.items[0]!;
  const shots: Array<[string, string]> = [
    ['dashboard.png', '/'], ['article.png', `/articles/${edited.id}`], ['diff.png', `/articles/${edited.id}/diff`],
    ['search.png', `/search?q=${encodeURIComponent(edited.title.split(' ')[0]!)}`],
    ['feed.png', '/feeds/1'], ['articles.png', '/articles?changed=1'],
  ];
  for (const [file, path] of shots) {
    await page.goto(`${base}${path}`);
    await page.screenshot({ path: join(out, file) });
    console.log(`${join(out, file)}  ${path}`);
  }
} finally {
  await browser.close();
  server.kill('SIGTERM');
}
