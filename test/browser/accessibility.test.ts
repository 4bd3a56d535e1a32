import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { loadCodec } from '../../src/archive/codec.js';
import { launchChromium } from '../helpers/browser.js';
import { startServe, type ForestProcess } from '../helpers/cli.js';
import { smallArchive } from '../helpers/small-archive.js';
import { tempDir } from '../helpers/temp.js';

/*
 * Issue #53, item 4: every page usable with a keyboard and a screen reader, checked by axe-core
 * (Deque's rules for WCAG 2.x A and AA: labels, headings, landmarks, names, contrast) in
 * Chromium on the pages a reader goes through. A serious or critical violation fails.
 */

const TOKEN = 'an-accessibility-token-0123456789';
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const dir = tempDir();
const database = join(dir, 'archive.db');
let server: ForestProcess;
let base = '';
let browser: Browser;

before(async () => {
  await loadCodec();
  await smallArchive(database, ['One', 'Two', 'Three']).close();
  // Reads open, writes behind a login: the audit sees the pages as a reader and as a signed-in archivist (their forms).
  ({ server, base } = await startServe(['--db', database], { env: { FOREST_SERVE_TOKEN: TOKEN } }));
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  server?.kill('SIGTERM');
});

interface AxeViolation { id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }

/** Each page, and the status it answers with (a query with nothing to find is a 400 that says why, on the search page). */
const PAGES: Array<[string, number]> = [
  ['/', 200], ['/feeds/1', 200], ['/articles', 200], ['/articles?changed=1', 200], ['/articles/1', 200], ['/articles/1/versions/1', 200],
  ['/articles/1/diff', 200], ['/articles/1/diff?view=inline', 200], ['/search?q=mayor', 200], ['/search?q=%22', 400], ['/login', 200], ['/no-such-page', 404],
];

test('an accessibility audit (axe-core, WCAG 2 A and AA) finds no serious violation on the dashboard, a feed, the article list, an article, a diff and search', async () => {
  // axe is injected as a script: the app's Content Security Policy (scripts from 'self' only) is bypassed for the audit alone.
  const reader = await browser.newContext({ bypassCSP: true });
  const archivist = await browser.newContext({ bypassCSP: true });
  const login = await archivist.newPage();
  await login.goto(`${base}/login`);
  await login.getByLabel('token').fill(TOKEN);
  await login.getByRole('button', { name: /log in/i }).click();
  await login.goto(`${base}/feeds/1`);
  assert.equal(await login.getByRole('button', { name: 'Poll now' }).count(), 1, 'signed in: the feed page has its forms');
  await login.close();
  const found: string[] = [];
  try {
    for (const [path, status, context, who] of PAGES.flatMap(([path, status]) => [[path, status, reader, 'reader'], [path, status, archivist, 'signed in']] as const)) {
      const page = await context.newPage();
      const response = await page.goto(`${base}${path}`);
      assert.equal(response?.status(), status, path);
      await page.addScriptTag({ path: AXE });
      const violations = await page.evaluate(async () => {
        const axe = (window as unknown as { axe: { run(context: Document, options: unknown): Promise<{ violations: unknown[] }> } }).axe;
        const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
        return result.violations;
      }) as AxeViolation[];
      for (const violation of violations) {
        if (violation.impact === 'serious' || violation.impact === 'critical') {
          found.push(`${path} (${who}): ${violation.id} (${violation.impact}) ${violation.help} — ${violation.nodes.slice(0, 3).map((node) => JSON.stringify(node.target)).join(', ')}`);
        }
      }
      await page.close();
    }
  } finally {
    await reader.close();
    await archivist.close();
  }
  assert.deepEqual(found, []);
});

test('the audit would see a violation: an unlabelled field and faint grey text added to the dashboard are reported', async () => {
  const context = await browser.newContext({ bypassCSP: true });
  try {
    const page = await context.newPage();
    await page.goto(base);
    await page.evaluate(() => {
      document.body.insertAdjacentHTML('beforeend', '<input type="text" name="x"><p style="color:#aaa;background:#fff">faint</p>');
    });
    await page.addScriptTag({ path: AXE });
    const ids = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(context: Document): Promise<{ violations: Array<{ id: string }> }> } }).axe;
      return (await axe.run(document)).violations.map((violation) => violation.id);
    });
    assert.ok(ids.includes('label') && ids.includes('color-contrast'), ids.join(' '));
  } finally {
    await context.close();
  }
});
