import { styleText } from 'node:util';
import { Command, InvalidArgumentError, Option } from 'commander';
import { createTwoFilesPatch } from 'diff';
import type { ObjectDiff, WordPart } from '../archive/diff.js';
import type { NormalizedObject } from '../archive/normalize.js';
import type { Article, Store, Version } from '../archive/store.js';
import { compareVersions, diffView, historyView, versionView } from '../archive/views.js';
import { dateInWords, parseDuration, plural } from '../util/units.js';
import { printJson, settingsFor, withStore } from './context.js';

/** `--since 2026-11-01`, `--since 2026-11-01T12:00Z` or `--since 7d` (that long ago) → ISO. */
export function dateOption(value: string): string {
  const millis = /^\d+(\.\d+)?\s*(ms|s|m|h|d|w)$/i.test(value.trim()) ? parseDuration(value) : undefined;
  if (millis !== undefined) return new Date(Date.now() - millis).toISOString();
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new InvalidArgumentError(`not a date: ${value} (use e.g. 2026-11-01, 2026-11-01T12:00Z or 7d)`);
  return new Date(time).toISOString();
}

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`not a positive whole number: ${value}`);
  return n;
}

export function wholeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`not a whole number: ${value}`);
  return n;
}

/** An article by id, or a clear error. */
async function requireArticle(store: Store, id: number): Promise<Article> {
  const article = await store.article(id);
  if (!article) throw new Error(`no article ${id} (see \`forest articles\`)`);
  return article;
}

async function requireVersion(store: Store, article: Article, n: number): Promise<Version> {
  const version = await store.version(article.id, n);
  if (!version) throw new Error(`article ${article.id} has no version ${n} (it has ${article.versions})`);
  return version;
}

const colour = (): boolean => Boolean(process.stdout.isTTY) && !process.env['NO_COLOR'];

/** The line under a page of results: where it sits in the whole, and how to see the next page. */
export function pageFooter(shown: number, offset: number, total: number, what: string): string | null {
  if (shown === 0 || (offset === 0 && shown >= total)) return null;
  const next = offset + shown < total ? `; next page: --offset ${offset + shown}` : '';
  return `${what} ${offset + 1}–${offset + shown} of ${total}${next}`;
}

export function articlesCommand(): Command {
  return new Command('articles')
    .option('--feed <url>', 'only this feed')
    .option('--since <date>', 'only articles first captured since (a date, or e.g. 7d)', dateOption)
    .option('--tag <tag>', 'only the articles of feeds with this tag')
    .option('--language <range>', 'only articles in this language (a BCP 47 range: en selects en-GB too)', (value: string) => {
      if (!/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(value)) throw new InvalidArgumentError(`not a language range: ${value} (use e.g. en, de, pt-BR)`);
      return value;
    })
    .option('--changed', 'only articles edited since their first version')
    .option('--limit <n>', 'at most this many articles', positiveInt, 50)
    .option('--offset <n>', 'skip this many (the next page: --offset 50)', wholeNumber, 0)
    .option('--json', 'JSON lines: one object per article (id, feed, guid, url, canonicalUrl, title, versions, firstCaptured, lastChecked, nextCheck)')
    .description('list archived articles, newest first, a page at a time: id, title, url, guid, versions, first captured, last checked, feed')
    .action(async (options: { feed?: string; since?: string; tag?: string; language?: string; changed?: boolean; limit: number; offset: number; json?: boolean }, command: Command) => {
      const { articles, total } = await withStore(settingsFor(command), (store) => store.articles(options, options));
      if (options.json) {
        for (const row of articles) printJson(row);
        return;
      }
      if (total === 0) console.log('no articles archived yet');
      else if (articles.length === 0) console.log(`no articles past --offset ${options.offset} (there are ${total})`);
      for (const row of articles) {
        console.log(`${String(row.id).padStart(5)}  ${row.title ?? '(untitled)'}`);
        console.log(`       ${row.url}\n       guid ${row.guid}`);
        console.log(`       ${row.versions} version${row.versions === 1 ? '' : 's'} · first captured ${row.firstCaptured} · last checked ${row.lastChecked ?? '—'} · feed ${row.feed}`);
      }
      const footer = pageFooter(articles.length, options.offset, total, 'articles');
      if (footer) console.log(`\n${footer}`);
    });
}

