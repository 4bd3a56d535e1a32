import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { stringify } from 'yaml';
import { archiveInUse, openArchive } from '../archive/open-archive.js';
import type { ArchiveTotals, Store } from '../archive/store.js';
import type { CheckCounts } from '../archive/store.js';
import { loadSettings } from '../config/settings.js';
import { runDaemon } from '../daemon/service.js';
import { scriptedEdits } from '../synthetic/sites.js';
import { SyntheticWeb } from '../synthetic/server.js';
import { createLogger } from '../util/logger.js';
import { formatDuration } from '../util/units.js';
import { wholeNumber } from './articles.js';
import { progressLine } from './progress.js';
import { durationOption } from './run.js';
import { printJson, type GlobalOptions } from './context.js';

interface Summary {
  database: string;
  /** Where the daemon's log went while the demo ran. */
  logFile: string;
  seconds: number;
  feeds: Array<{ url: string; title: string | null; items: number; pages: number; failedPages: number }>;
  items: number;
  pages: number;
  sites: number;
  snapshotsBytes: number;
  examples: Array<{ title: string | null; url: string | null; finalUrl: string; bytes: number }>;
  /** Stored versions by how their article object was extracted, and the wrappers learned. */
  versionsByMethod: Record<string, number>;
  wrappers: Array<{ feed: string; xpath: string; samples: number }>;
  /** The object-level archive: what revisits found, against what the synthetic web really did. */
  archive: VersionReport;
}

interface VersionReport {
  articles: number;
  checks: CheckCounts;
  versions: number;
  /** Edits the synthetic web had made to pages by the end, and those a check has seen. */
  editsMade: number;
  editsSeen: number;
  /** Versions beyond the revisions the server actually showed (must be 0), and seen edits without a version. */
  falseVersions: number;
  missedEdits: number;
  databaseBytes: number;
  bytesPerArticle: number;
}

/** The demo's revisit delays: seconds instead of the hours and days of a real archive. */
const DEMO_REVISITS = ['2s', '3s', '5s', '8s', '13s', '21s', '34s', '55s', '89s'];

/** Compares the archive's versions with the revisions the synthetic web served for each page. */
function versionReport(totals: ArchiveTotals, articles: Array<{ url: string; versions: number }>, web: SyntheticWeb, databaseBytes: number): VersionReport {
  const served = web.servedRevisions();
  const siteOf = new Map([...web.sites.values()].map((site) => [new URL(site.url).host, site.definition.slug]));
  let falseVersions = 0;
  let missedEdits = 0;
  let editsSeen = 0;
  let versions = 0;
  for (const article of articles) {
    const url = new URL(article.url);
    const revisions = served.get(`${siteOf.get(url.host)}${url.pathname.replace(/^\/r\//, '/articles/')}`) ?? [];
    const shown = revisions.filter((revision, i) => i === 0 || revision !== revisions[i - 1]).length;
    editsSeen += Math.max(0, shown - 1);
    falseVersions += Math.max(0, article.versions - shown);
    missedEdits += Math.max(0, shown - article.versions);
    versions += article.versions;
  }
  return {
    articles: articles.length, checks: totals.checks, versions,
    editsMade: web.editsMade().length, editsSeen, falseVersions, missedEdits, databaseBytes, bytesPerArticle: articles.length ? Math.round(databaseBytes / articles.length) : 0,
  };
}

async function summarize(store: Store, web: SyntheticWeb, database: string, logFile: string, seconds: number): Promise<Summary> {
  const [totals, examples] = [await store.totals(), await store.examples()];
  const feeds = (await store.feedStatuses()).map((feed) => ({ url: feed.url, title: feed.title, items: feed.items, pages: feed.pages, failedPages: feed.failedPages }));
  return {
    database,
    logFile,
    seconds,
    feeds,
    items: feeds.reduce((sum, feed) => sum + feed.items, 0),
    pages: feeds.reduce((sum, feed) => sum + feed.pages, 0),
    sites: feeds.filter((feed) => feed.pages > 0).length,
    snapshotsBytes: examples.storedBodyBytes,
    examples: examples.captures,
    versionsByMethod: totals.versionsByMethod,
    wrappers: examples.wrappers,
    archive: versionReport(totals, await store.versionCounts(), web, await store.size()),
  };
}

