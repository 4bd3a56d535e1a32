import { randomUUID } from 'node:crypto';
import { Command } from 'commander';
import { post, signedDelivery } from '../daemon/notifier.js';
import { printJson, settingsFor, UsageError } from './context.js';

/** `forest notify test URL`: one signed test notification, to see that a receiver gets and verifies it. */
export function notifyCommand(): Command {
  const notify = new Command('notify').description('webhook notifications (notify.webhooks in the settings)');
  notify.command('test')
    .argument('<url>', 'the receiver\'s URL')
    .option('--secret <secret>', 'sign with this secret (default: the secret of the webhook with this URL in notify.webhooks)')
    .option('--json', 'one JSON object: url, status, error')
    .description('send one signed test notification (event "test") and say how the receiver answered')
    .action(async (url: string, options: { secret?: string; json?: boolean }, command: Command) => {
      const settings = settingsFor(command);
      const secret = options.secret ?? settings.notify.webhooks.find((webhook) => webhook.url === url)?.secret;
      if (secret === undefined) throw new UsageError(`no secret to sign with: ${url} is not in notify.webhooks; pass --secret`);
      // Each test its own id: a receiver that drops ids it has seen (replays) takes the second test too.
      const payload = JSON.stringify({ event: 'test', message: 'a test notification from forest notify test' });
      const { status, error } = await post(url, signedDelivery({ id: `test-${randomUUID()}`, event: 'test', payload }, secret, new Date()), settings.notify.timeout);
      if (options.json) printJson({ url, status, error });
      else console.log(error === null ? `${url} answered ${status}: delivered` : `${url}: not delivered (${error})`);
      if (error !== null) process.exitCode = 1;
    });
  return notify;
}