export function showCommand(): Command {
  return new Command('show')
    .argument('<id>', 'article id (see `forest articles`)', positiveInt)
    .argument('[n]', 'this version (default: the latest; `forest history ID` lists them)', positiveInt)
    .addOption(new Option('--format <format>', 'how to print it').choices(['text', 'html', 'json']).default('text'))
    .option('--json', 'same as --format json: one JSON object')
    .description('print an article as archived: one version, as text, HTML or JSON')
    .action(async (id: number, n: number | undefined, options: { format: string; json?: boolean }, command: Command) => {
      const format = options.json ? 'json' : options.format;
      await withStore(settingsFor(command), async (store) => {
        const article = await requireArticle(store, id);
        const version = await requireVersion(store, article, n ?? article.versions);
        const elsewhere = await store.sameArticleElsewhere(article.id);
        if (format === 'json') return printJson(versionView(article, version, elsewhere, await store.versionPictures(article.id, version.n)));
        if (format === 'html') return void process.stdout.write(`${version.html}\n`);
        console.log(version.title ?? '(untitled)');
        const meta = [version.byline, version.published ? `published ${dateInWords(version.published)}` : null].filter(Boolean).join(' · ');
        if (meta) console.log(meta);
        console.log(`${article.finalUrl ?? article.url}\nversion ${version.n} of ${article.versions}, captured ${version.capturedAt} (${version.method}${version.wrapperId ? `, wrapper ${version.wrapperId}` : ''})`);
        if (elsewhere.length) console.log(`the same article (canonical URL) is also article ${elsewhere.join(', ')}`);
        console.log(`\n${version.text}`);
      });
    });
}

export function historyCommand(): Command {
  return new Command('history')
    .argument('<id>', 'article id', positiveInt)
    .option('--json', 'one JSON object: the article, its versions (with what changed) and every check')
    .description('the versions of an article (when, how extracted, what changed) and every check between them')
    .action(async (id: number, options: { json?: boolean }, command: Command) => {
      await withStore(settingsFor(command), async (store) => {
        const article = await requireArticle(store, id);
        const versions = await store.versions(article.id);
        const checks = await store.checks(article.id);
        if (options.json) {
          return printJson(historyView(article, versions, checks));
        }
        console.log(`${article.title ?? '(untitled)'}\n${article.url}${article.goneSince ? `\ngone since ${article.goneSince} (the page answers 404/410)` : ''}\n`);
        for (const version of versions) {
          const { change } = version;
          console.log(`v${version.n}  ${version.capturedAt}  ${version.method}${version.wrapperId ? ` (wrapper ${version.wrapperId})` : ''}  ${version.hash.slice(0, 12)}  ${version.title ?? ''}${version.reason ? `  [${version.reason}]` : ''}`);
          if (version.reextracted) console.log(`     re-extracted ${version.reextracted.at} when the extraction method changed (first made by ${version.reextracted.firstMethod}, ${version.reextracted.firstHash.slice(0, 12)}): compared like with like`);
          // The summary says the change kinds in words ("body edit: 1 block edited"): the kinds' codes are in --json.
          console.log(`     ${version.summary ?? change.join(', ')}`);
          const between = checks.filter((check) => check.version === version.n && check.result !== 'changed');
          if (between.length) {
            // Checks that found no edit, by result; the ones that need a look say why.
            const parts = (['unchanged', 'gone', 'unavailable', 'failed'] as const).flatMap((result) => {
              const found = between.filter((check) => check.result === result);
              if (found.length === 0) return [];
              const last = found.at(-1)!;
              return [`${found.length} ${result}${result === 'unchanged' ? '' : ` (last: ${last.reason ?? last.status})`}`];
            });
            console.log(`     then checks: ${parts.join(', ')}; last ${between.at(-1)!.at}`);
          }
        }
        const lastFailed = article.failedChecks > 0 ? checks.filter((check) => check.result === 'failed').at(-1) : undefined;
        const retry = lastFailed
          ? ` (a retry: the last ${plural(article.failedChecks, 'check')} got no answer, the last at ${lastFailed.at}: ${lastFailed.reason ?? lastFailed.status})`
          : '';
        console.log(`\n${checks.length} checks; next check ${article.nextCheck ?? 'none scheduled'}${retry}`);
      });
    });
}

