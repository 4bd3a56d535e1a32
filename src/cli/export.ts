import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import { FOREST_SOFTWARE } from '../util/project-root.js';
import { dateOption } from './articles.js';
import { printJson, settingsFor, withStore } from './context.js';
import { progressLine } from './progress.js';

export function exportCommand(): Command {
  return new Command('export')
    .requiredOption('--out <file>', 'the file to write (.warc.gz is gzipped per record)')
    .addOption(new Option('--format <format>', 'jsonl (articles with every version) or warc (the raw captures, WARC 1.1)').choices(['jsonl', 'warc']).default('jsonl'))
    .option('--feed <url>', 'only this feed')
    .option('--since <date>', 'only articles first captured since (a date, or e.g. 7d)', dateOption)
    .option('--json', 'one JSON object: the report (file, articles, versions, records by type, bytes)')
    .description('export the archive: JSONL of articles and versions, or WARC of the raw captures with the extracted articles')
    .action(async (options: { out: string; format: string; feed?: string; since?: string; json?: boolean }, command: Command) => {
      const out = resolve(options.out);
      const line = progressLine(Boolean(process.stderr.isTTY) && !options.json);
      const progress = (done: number, total: number) => line.update(`exporting: ${done}/${total} articles`);
      const filter = { feed: options.feed, since: options.since };
      const report = await withStore(settingsFor(command), (store) => options.format === 'jsonl'
        ? store.exportJsonl(filter, out, progress)
        : store.exportWarc(filter, out, { gzip: out.endsWith('.gz'), software: FOREST_SOFTWARE, progress }))
        .finally(() => line.done());
      if (options.json) return printJson({ out, format: options.format, ...report });
      const records = Object.entries(report.records).map(([type, n]) => `${n} ${type}`).join(', ');
      console.log(`wrote ${out}: ${report.articles} articles, ${report.versions} versions (${records}), ${(report.bytes / 1024).toFixed(0)} KB`);
    });
}
