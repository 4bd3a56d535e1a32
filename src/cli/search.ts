import { Command } from 'commander';
import { SearchQueryError } from '../archive/store.js';
import { dateOption, positiveInt, wholeNumber } from './articles.js';
import { printJson, settingsFor, UsageError, withStore } from './context.js';

const versionList = (versions: number[]) => versions.map((n) => `v${n}`).join(', ');

export function searchCommand(): Command {
  return new Command('search')
    .argument('<query...>', 'words (all of them), "a phrase", a OR b, -word (or NOT word), prefix*, title:word, ( groups ); punctuation inside a word is searched as a phrase (harbour-bridge). One argument or several (joined by spaces); a word may start with -')
    // `forest search '-ferry harbour'`: a query that starts with a minus is the query, not an option.
    .allowUnknownOption()
    .option('--feed <url>', 'only this feed')
    .option('--since <date>', 'only versions captured since (a date, or e.g. 7d)', dateOption)
    .option('--until <date>', 'only versions captured until', dateOption)
    .option('--all-versions', 'one result per matching version instead of one per article')
    .option('--limit <n>', 'at most this many results', positiveInt, 20)
    .option('--offset <n>', 'skip this many results (the next page: --offset 20)', wholeNumber, 0)
    .option('--json', 'JSON lines: one object per result (article, feed, url, title, versions, latest, inLatest, capturedAt, rank, snippet)')
    .description('full-text search over the title and text of every version, ranked, with snippets; finds text an edit has since removed')
    .action(async (words: string[], options: { feed?: string; since?: string; until?: string; allVersions?: boolean; limit: number; offset: number; json?: boolean }, command: Command) => {
      // An unknown `--option` is a typo more likely than a search word: said, not searched for.
      const typo = words.find((word) => /^--[a-z]/i.test(word));
      if (typo) throw new UsageError(`unknown option ${typo} (the search options: ${command.options.map((option) => option.long).join(', ')})`);
      const query = words.join(' ');
      const hits = await withStore(settingsFor(command), async (store) => {
        try {
          return await store.search(query, options);
        } catch (error) {
          if (error instanceof SearchQueryError) throw new UsageError(error.message);
          throw error;
        }
      });
      if (options.json) {
        for (const hit of hits) printJson(hit);
        return;
      }
      if (hits.length === 0) console.log(options.offset > 0 ? `no more matches past --offset ${options.offset}` : 'no match');
      for (const hit of hits) {
        const where = hit.inLatest
          ? `in ${versionList(hit.versions)} of ${hit.latest}`
          : `only in ${versionList(hit.versions)}: removed by a later edit (latest is v${hit.latest})`;
        console.log(`${String(hit.article).padStart(5)}  ${hit.title ?? '(untitled)'}  [${where}]`);
        console.log(`       ${hit.url}\n       ${hit.snippet.replace(/\s+/g, ' ')}`);
      }
      // Ranked results have no cheap total: a full page says there may be more.
      if (hits.length === options.limit) console.log(`\nresults ${options.offset + 1}–${options.offset + hits.length}; more may follow: --offset ${options.offset + hits.length}`);
    });
}