/** Word diff for a terminal: colour when it is one, git's `[-removed-]{+added+}` otherwise. */
function renderWords(parts: WordPart[], useColour: boolean): string {
  return parts.map((part) => {
    if (part.op === 'equal') return part.text;
    if (useColour) return part.op === 'added' ? styleText('green', part.text) : styleText(['red', 'strikethrough'], part.text);
    return part.op === 'added' ? `{+${part.text}+}` : `[-${part.text}-]`;
  }).join('');
}

export function renderWordDiff(diff: ObjectDiff, useColour: boolean): string {
  const lines: string[] = [];
  for (const field of diff.fields) lines.push(`${field.field}: ${renderWords([{ op: 'removed', text: field.before ?? '' }, { op: 'equal', text: ' ' }, { op: 'added', text: field.after ?? '' }], useColour)}`);
  let skipped = 0;
  const flushSkipped = () => {
    if (skipped) lines.push(useColour ? styleText('dim', `  … ${skipped} unchanged block${skipped === 1 ? '' : 's'}`) : `  … ${skipped} unchanged block${skipped === 1 ? '' : 's'}`);
    skipped = 0;
  };
  for (const change of diff.blocks) {
    if (change.op === 'equal') {
      skipped += change.count;
      continue;
    }
    flushSkipped();
    if (change.op === 'changed') lines.push(`~ ${renderWords(change.words, useColour)}`);
    else lines.push(`${change.op === 'added' ? '+' : '-'} ${renderWords([{ op: change.op, text: change.block.text }], useColour)}`);
  }
  flushSkipped();
  for (const url of diff.media.removed) lines.push(`- media ${renderWords([{ op: 'removed', text: url }], useColour)}`);
  for (const url of diff.media.added) lines.push(`+ media ${renderWords([{ op: 'added', text: url }], useColour)}`);
  return lines.join('\n');
}

const objectLines = (object: NormalizedObject) =>
  [`# ${object.title}`, ...(object.byline ? [`by ${object.byline}`] : []), ...(object.published ? [`published ${object.published}`] : []), '',
    ...object.blocks.map((block) => block.text), ...object.media.map((url) => `[media] ${url}`)].join('\n') + '\n';

export function diffCommand(): Command {
  return new Command('diff')
    .argument('<id>', 'article id', positiveInt)
    .argument('[a]', 'the earlier version (default: the one before b)', positiveInt)
    .argument('[b]', 'the later version (default: the latest)', positiveInt)
    .addOption(new Option('--format <format>', 'word (a word diff inside edited blocks), unified (diff -u of the text) or json').choices(['word', 'unified', 'json']).default('word'))
    .option('--json', 'same as --format json: one JSON object')
    .description('what changed between two versions of an article: a word diff inside the edited blocks')
    .action(async (id: number, a: number | undefined, b: number | undefined, options: { format: string; json?: boolean }, command: Command) => {
      const format = options.json ? 'json' : options.format;
      await withStore(settingsFor(command), async (store) => {
        const article = await requireArticle(store, id);
        if (article.versions < 2 && a === undefined) throw new Error(`article ${id} has a single version: nothing to compare`);
        const later = b ?? article.versions;
        const earlier = a ?? later - 1;
        const before = await requireVersion(store, article, earlier);
        const after = await requireVersion(store, article, later);
        const comparison = compareVersions(before, after);
        const { diff, caveat } = comparison;
        if (format === 'json') return printJson(diffView(article, before, after, comparison));
        if (format === 'unified') return void process.stdout.write(createTwoFilesPatch(`article ${id} v${earlier}`, `article ${id} v${later}`, objectLines(before.object), objectLines(after.object), before.capturedAt, after.capturedAt));
        console.log(`article ${id}: v${earlier} (${before.capturedAt}) → v${later} (${after.capturedAt})\n${diff.summary}${caveat ? `\n${caveat}` : ''}\n`);
        console.log(renderWordDiff(diff, colour()));
      });
    });
}
