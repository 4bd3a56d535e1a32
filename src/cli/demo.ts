import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { stringify } from 'yaml';
import type { Db } from '../archive/database.js';
import { loadSettings } from '../config/settings.js';
import { runDaemon } from '../daemon/service.js';
import { feedStatuses } from '../daemon/status.js';
import { pendingExtractions } from '../archive/extractions.js';
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
}

function summarize(db: Db, database: string, seconds: number): Summary {
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
  };
}

export function demoCommand(): Command {
  return new Command('demo')
    .option('--timeout <duration>', 'give up after this long', durationOption, 60_000)
    .option('--json', 'print the summary as JSON')
    .description('start a local synthetic web (no internet needed), run the archiver against it, and show what was archived')
    .action(async (options: { timeout: number; json?: boolean }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const web = await new SyntheticWeb().start();
      const work = mkdtempSync(join(tmpdir(), 'forest-demo-'));
      const database = resolve(globals.db ?? 'data/demo.db');
      if (!globals.db) for (const suffix of ['', '-wal', '-shm']) rmSync(`${database}${suffix}`, { force: true });
      const feedsFile = join(work, 'feeds.yaml');
      writeFileSync(feedsFile, stringify([...web.sites.values()].map((site) => ({ url: site.feedUrl, title: site.definition.name, tags: ['demo'] }))));
      // The demo's own settings on top of the user's: its list, a short politeness delay for loopback.
      const configFile = join(work, 'settings.yaml');
      const base = loadSettings({ configFile: globals.config });
      writeFileSync(configFile, stringify({ subscriptions: feedsFile, database: { path: database }, http: { perHostDelay: '100ms' }, log: { level: base.log.level } }));
      const settings = loadSettings({ configFile, databasePath: database });
      const log = createLogger({ level: options.json ? 'warn' : settings.log.level, pretty: settings.log.pretty }, 2);
      if (!options.json) {
        console.log(`Synthetic web on loopback: ${[...web.sites.values()].map((site) => `${site.definition.name} <${site.feedUrl}>`).join(', ')}`);
      }
      const started = performance.now();
      let summary: Summary | null = null;
      try {
        let watcher: NodeJS.Timeout | undefined;
        await runDaemon({
          settings,
          log,
          exitAfter: options.timeout,
          handleSignals: true,
          onReady: (db) => {
            // Stop as soon as every feed has been polled and no page is left to capture.
            watcher = setInterval(() => {
              const statuses = feedStatuses(db);
              if (statuses.every((feed) => feed.lastPoll !== null && feed.pendingPages === 0) && pendingExtractions(db, 1).length === 0) {
                clearInterval(watcher);
                summary = summarize(db, database, (performance.now() - started) / 1000);
                process.kill(process.pid, 'SIGTERM');
              }
            }, 250);
          },
        });
        clearInterval(watcher);
      } finally {
        await web.stop();
        rmSync(work, { recursive: true, force: true });
      }
      if (!summary) {
        const { openDatabase } = await import('../archive/database.js');
        const db = openDatabase(database);
        summary = summarize(db, database, (performance.now() - started) / 1000);
        db.close();
      }
      const result: Summary = summary;
      if (options.json) return printJson(result);
      console.log(`\nArchived ${result.items} items and ${result.pages} pages from ${result.sites} sites in ${result.seconds.toFixed(1)} s (${(result.snapshotsBytes / 1024).toFixed(0)} KB of compressed captures).`);
      for (const feed of result.feeds) console.log(`  ${(feed.title ?? feed.url).padEnd(20)} ${String(feed.items).padStart(3)} items  ${String(feed.pages).padStart(3)} pages${feed.failedPages ? `  ${feed.failedPages} failed` : ''}`);
      console.log(`\nArticle objects extracted: ${Object.entries(result.extracted).map(([method, n]) => `${n} by ${method}`).join(', ')}.`);
      for (const wrapper of result.wrappers) console.log(`  ${wrapper.feed}: wrapper ${wrapper.xpath} (learned from ${wrapper.samples} pages)`);
      console.log('\nFor example:');
      for (const example of result.examples) console.log(`  “${example.title}”\n     ${example.finalUrl} (${example.bytes} bytes)`);
      console.log(`\nThe archive is in ${result.database}; try \`npx forest status --db ${result.database}\`.`);
    });
}
