import { Command } from 'commander';
import { makeArticle } from '../synthetic/articles.js';
import { SyntheticClock } from '../synthetic/clock.js';
import { SyntheticWeb } from '../synthetic/server.js';
import { scriptedEdits } from '../synthetic/sites.js';
import { formatDuration } from '../util/units.js';
import { wholeNumber } from './articles.js';
import { durationOption } from './run.js';

export function serveSyntheticCommand(): Command {
  return new Command('serve-synthetic')
    .option('--speed <factor>', 'virtual time runs this many times faster than real time', Number, 1)
    .option('--edits <n>', 'edit this many articles while serving (as the demo does), one every --edit-every', wholeNumber, 0)
    .option('--edit-every <duration>', 'real time between two edits, whatever --speed (default 1m)', durationOption)
    .description('serve the synthetic web (made-up sites with feeds) on loopback until interrupted; with --edits, its articles are edited as it runs, so that `forest run` against it finds versions')
    .action(async (given: { speed: number; edits: number; editEvery?: number }) => {
      const options = { ...given, editEvery: given.editEvery ?? 60_000 };
      // Edits are scripted on the synthetic clock, which runs --speed times faster than the wall's.
      const web = await new SyntheticWeb({ clock: new SyntheticClock(Date.now(), options.speed), edits: scriptedEdits(options.edits, options.editEvery * options.speed) }).start();
      for (const site of web.sites.values()) console.log(`${site.definition.name.padEnd(18)} ${site.url}  feed: ${site.feedUrl}`);
      console.log('\nThese sites are on loopback, which Forest refuses by default: allow it in your settings with\n  http:\n    allowPrivateNetworks: [127.0.0.0/8]');
      if (options.edits > 0) {
        console.log(`\nEditing ${options.edits} article${options.edits === 1 ? '' : 's'}, one every ${formatDuration(options.editEvery)} (the first in ${formatDuration(options.editEvery)}).`);
        console.log('Revisits find an edit only after it is made: set revisit.after in your settings to minutes, e.g. [1m, 2m, 5m, 10m].');
        // Say when each edit is made, so that a user checking by hand knows what to look for.
        for (const edit of web.edits) {
          const at = web.editTime(edit)!;
          const site = web.site(edit.site);
          const article = makeArticle(edit.site, edit.index, web.publishedAt(site.definition, edit.index));
          setTimeout(() => console.log(`${new Date().toISOString()}  ${edit.kind}: ${site.url}articles/${article.slug}`), (at - web.clock.now()) / options.speed).unref();
        }
      }
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await web.stop();
    });
}
