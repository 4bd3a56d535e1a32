import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { exportJsonl, exportWarc } from '../archive/export.js';
import { dateOption } from './articles.js';
import { printJson, settingsFor, withDatabase } from './context.js';

const SOFTWARE = 'Forest/0.1 (feed archiver)';

export function exportCommand(): Command {
  return new Command('export')
    .requiredOption('--out <file>', 'the file to write (.warc.gz is gzipped per record)')
    .option('--format <format>', 'jsonl (articles with every version) or warc (the raw captures, WARC 1.1)', 'jsonl')
    .option('--feed <url>', 'only this feed')
    .option('--since <date>', 'only articles first captured since (a date, or e.g. 7d)', dateOption)
    .option('--json', 'print the report as JSON')
    .description('export the archive: JSONL of articles and versions, or WARC of the raw captures with the extracted articles')
    .action(async (options: { out: string; format: string; feed?: string; since?: string; json?: boolean }, command: Command) => {
      if (!['jsonl', 'warc'].includes(options.format)) throw new InvalidArgumentError(`--format must be jsonl or warc, not ${options.format}`);
      const out = resolve(options.out);
      const interactive = Boolean(process.stderr.isTTY) && !options.json;
      const progress = interactive ? (done: number, total: number) => process.stderr.write(`\r${done}/${total} articles`) : undefined;
      const filter = { feed: options.feed, since: options.since };
      const report = await withDatabase(settingsFor(command), (db) => options.format === 'jsonl'
        ? exportJsonl(db, filter, out, progress)
        : exportWarc(db, filter, out, { gzip: out.endsWith('.gz'), software: SOFTWARE, ...(progress ? { progress } : {}) }));
      if (interactive) process.stderr.write('\n');
      if (options.json) return printJson({ out, format: options.format, ...report });
      const records = Object.entries(report.records).map(([type, n]) => `${n} ${type}`).join(', ');
      console.log(`wrote ${out}: ${report.articles} articles, ${report.versions} versions (${records}), ${(report.bytes / 1024).toFixed(0)} KB`);
    });
}
