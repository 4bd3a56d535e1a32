import { Command } from 'commander';
import { SyntheticClock } from '../synthetic/clock.js';
import { SyntheticWeb } from '../synthetic/server.js';

export function serveSyntheticCommand(): Command {
  return new Command('serve-synthetic')
    .option('--speed <factor>', 'virtual time runs this many times faster than real time', Number, 1)
    .description('serve the synthetic web (made-up sites with feeds) on loopback until interrupted')
    .action(async (options: { speed: number }) => {
      const web = await new SyntheticWeb({ clock: new SyntheticClock(Date.now(), options.speed) }).start();
      for (const site of web.sites.values()) console.log(`${site.definition.name.padEnd(18)} ${site.url}  feed: ${site.feedUrl}`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await web.stop();
    });
}
