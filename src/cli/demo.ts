import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { stringify } from 'yaml';
import { openDatabase, type Db } from '../archive/database.js';
import { loadSettings } from '../config/settings.js';
import { runDaemon } from '../daemon/service.js';
import { feedStatuses } from '../daemon/status.js';
import { backlog } from '../archive/queues.js';
import { EDIT_KINDS, type ScriptedEdit } from '../synthetic/articles.js';
import { DEFAULT_SITES } from '../synthetic/sites.js';
import { SyntheticWeb } from '../synthetic/server.js';
import { createLogger } from '../util/logger.js';
import { durationOption } from './run.js';
import { printJson, type GlobalOptions } from './context.js';

interface Summary {
  database: string;
  seconds: number;
  feeds: Array<{ url: string; title: string | null; items: number; pages: number; failedPages: number }>;
  items: number;
  pages: number;
  sites: number;
  snapshotsBytes: number;
  examples: Array<{ title: string | null; url: string | null; finalUrl: string; bytes: number }>;
  /** Extracted article objects by method, and the wrappers learned. */
  extracted: Record<string, number>;
  wrappers: Array<{ feed: string; xpath: string; samples: number }>;
  /** The object-level archive: what revisits found, against what the synthetic web really did. */
  archive: VersionReport;
}

