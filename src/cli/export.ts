import { once } from 'node:events';
import { resolve } from 'node:path';
import type { ExportSink } from '../archive/store.js';
import { exportWacz } from '../archive/exports/wacz.js';
import { Command, Option } from 'commander';
import { FOREST_SOFTWARE } from '../util/project-root.js';
import { dateOption } from './articles.js';
import { printJson, settingsFor, UsageError, withStore } from './context.js';
import { progressLine } from './progress.js';

/** Standard output as an export's sink, waiting when the pipe is full (a slow reader must not fill memory). */
function stdoutSink(): ExportSink {
  let bytes = 0;
  return {
    async write(data) {
      bytes += typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
      if (!process.stdout.write(data)) await once(process.stdout, 'drain');
    },
    get bytes() {
      return bytes;
    },
  };
}

export function exportCommand(): Command {
  return new Command('export')
    .requiredOption('--out <file>', 'the file to write (.warc.gz is gzipped per record), or - for standard output (a WARC there is gzipped per record; the report goes to standard error)')
    .addOption(new Option('--format <format>', 'jsonl (articles with every version), warc (the raw captures, WARC 1.1) or wacz (a package for replay tools: the WARC, its index and each article\'s text)').choices(['jsonl', 'warc', 'wacz']).default('jsonl'))
    .option('--feed <url>', 'only this feed')
    .option('--since <date>', 'only articles first captured since (a date, or e.g. 7d)', dateOption)
    .option('--json', 'one JSON object: the report (file, articles, versions, records by type, bytes)')
    .description('export the archive: JSONL of articles and versions, or WARC of the raw captures with the extracted articles')
    .action(async (options: { out: string; format: string; feed?: string; since?: string; json?: boolean }, command: Command) => {
      const toStdout = options.out === '-';
      const out = toStdout ? '-' : resolve(options.out);
      const line = progressLine(Boolean(process.stderr.isTTY) && !options.json);
      const progress = (done: number, total: number) => line.update(`exporting: ${done}/${total} articles`);
      const filter = { feed: options.feed, since: options.since };
      const report = await withStore(settingsFor(command), (store) => {
        if (options.format === 'wacz') {
          if (toStdout) throw new UsageError('a WACZ is a zip written whole (its index comes last): give --out a file, e.g. --out archive.wacz');
          return exportWacz(store, filter, out, { software: FOREST_SOFTWARE, progress });
        }
        if (toStdout) {
          const sink = stdoutSink();
          return options.format === 'jsonl' ? store.writeJsonl(filter, sink) : store.writeWarc(filter, sink, 'forest-export.warc.gz', { gzip: true, software: FOREST_SOFTWARE, progress });
        }
        return options.format === 'jsonl'
          ? store.exportJsonl(filter, out, progress)
          : store.exportWarc(filter, out, { gzip: out.endsWith('.gz'), software: FOREST_SOFTWARE, progress });
      }).finally(() => line.done());
      // With the export on standard output, the report goes to standard error.
      const say = toStdout ? (text: string) => process.stderr.write(`${text}\n`) : (text: string) => console.log(text);
      if (options.json) return toStdout ? say(JSON.stringify({ out, format: options.format, ...report })) : printJson({ out, format: options.format, ...report });
      const records = Object.entries(report.records).map(([type, n]) => `${n} ${type}`).join(', ');
      say(`wrote ${toStdout ? 'standard output' : out}: ${report.articles} articles, ${report.versions} versions (${records}), ${(report.bytes / 1024).toFixed(0)} KB`);
    });
}
