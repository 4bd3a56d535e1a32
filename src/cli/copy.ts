import { resolve } from 'node:path';
import { Command } from 'commander';
import { COPY_PLAN } from '../archive/copy-plan.js';
import { archiveName, openArchive } from '../archive/open-archive.js';
import type { Store } from '../archive/store.js';
import { isPostgresUrl } from '../config/settings.js';
import { daemonStatus } from '../daemon/status.js';
import { printJson, UsageError } from './context.js';
import { progressLine } from './progress.js';

/** Rows read and written per page: a page of bodies is a few MB at most. */
const PAGE_ROWS = 500;

const where = (archive: string) => (isPostgresUrl(archive) ? { path: '', url: archive, maxSize: 'unlimited' as const } : { path: resolve(archive), url: null, maxSize: 'unlimited' as const });

/**
 * `forest copy SOURCE TARGET`: a whole archive from one backend to another (or the same), table
 * by table in the order references allow (archive/copy-plan.ts), a page of rows at a time;
 * then each table's rows counted on both sides. Refuses a target that holds anything, and a
 * source a daemon is writing to (its rows would move under the copy).
 */
export function copyCommand(): Command {
  return new Command('copy')
    .argument('<source>', 'the archive to copy: a SQLite file or postgres://…')
    .argument('<target>', 'where to: a new SQLite file, or an empty PostgreSQL database (postgres://…)')
    .option('--json', 'one JSON object: source, target, rows per table, ms')
    .description('copy a whole archive between backends (SQLite ⇄ PostgreSQL): feeds, items, polls, captures and bodies, versions, checks, wrappers, schedules; the target must be empty; stop the daemons on the source first')
    .action(async (source: string, target: string, options: { json?: boolean }) => {
      const from = where(source);
      const to = where(target);
      if (archiveName(from) === archiveName(to)) throw new UsageError('SOURCE and TARGET are the same archive');
      const started = performance.now();
      const line = progressLine(Boolean(process.stderr.isTTY) && !options.json);
      const input = await openArchive(from);
      let output: Store | null = null;
      try {
        const running = (await input.daemons()).flatMap((holder) => daemonStatus(holder) ?? []).filter((daemon) => !daemon.stale);
        if (running.length > 0) {
          throw new UsageError(`a daemon is running on ${archiveName(from)} (pid ${running[0]!.pid} on ${running[0]!.host}): stop it first, so that nothing moves under the copy`);
        }
        output = await openArchive(to, { create: true });
        if (!(await output.isEmptyArchive())) throw new UsageError(`${archiveName(to)} already holds an archive: copy into a new file or an empty database`);
        const copied: Record<string, number> = {};
        for (const part of COPY_PLAN) {
          let after: unknown[] | null = null;
          for (;;) {
            const rows = await input.copyRows(part, after, PAGE_ROWS);
            if (rows.length === 0) break;
            await output.insertCopied(part, rows);
            copied[part.table] = (copied[part.table] ?? 0) + rows.length;
            const last = rows.at(-1)!;
            after = part.key.map((column) => last[column]);
            line.update(`copying ${part.table}: ${copied[part.table]!.toLocaleString('en')} rows`);
            if (rows.length < PAGE_ROWS) break;
          }
        }
        line.update('finishing (search index, id sequences)…');
        await output.finishCopy();
        const [counted, expected] = [await output.tableCounts(), await input.tableCounts()];
        line.done();
        const differ = Object.keys(expected).filter((table) => expected[table] !== counted[table]);
        if (differ.length > 0) throw new Error(`the copy differs from its source in ${differ.map((table) => `${table} (${counted[table]} of ${expected[table]} rows)`).join(', ')}`);
        const report = { source: archiveName(from), target: archiveName(to), rows: counted, ms: Math.round(performance.now() - started) };
        if (options.json) return printJson(report);
        console.log(`copied ${archiveName(from)} to ${archiveName(to)} in ${(report.ms / 1000).toFixed(1)} s: ${counted['feeds']} feeds, ${counted['items']} items, ${counted['snapshots']} captures, ${counted['articles']} articles, ${counted['versions']} versions, ${counted['checks']} checks (every table's rows counted on both sides)`);
        console.log(`\`forest check --db ${to.url ?? to.path}\` verifies the copy`);
      } finally {
        line.done();
        await input.close();
        await output?.close();
      }
    });
}
