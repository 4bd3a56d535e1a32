import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { ConfigError } from '../config/errors.js';
import { forestPolicy, simulate, traceSchema } from '../schedule/simulate.js';
import { printJson, settingsFor } from './context.js';

export function scheduleSimCommand(): Command {
  return new Command('schedule-sim')
    .requiredOption('--trace <file>', 'trace JSON: feeds with the publication times of their items (docs/architecture.md §8)')
    .option('--summary', 'print totals (polls, captured, missed, delays) instead of the per-feed JSON')
    .description('run the real scheduling policy against a trace on a virtual clock and print its metrics as one JSON object')
    .action(async (options: { trace: string; summary?: boolean }, command: Command) => {
      const settings = settingsFor(command);
      let raw: unknown;
      try {
        raw = JSON.parse(await readFile(options.trace, 'utf8'));
      } catch (error) {
        throw new ConfigError(options.trace, null, null, `cannot read the trace: ${(error as Error).message}`);
      }
      const parsed = traceSchema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new ConfigError(options.trace, null, issue.path.join('.') || null, issue.message);
      }
      const result = simulate(parsed.data, forestPolicy(settings.schedule));
      if (!options.summary) return printJson(result);
      const delays = result.feeds.flatMap((feed) => feed.delays).sort((a, b) => a - b);
      const sum = (key: 'polls' | 'captured' | 'missed') => result.feeds.reduce((total, feed) => total + feed[key], 0);
      printJson({ polls: sum('polls'), captured: sum('captured'), missed: sum('missed'), medianDelay: delays[Math.floor(delays.length / 2)] ?? null, p95Delay: delays[Math.floor(delays.length * 0.95)] ?? null });
    });
}