const METHOD_NAMES: Record<string, string> = { forest: 'with a FOREST wrapper', sigfeed: 'from the single page (SIGFEED)' };

function printSummary(result: Summary): void {
  console.log(`Archived ${result.items} items and ${result.pages} pages from ${result.sites} sites in ${result.seconds.toFixed(1)} s (${(result.snapshotsBytes / 1024).toFixed(0)} KB of compressed captures).`);
  for (const feed of result.feeds) console.log(`  ${(feed.title ?? feed.url).padEnd(20)} ${String(feed.items).padStart(3)} items  ${String(feed.pages).padStart(3)} pages${feed.failedPages ? `  ${feed.failedPages} failed` : ''}`);
  const { archive } = result;
  const { checks } = archive;
  console.log(`\nChecks: ${checks.firstCaptures} first captures, then ${checks.revisits} revisits: ${checks.unchanged} unchanged, ${checks.changed} changed, ${checks.gone} gone, ${checks.unavailable} unavailable, ${checks.failed} failed.`);
  console.log('  Every page looked different on every request (counters, ads, timestamps); "unchanged" means the article itself had not changed.');
  console.log(`Versions: ${archive.versions} (one per article, plus one per edit found) — the synthetic web made ${archive.editsMade} edits, the revisits saw ${archive.editsSeen}; false versions: ${archive.falseVersions}, seen edits without a version: ${archive.missedEdits}.`);
  console.log(`  Extracted ${Object.entries(result.versionsByMethod).map(([method, n]) => `${n} ${METHOD_NAMES[method] ?? `by ${method}`}`).join(', ')}.`);
  for (const wrapper of result.wrappers) console.log(`  ${wrapper.feed}: wrapper ${wrapper.xpath} (learned from ${wrapper.samples} pages)`);
  console.log(`Database: ${(archive.databaseBytes / 1024).toFixed(0)} KB, ${(archive.bytesPerArticle / 1024).toFixed(1)} KB per article.`);
  console.log('\nFor example:');
  for (const example of result.examples) console.log(`  “${example.title}”\n     ${example.finalUrl} (${example.bytes} bytes)`);
  console.log(`\nThe archive is in ${result.database} (the daemon's log in ${result.logFile}); try \`npx forest articles --db ${result.database}\`, then \`history ID\`, \`diff ID\` and \`search WORDS\`.`);
}

