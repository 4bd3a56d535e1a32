import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { z } from 'zod';
import { ConfigError } from '../config/errors.js';
import { extractArticle, type ArticleObject } from '../extract/extract.js';
import { learnFromSamples } from '../extract/learn.js';
import { printJson } from './context.js';

const manifestSchema = z.object({
  groups: z.array(z.object({
    id: z.string().optional(),
    learn: z.array(z.object({ id: z.string().optional(), path: z.string(), url: z.string().nullish(), feedTitle: z.string().nullish(), feedSummary: z.string().nullish() })).default([]),
    apply: z.array(z.object({ id: z.string(), path: z.string(), url: z.string().nullish(), feedTitle: z.string().nullish(), feedSummary: z.string().nullish() })),
  })),
});

async function runBatch(manifestPath: string): Promise<void> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(manifestPath, 'utf8'));
  } catch (error) {
    throw new ConfigError(manifestPath, null, null, `cannot read the manifest: ${(error as Error).message}`);
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(manifestPath, null, issue.path.join('.') || null, issue.message);
  }
  for (const group of parsed.data.groups) {
    // Pages are read, used and dropped one at a time: memory stays flat over any number of pages.
    let wrapper = null;
    if (group.learn.length > 0) {
      const samples = [];
      for (const page of group.learn) {
        try {
          samples.push({ input: await readFile(page.path), url: page.url ?? null, feedTitle: page.feedTitle ?? null, feedSummary: page.feedSummary ?? null });
        } catch (error) {
          process.stderr.write(`forest extract: group ${group.id ?? '?'}: cannot read ${page.path}: ${(error as Error).message}\n`);
        }
      }
      wrapper = learnFromSamples(samples).wrapper;
    }
    for (const page of group.apply) {
      let article: ArticleObject;
      try {
        article = extractArticle(await readFile(page.path), { url: page.url ?? null, feedTitle: page.feedTitle ?? null, feedSummary: page.feedSummary ?? null, wrapper });
      } catch (error) {
        printJson({ id: page.id, title: null, text: '', html: '', method: 'none', wrapper: null, reason: `cannot read: ${(error as Error).message}` });
        continue;
      }
      printJson({ id: page.id, ...article });
    }
  }
}

export function extractCommand(): Command {
  return new Command('extract')
    .argument('[file]', 'an HTML page (bytes; the charset is sniffed)')
    .option('--url <url>', 'the page\'s URL (links and images are made absolute against it)')
    .option('--feed-title <title>', 'the feed item\'s title, as signifiers')
    .option('--feed-summary <summary>', 'the feed item\'s description, as signifiers')
    .option('--batch <manifest>', 'extract every page of a manifest (docs/architecture.md); JSON lines: one object per applied page')
    .option('--json', 'one JSON object: the article object')
    .description('extract the article object (title, byline, dates, content) of a page')
    .action(async (file: string | undefined, options: { url?: string; feedTitle?: string; feedSummary?: string; batch?: string; json?: boolean }) => {
      if (options.batch) return runBatch(options.batch);
      if (!file) throw new Error('extract needs a FILE or --batch MANIFEST');
      const article = extractArticle(await readFile(file), { url: options.url ?? null, feedTitle: options.feedTitle ?? null, feedSummary: options.feedSummary ?? null });
      if (options.json) return printJson(article);
      if (article.method === 'none') {
        process.stderr.write(`forest extract: ${file}: nothing extracted: ${article.reason}\n`);
        process.exitCode = 1;
        return;
      }
      const meta = [article.byline && `by ${article.byline}`, article.published && `published ${article.published}`, article.modified && `modified ${article.modified}`, article.language && `language ${article.language}`].filter(Boolean);
      console.log(`${article.title ?? '(no title)'}\n${meta.join(' · ')}${meta.length ? '\n' : ''}[method ${article.method}${article.wrapper ? `, wrapper ${article.wrapper}` : ''}]\n`);
      console.log(article.text);
    });
}

export function learnCommand(): Command {
  return new Command('learn')
    .argument('<files...>', 'sample pages of one template (2 or more; 8–10 is best)')
    .option('--json', 'one JSON object: the wrapper and the ranked patterns')
    .option('--top <n>', 'how many ranked patterns to show', Number, 10)
    .description('learn a FOREST wrapper from sample pages and explain it: the XPath and the ranked structural patterns with J, U, I and R')
    .action(async (files: string[], options: { json?: boolean; top: number }) => {
      const samples = await Promise.all(files.map(async (path) => ({ input: await readFile(path) })));
      const started = performance.now();
      const { wrapper, patterns, check, rejected } = learnFromSamples(samples);
      const ms = performance.now() - started;
      if (options.json) return printJson({ wrapper, rejected, check, patterns: patterns.slice(0, options.top), ms: Math.round(ms) });
      const learned = wrapper ?? rejected;
      if (!learned) {
        process.stderr.write('forest learn: no structural pattern found (too few signifiers in the pages)\n');
        process.exitCode = 1;
        return;
      }
      console.log(`wrapper: ${learned.xpath}\nlearned from ${files.length} pages in ${ms.toFixed(0)} ms; ${learned.templateBlocks.length} recurring template blocks inside it are dropped when applied`);
      console.log(`${check?.reason ?? 'not checked'}${rejected ? ': these pages keep single-page extraction' : ''}\n`);
      const header = ['rank', 'R', 'I', 'J', 'U (nats)', 'pages', 'level', 'pattern'];
      const rows = patterns.slice(0, options.top).map((p, i) => [String(i + 1), p.R.toFixed(1), p.I.toFixed(2), p.J.toFixed(3), p.U.toFixed(1), String(p.pages), String(p.level), p.xpath]);
      const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
      for (const row of [header, ...rows]) console.log(row.map((cell, i) => (i === row.length - 1 ? cell : cell.padStart(widths[i]!))).join('  '));
    });
}
