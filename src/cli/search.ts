import { Command } from 'commander';
import { search, SearchQueryError } from '../archive/search.js';
import { dateOption } from './articles.js';
import { printJson, settingsFor, UsageError, withDatabase } from './context.js';

const versionList = (versions: number[]) => versions.map((n) => `v${n}`).join(', ');

export function searchCommand(): Command {
  return new Command('search')
    .argument('<query>', 'FTS5 query: words, "a phrase", AND / OR / NOT, prefix*, title:word')
    .option('--feed <url>', 'only this feed')
    .option('--since <date>', 'only versions captured since (a date, or e.g. 7d)', dateOption)
    .option('--until <date>', 'only versions captured until', dateOption)
    .option('--all-versions', 'one result per matching version instead of one per article')
    .option('--limit <n>', 'at most this many results', (value) => Number(value), 20)
    .option('--json', 'one JSON object per result per line')
    .description('full-text search over the title and text of every version, ranked, with snippets; finds text an edit has since removed')
    .action(async (query: string, options: { feed?: string; since?: string; until?: string; allVersions?: boolean; limit: number; json?: boolean }, command: Command) => {
      const hits = await withDatabase(settingsFor(command), (db) => {
        try {
          return search(db, query, options);
        } catch (error) {
          if (error instanceof SearchQueryError) throw new UsageError(error.message);
          throw error;
        }
      });
      if (options.json) {
        for (const hit of hits) printJson(hit);
        return;
      }
      if (hits.length === 0) console.log('no match');
      for (const hit of hits) {
        const where = hit.inLatest
          ? `in ${versionList(hit.versions)} of ${hit.latest}`
          : `only in ${versionList(hit.versions)}: removed by a later edit (latest is v${hit.latest})`;
        console.log(`${String(hit.article).padStart(5)}  ${hit.title ?? '(untitled)'}  [${where}]`);
        console.log(`       ${hit.url}\n       ${hit.snippet.replace(/\s+/g, ' ')}`);
      }
    });
}