interface VersionReport {
  articles: number;
  checks: { total: number; unchanged: number; changed: number; failed: number };
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

/**
 * The demo's edits: every few seconds one article of one site is corrected, extended, retitled
 * or loses its image, cycling through the sites and the kinds of edit.
 */
export function demoEdits(count: number, everyMs: number): ScriptedEdit[] {
  const sites = DEFAULT_SITES.length;
  return Array.from({ length: count }, (_, i) => {
    // Round-robin over the sites, then over the four newest articles of each; every later round
    // gives an article the next kind of edit.
    const turn = Math.floor(i / sites);
    const round = Math.floor(turn / 4);
    return {
      site: DEFAULT_SITES[i % sites]!.slug,
      index: 7 - (turn % 4),
      after: (i + 1) * everyMs,
      kind: EDIT_KINDS[((i % sites) + (turn % 4) + round) % EDIT_KINDS.length]!,
    };
  });
}

/** Compares the archive's versions with the revisions the synthetic web served for each page. */
function versionReport(db: Db, web: SyntheticWeb, databaseBytes: number): VersionReport {
  const served = web.servedRevisions();
  const siteOf = new Map([...web.sites.values()].map((site) => [new URL(site.url).host, site.definition.slug]));
  const articles = db.prepare('SELECT id, url, versions FROM articles').all() as Array<{ id: number; url: string; versions: number }>;
  let falseVersions = 0;
  let missedEdits = 0;
  let editsSeen = 0;
  for (const article of articles) {
    const url = new URL(article.url);
    const revisions = served.get(`${siteOf.get(url.host)}${url.pathname.replace(/^\/r\//, '/articles/')}`) ?? [];
    const shown = revisions.filter((revision, i) => i === 0 || revision !== revisions[i - 1]).length;
    editsSeen += Math.max(0, shown - 1);
    falseVersions += Math.max(0, article.versions - shown);
    missedEdits += Math.max(0, shown - article.versions);
  }
  const checks = db.prepare(`SELECT COUNT(*) AS total, COALESCE(SUM(result = 'unchanged'), 0) AS unchanged, COALESCE(SUM(result = 'changed'), 0) AS changed,
    COALESCE(SUM(result = 'failed'), 0) AS failed FROM checks`).get() as VersionReport['checks'];
  const editsMade = web.editsMade().length;
  return {
    articles: articles.length, checks, versions: db.prepare('SELECT COUNT(*) FROM versions').pluck().get() as number,
    editsMade, editsSeen, falseVersions, missedEdits, databaseBytes, bytesPerArticle: articles.length ? Math.round(databaseBytes / articles.length) : 0,
  };
}

function summarize(db: Db, web: SyntheticWeb, database: string, seconds: number): Summary {
  const feeds = feedStatuses(db).map((feed) => ({ url: feed.url, title: feed.title, items: feed.items, pages: feed.pages, failedPages: feed.failedPages }));
  const examples = db.prepare(`SELECT items.title, items.link AS url, snapshots.final_url AS finalUrl, blobs.size AS bytes FROM snapshots
      JOIN items ON items.id = snapshots.item_id JOIN blobs ON blobs.sha256 = snapshots.sha256 GROUP BY items.feed_id ORDER BY snapshots.id`).all() as Summary['examples'];
  return {
    database,
    seconds,
    feeds,
    items: feeds.reduce((sum, feed) => sum + feed.items, 0),
    pages: feeds.reduce((sum, feed) => sum + feed.pages, 0),
    sites: feeds.filter((feed) => feed.pages > 0).length,
    snapshotsBytes: db.prepare('SELECT COALESCE(SUM(LENGTH(data)), 0) FROM blobs').pluck().get() as number,
    examples,
    extracted: Object.fromEntries((db.prepare('SELECT method, COUNT(*) AS n FROM extractions GROUP BY method').all() as Array<{ method: string; n: number }>).map((row) => [row.method, row.n])),
    wrappers: db.prepare(`SELECT COALESCE(feeds.title, feeds.url) AS feed, wrappers.xpath, wrappers.samples FROM wrappers JOIN feeds ON feeds.id = wrappers.feed_id
      WHERE wrappers.active = 1 ORDER BY feeds.id`).all() as Summary['wrappers'],
    archive: versionReport(db, web, statSync(database).size),
  };
}

export function demoCommand(): Command {
  return new Command('demo')
    .option('--duration <duration>', 'run this long (e.g. 3m) instead of stopping once everything is archived and every edit found', durationOption)
    .option('--edits <n>', 'scripted edits the synthetic web makes, one every --edit-every', (value) => Number(value), 8)
    .option('--edit-every <duration>', 'time between two scripted edits', durationOption, 2000)
    .option('--timeout <duration>', 'give up after this long (without --duration)', durationOption, 90_000)
    .option('--json', 'print the summary as JSON')
    .description('start a local synthetic web (no internet needed) whose pages change on every request and whose articles get edited, run the archiver against it, and show what was archived')
    .action(async (options: { duration?: number; edits: number; editEvery: number; timeout: number; json?: boolean }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const web = await new SyntheticWeb({ edits: demoEdits(options.edits, options.editEvery), holdEdits: true }).start();
      const work = mkdtempSync(join(tmpdir(), 'forest-demo-'));
      const database = resolve(globals.db ?? 'data/demo.db');
      if (!globals.db) for (const suffix of ['', '-wal', '-shm']) rmSync(`${database}${suffix}`, { force: true });
      const feedsFile = join(work, 'feeds.yaml');
      writeFileSync(feedsFile, stringify([...web.sites.values()].map((site) => ({ url: site.feedUrl, title: site.definition.name, tags: ['demo'] }))));
      // The demo's own settings on top of the user's: its list, a short politeness delay for
      // loopback, and revisits in seconds instead of hours so that edits show up while you watch.
      const configFile = join(work, 'settings.yaml');
      const base = loadSettings({ configFile: globals.config });
      writeFileSync(configFile, stringify({
        subscriptions: feedsFile, database: { path: database }, http: { perHostDelay: '100ms' }, log: { level: base.log.level },
        revisit: { after: ['2s', '3s', '5s', '8s', '13s', '21s', '34s', '55s', '89s'] },
      }));
      const settings = loadSettings({ configFile, databasePath: database });
      const log = createLogger({ level: options.json ? 'warn' : settings.log.level, pretty: settings.log.pretty }, 2);
      if (!options.json) {
        console.log(`Synthetic web on loopback: ${[...web.sites.values()].map((site) => `${site.definition.name} <${site.feedUrl}>`).join(', ')}`);
        console.log(`It edits ${options.edits} articles, one every ${options.editEvery / 1000} s; Forest revisits each article 2 s, 5 s, 10 s, … after its capture.`);
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
          onReady: (db) => {
            // The edits start once the first captures are archived (an edit made before its
            // article's first capture would only be version 1, not an edit to find); without
            // --duration, the demo stops once every feed has been polled, no page is left to
            // capture or extract, and every scripted edit has been made and found.
            watcher = setInterval(() => {
              const statuses = feedStatuses(db);
              const settled = statuses.every((feed) => feed.lastPoll !== null && feed.pendingPages === 0) && backlog(db, new Date()).queuedExtractions === 0;
              if (settled) web.releaseEdits();
              if (options.duration !== undefined) return;
              // Every edit shown to a revisit, and every such revisit extracted and compared (a
              // page still in flight when the server has answered is not done yet).
              const report = versionReport(db, web, 0);
              const lastEdit = Math.max(0, ...web.edits.map((edit) => web.editTime(edit) ?? Infinity));
              const editsDone = web.clock.now() > lastEdit && report.editsSeen >= web.edits.length && report.missedEdits === 0;
              if (settled && editsDone) {
                clearInterval(watcher);
                process.kill(process.pid, 'SIGTERM');
              }
            }, 250);
          },
        });
        clearInterval(watcher);
        const db = openDatabase(database);
        db.pragma('wal_checkpoint(TRUNCATE)');
        summary = summarize(db, web, database, (performance.now() - started) / 1000);
        db.close();
      } finally {
        await web.stop();
        rmSync(work, { recursive: true, force: true });
      }
      const result: Summary = summary;
      if (options.json) return printJson(result);
      console.log(`\nArchived ${result.items} items and ${result.pages} pages from ${result.sites} sites in ${result.seconds.toFixed(1)} s (${(result.snapshotsBytes / 1024).toFixed(0)} KB of compressed captures).`);
      for (const feed of result.feeds) console.log(`  ${(feed.title ?? feed.url).padEnd(20)} ${String(feed.items).padStart(3)} items  ${String(feed.pages).padStart(3)} pages${feed.failedPages ? `  ${feed.failedPages} failed` : ''}`);
      console.log(`\nArticle objects extracted: ${Object.entries(result.extracted).map(([method, n]) => `${n} by ${method}`).join(', ')}.`);
      for (const wrapper of result.wrappers) console.log(`  ${wrapper.feed}: wrapper ${wrapper.xpath} (learned from ${wrapper.samples} pages)`);
      const { archive } = result;
      console.log(`\nRevisits: ${archive.checks.total} checks of ${archive.articles} articles (${archive.checks.unchanged} unchanged, ${archive.checks.changed} changed, ${archive.checks.failed} failed); every page looked different on every request.`);
      console.log(`Versions: ${archive.versions} — the synthetic web made ${archive.editsMade} edits, Forest's checks saw ${archive.editsSeen}; false versions: ${archive.falseVersions}, seen edits without a version: ${archive.missedEdits}.`);
      console.log(`Database: ${(archive.databaseBytes / 1024).toFixed(0)} KB, ${(archive.bytesPerArticle / 1024).toFixed(1)} KB per article.`);
      console.log('\nFor example:');
      for (const example of result.examples) console.log(`  “${example.title}”\n     ${example.finalUrl} (${example.bytes} bytes)`);
      console.log(`\nThe archive is in ${result.database}; try \`npx forest articles --db ${result.database}\`, then \`history ID\`, \`diff ID\` and \`search WORDS\`.`);
    });
}
