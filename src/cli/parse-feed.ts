import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { parseFeed } from '../feeds/parse.js';
import { printJson } from './context.js';

const oneLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0]!;

export function parseFeedCommand(): Command {
  return new Command('parse-feed')
    .argument('[file]', 'feed document (RSS, Atom or JSON Feed)')
    .option('--url <url>', 'the URL the document was fetched from (relative links resolve against it)')
    .option('--batch <list>', 'parse every file named in LIST (one path per line); JSON lines: one object per file')
    .description('parse a feed document and print it as one JSON object (the Feed/Item model)')
    .action(async (file: string | undefined, options: { url?: string; batch?: string }) => {
      if (options.batch) {
        const paths = (await readFile(options.batch, 'utf8')).split('\n').map((line) => line.trim()).filter((line) => line !== '');
        for (const path of paths) {
          try {
            printJson({ path, result: await parseFeed(await readFile(path), { url: options.url ?? null }) });
          } catch (error) {
            printJson({ path, error: oneLine(error) });
          }
        }
        return;
      }
      if (!file) throw new Error('parse-feed needs a FILE or --batch LIST');
      let result;
      try {
        result = await parseFeed(await readFile(file), { url: options.url ?? null });
      } catch (error) {
        process.stderr.write(`forest parse-feed: ${file}: ${oneLine(error)}\n`);
        process.exitCode = 1;
        return;
      }
      printJson(result);
    });
}