export function demoCommand(): Command {
  return new Command('demo')
    .option('--duration <duration>', 'run this long (e.g. 3m) instead of stopping once everything is archived and every edit found', durationOption)
    .option('--edits <n>', 'scripted edits the synthetic web makes, one every --edit-every', wholeNumber, 8)
    .option('--edit-every <duration>', 'time between two scripted edits', durationOption, 2000)
    .option('--timeout <duration>', 'give up after this long (without --duration)', durationOption, 90_000)
    .option('--json', 'one JSON object: the summary (the progress line and the header are left out)')
    .description('start a local synthetic web (no internet needed) whose pages change on every request and whose articles get edited, run the archiver against it, and show what was archived (the daemon\'s log goes to a file next to the database)')
    .action(async (options: { duration?: number; edits: number; editEvery: number; timeout: number; json?: boolean }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const web = await new SyntheticWeb({ edits: scriptedEdits(options.edits, options.editEvery), holdEdits: true }).start();
      const work = mkdtempSync(join(tmpdir(), 'forest-demo-'));
      const database = resolve(globals.db ?? 'data/demo.db');
      const logFile = database.replace(/(\.db)?$/, '.log');
      if (!globals.db && await archiveInUse({ path: database })) {
        await web.stop();
        rmSync(work, { recursive: true, force: true });
        throw new Error(`${database} is open in another process (a \`forest serve\` or \`forest run\` on the demo archive): stop it first, or give this demo another archive with --db`);
      }
      if (!globals.db) for (const suffix of ['', '-wal', '-shm']) rmSync(`${database}${suffix}`, { force: true });
      const feedsFile = join(work, 'feeds.yaml');
      writeFileSync(feedsFile, stringify([...web.sites.values()].map((site) => ({ url: site.feedUrl, title: site.definition.name, tags: ['demo'] }))));
      // The demo's own settings on top of the user's: its list, loopback allowed (Forest refuses
      // private addresses by default) with a short politeness delay, and revisits in seconds
      // instead of hours so that edits show up while you watch.
      const configFile = join(work, 'settings.yaml');
      const base = loadSettings({ configFile: globals.config });
      writeFileSync(configFile, stringify({
        subscriptions: feedsFile, database: { path: database }, http: { perHostDelay: '100ms', allowPrivateNetworks: ['127.0.0.0/8'] }, log: { level: base.log.level },
        revisit: { after: DEMO_REVISITS },
      }));
      const settings = loadSettings({ configFile, databasePath: database });
      // The daemon logs a few hundred lines in a demo: they go to a file, and the terminal gets
      // one progress line instead.
      const log = createLogger({ level: settings.log.level, pretty: false }, logFile);
      const progress = progressLine(Boolean(process.stderr.isTTY) && !options.json);
      if (!options.json) {
        let elapsed = 0;
        const checkTimes = settings.revisit.after.slice(0, 4).map((gap) => formatDuration((elapsed += gap)));
        console.log(`Synthetic web on loopback: ${[...web.sites.values()].map((site) => `${site.definition.name} <${site.feedUrl}>`).join(', ')}`);
        console.log(`It edits ${options.edits} articles, one every ${formatDuration(options.editEvery)}; Forest revisits each article ${checkTimes.join(', ')}, … after its capture.`);
        console.log(`The daemon's log goes to ${logFile}.\n`);
      }
      const started = performance.now();
      let summary: Summary | null = null;
      try {
        let watcher: NodeJS.Timeout | undefined;
        await runDaemon({
          settings,
          log,
          exitAfter: options.duration ?? options.timeout,
          handleSignals: true,
          onReady: (store) => {
            // The edits start once the first captures are archived (an edit made before its
            // article's first capture would only be version 1, not an edit to find); without
            // --duration, the demo stops once every feed has been polled, no page is left to
            // capture or extract, and every scripted edit has been made and found.
            let looking = false;
            watcher = setInterval(() => {
              if (looking) return;
              looking = true;
              void look().finally(() => (looking = false));
            }, 250);
            const look = async () => {
              const [statuses, totals, counts] = await Promise.all([store.feedStatuses(), store.totals(), store.versionCounts()]);
              const settled = statuses.every((feed) => feed.lastPoll !== null && feed.pendingPages === 0) && totals.backlog.queuedExtractions === 0;
              if (settled) web.releaseEdits();
              const report = versionReport(totals, counts, web, 0);
              const pages = statuses.reduce((sum, feed) => sum + feed.pages, 0);
              const items = statuses.reduce((sum, feed) => sum + feed.items, 0);
              progress.update(`${((performance.now() - started) / 1000).toFixed(0)} s · ${pages}/${items} pages captured · ${report.checks.revisits} revisits · `
                + `${report.versions} versions · edits made ${report.editsMade}/${web.edits.length}, found ${report.editsSeen - report.missedEdits}`);
              if (options.duration !== undefined) return;
              // Every edit shown to a revisit, and every such revisit extracted and compared (a
              // page still in flight when the server has answered is not done yet).
              const lastEdit = Math.max(0, ...web.edits.map((edit) => web.editTime(edit) ?? Infinity));
              const editsDone = web.clock.now() > lastEdit && report.editsSeen >= web.edits.length && report.missedEdits === 0;
              if (settled && editsDone) {
                clearInterval(watcher);
                process.kill(process.pid, 'SIGTERM');
              }
            };
          },
        });
        clearInterval(watcher);
        progress.done();
        const store = await openArchive({ path: database, maxSize: 'unlimited' });
        try {
          summary = await summarize(store, web, database, logFile, (performance.now() - started) / 1000);
        } finally {
          await store.close();
        }
      } finally {
        progress.done();
        await web.stop();
        rmSync(work, { recursive: true, force: true });
      }
      if (options.json) return printJson(summary);
      printSummary(summary);
    });
}
