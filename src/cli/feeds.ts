import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import type { Feed } from '../archive/store.js';
import { readOpml, toOpml } from '../config/opml.js';
import { entryOf, listInDatabase } from '../config/list-edits.js';
import { addSubscription, editSubscriptions, readSubscriptions, removeSubscription, setSubscriptionEnabled, urlsOf } from '../config/subscriptions.js';
import { editList, printJson, settingsFor, syncFromList, UsageError, withStore } from './context.js';
import { progressLine } from './progress.js';
import { addressRefusal, ALLOW_PRIVATE_HINT } from '../net/address-check.js';
import { AddressPolicy } from '../net/address-policy.js';

const collect = (value: string, previous: string[]) => [...previous, value];

const feedJson = (feed: Feed, items: number) => ({
  id: feed.id, url: feed.subscribedUrl, fetchUrl: feed.url, title: feed.title, siteUrl: feed.siteUrl, tags: feed.tags, schedule: feed.schedule, enabled: feed.enabled,
  format: feed.format, items,
});

export function feedsCommand(): Command {
  const feeds = new Command('feeds').description('manage the subscription list (config/feeds.yaml by default) and sync it into the database');

  feeds.command('add')
    .argument('<url>', 'feed URL')
    .option('--title <title>', 'title to show instead of the feed\'s own')
    .option('--tag <tag>', 'tag (repeatable)', collect, [])
    .option('--schedule <cron>', 'cron expression that replaces the adaptive schedule, e.g. "*/30 * * * *"')
    .option('--disabled', 'add the feed but do not poll it yet')
    .description('subscribe to a feed')
    .action(async (url: string, options: { title?: string; tag: string[]; schedule?: string; disabled?: boolean }, command: Command) => {
      const settings = settingsFor(command);
      const feed = await editList(settings, (file) => addSubscription(file, { url, title: options.title, tags: options.tag, schedule: options.schedule, enabled: !options.disabled }, 'command line'));
      console.log(`subscribed to ${feed}`);
      const refusal = await addressRefusal(feed, AddressPolicy.from(settings.http.allowPrivateNetworks));
      if (refusal !== null) process.stderr.write(`forest: warning: ${refusal}, which Forest refuses to fetch: ${ALLOW_PRIVATE_HINT}\n`);
    });

  feeds.command('poll')
    .argument('<url...>', 'feed URLs (as subscribed, or as fetched)')
    .option('--json', 'one JSON object: the feeds made due')
    .description('poll these feeds now, whatever their schedule or failure back-off (a running daemon polls them within seconds; otherwise `forest run` does at its start)')
    .action(async (urls: string[], options: { json?: boolean }, command: Command) => {
      const settings = settingsFor(command);
      const due = await withStore(settings, (store) => store.pollNow({ urls }, new Date()));
      const unknown = urls.filter((url) => !due.includes(url));
      if (options.json) return printJson({ due, notSubscribed: unknown });
      for (const url of due) console.log(`${url}: due now`);
      if (unknown.length > 0) throw new UsageError(`not an enabled subscription: ${unknown.join(', ')} (see \`forest feeds list\`; a paused feed is resumed with \`forest feeds enable\`)`);
    });

  feeds.command('remove')
    .argument('<url>', 'feed URL as subscribed')
    .description('unsubscribe (the archive of the feed is kept)')
    .action(async (url: string, _options: unknown, command: Command) => {
      const settings = settingsFor(command);
      await editList(settings, (file) => removeSubscription(file, url));
      console.log(`unsubscribed from ${url}`);
    });

  for (const [name, enabled] of [['enable', true], ['disable', false]] as const) {
    feeds.command(name)
      .argument('<url>', 'feed URL as subscribed')
      .description(enabled ? 'resume polling a feed' : 'stop polling a feed (it stays subscribed)')
      .action(async (url: string, _options: unknown, command: Command) => {
        const settings = settingsFor(command);
        await editList(settings, (file) => setSubscriptionEnabled(file, url, enabled));
        console.log(`${enabled ? 'enabled' : 'disabled'} ${url}`);
      });
  }

  feeds.command('list')
    .option('--json', 'JSON lines: one object per feed (id, url, fetchUrl, title, siteUrl, tags, schedule, enabled, format, items)')
    .description('list subscribed feeds')
    .action(async (options: { json?: boolean }, command: Command) => {
      const settings = settingsFor(command);
      await withStore(settings, async (store) => {
        // On PostgreSQL the shared list is the database's: this machine's file joins it only when its daemon starts.
        if (!listInDatabase(settings)) await syncFromList(store, settings);
        const items = new Map((await store.feedStatuses()).map((status) => [status.id, status.items]));
        const rows = (await store.feeds()).map((feed) => feedJson(feed, items.get(feed.id) ?? 0));
        if (options.json) return rows.forEach(printJson);
        if (rows.length === 0) return console.log(`no feeds; add one with \`forest feeds add URL\` (list: ${settings.subscriptions})`);
        for (const row of rows) {
          const flags = [row.enabled ? null : 'disabled', row.schedule ? `cron ${row.schedule}` : null, row.tags.length ? `tags ${row.tags.join(',')}` : null].filter(Boolean);
          console.log(`${String(row.id).padStart(3)}  ${row.url}${row.title ? `  “${row.title}”` : ''}  ${row.items} items${flags.length ? `  [${flags.join('; ')}]` : ''}`);
        }
      }, { create: true });
    });

  feeds.command('import')
    .argument('<file>', 'OPML file')
    .description('subscribe to every feed of an OPML file (feeds already subscribed are left as they are)')
    .action(async (file: string, _options: unknown, command: Command) => {
      const settings = settingsFor(command);
      const line = progressLine();
      line.update(`reading ${file}…`);
      const incoming = readOpml(file); // a bad file stops here: nothing written
      line.update(`${incoming.length} feeds in ${file}; adding the new ones…`);
      let added = 0;
      const edited = editList(settings, (listFile) => editSubscriptions(listFile, (list, document) => {
        const subscribed = urlsOf(list);
        for (const subscription of incoming) {
          if (subscribed.has(subscription.url)) continue;
          list.add(document.createNode(entryOf(subscription)));
          added++;
        }
      }));
      await edited.finally(() => line.done());
      console.log(`imported ${added} new feed${added === 1 ? '' : 's'} (${incoming.length - added} already subscribed) from ${file}`);
    });

  feeds.command('export')
    .argument('[file]', 'write OPML here instead of standard output')
    .description('export the subscription list as OPML 2.0')
    .action(async (file: string | undefined, _options: unknown, command: Command) => {
      const settings = settingsFor(command);
      const subscriptions = readSubscriptions(settings.subscriptions);
      const known = await withStore(settings, async (store) => new Map((await store.feeds()).map((feed) => [feed.subscribedUrl, feed])), { create: true });
      const opml = toOpml(subscriptions.map((subscription) => ({
        ...subscription,
        siteUrl: subscription.siteUrl ?? known.get(subscription.url)?.siteUrl ?? null,
        feedTitle: known.get(subscription.url)?.feedTitle ?? null,
      })));
      if (file) {
        writeFileSync(file, opml);
        console.log(`exported ${subscriptions.length} feeds to ${file}`);
      } else {
        process.stdout.write(opml);
      }
    });

  return feeds;
}
