import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import { effortReportSchema, type EffortReport } from '../../src/daemon/effort.js';

/** A daemon's log line as the benches read it; a minute report carries the daemon's effort (src/daemon/effort.ts). */
const line = z.object({ msg: z.string(), time: z.string(), url: z.string().optional(), feed: z.string().optional(), effort: effortReportSchema.optional() });
export type LogLine = z.infer<typeof line>;

/** The JSON lines of a daemon's log (lines that are not the daemon's are skipped). */
export function readLog(path: string): LogLine[] {
  return readFileSync(path, 'utf8').split('\n').filter((text) => text.startsWith('{')).flatMap((text) => {
    // A daemon killed mid-write (bench:cluster --kill-after) leaves its last line cut short.
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return [];
    }
    const parsed = line.safeParse(json);
    return parsed.success ? [parsed.data] : [];
  });
}

/**
 * A daemon's log read as it grows, keeping only the lines `keep` wants: a long run's log (the
 * first day at 100,000 feeds writes hundreds of megabytes) is never held whole, and a bench can
 * look at what is done so far without reading the file again from its start.
 */
export class LogFollower {
  readonly lines: string[] = [];
  private offset = 0;
  private partial = '';
  private readonly chunk: Buffer;
  // A character split between two reads is joined, not replaced.
  private readonly decoder = new StringDecoder('utf8');

  constructor(private readonly path: string, private readonly keep: (text: string) => boolean, chunkBytes = 4 * 2 ** 20) {
    this.chunk = Buffer.alloc(chunkBytes);
  }

  /** Reads what was written since the last call; returns the new lines kept. */
  follow(): string[] {
    const fresh: string[] = [];
    const fd = openSync(this.path, 'r');
    try {
      for (let read = readSync(fd, this.chunk, 0, this.chunk.length, this.offset); read > 0; read = readSync(fd, this.chunk, 0, this.chunk.length, this.offset)) {
        this.offset += read;
        const text = this.partial + this.decoder.write(this.chunk.subarray(0, read));
        const end = text.lastIndexOf('\n');
        this.partial = text.slice(end + 1);
        if (end >= 0) for (const line of text.slice(0, end).split('\n')) if (this.keep(line)) fresh.push(line);
      }
    } finally {
      closeSync(fd);
    }
    for (const line of fresh) this.lines.push(line);
    return fresh;
  }
}

/** A daemon's minute reports added up; the archive methods merged by name, the `top` costliest kept. */
export function sumEffort(reports: EffortReport[], top = 4) {
  const work = { poll: 0, capture: 0, revisit: 0, extract: 0 };
  const methods = new Map<string, { calls: number; ms: number }>();
  const total = { cpuMs: 0, mainCpuMs: 0, poolCpuMs: 0, mainBusyMs: 0, passes: 0, emptyPasses: 0, passMs: 0, claimed: 0, refused: 0, storeMs: 0, storeCalls: 0, minutes: reports.length };
  for (const report of reports) {
    total.mainCpuMs += report.mainCpuMs ?? NaN;
    total.poolCpuMs += report.poolCpuMs ?? NaN;
    for (const key of ['cpuMs', 'mainBusyMs', 'passes', 'emptyPasses', 'passMs', 'claimed', 'refused', 'storeMs', 'storeCalls'] as const) total[key] += report[key];
    for (const kind of ['poll', 'capture', 'revisit', 'extract'] as const) work[kind] += report.workMs[kind];
    for (const { method, calls, ms } of report.storeTop) {
      const entry = methods.get(method) ?? { calls: 0, ms: 0 };
      methods.set(method, { calls: entry.calls + calls, ms: entry.ms + ms });
    }
  }
  return { ...total, work, top: [...methods].sort((a, b) => b[1].ms - a[1].ms).slice(0, top) };
}

const timeOf = (line: string) => /"time":"([^"]+)"/.exec(line)?.[1] ?? '';

/**
 * Several daemons' log lines merged in time order (stable for equal times): a feed's next poll may
 * be another daemon's, so lateness read from one log after another compares a poll with a plan
 * made long before it by the other daemon's last one.
 */
export function inTimeOrder(...logs: ReadonlyArray<readonly string[]>): string[] {
  return logs.flat().sort((x, y) => timeOf(x).localeCompare(timeOf(y)));
}

const pollLine = z.object({ msg: z.string(), time: z.string(), feed: z.string(), ms: z.number(), next: z.string(), riskAt: z.string().optional() });

/**
 * How late polls started against the time their feed's previous poll planned (seconds), from a
 * daemon's log lines in time order: a poll's start is its line's time less its duration (the
 * fetch, the parse and the decision; the write after it is a few ms). `planned`: what was planned
 * before the log begins (the archive's next polls); `feeds`: these feeds' polls only; `from`:
 * only polls planned from then on. `past: 'risk'`: against the time the previous poll said its
 * feed's items would be at risk instead (schedule/policy.ts `riskAt`; polls with none left out, and
 * `planned` unused: the archive's plan says no risk time) —
 * a poll later than planned but before that time lost nothing, as a daemon behind schedule allows.
 */
export function pollLateness(log: readonly string[], options: { feeds?: ReadonlySet<string>; planned?: ReadonlyMap<string, number>; from?: number; past?: 'plan' | 'risk' } = {}): number[] {
  const planned = new Map(options.past === 'risk' ? [] : options.planned);
  const late: number[] = [];
  for (const text of log) {
    if (!text.includes('"msg":"poll')) continue;
    const parsed = pollLine.safeParse(JSON.parse(text));
    if (!parsed.success || (options.feeds && !options.feeds.has(parsed.data.feed))) continue;
    const { feed, time, ms, next, riskAt } = parsed.data;
    const at = planned.get(feed);
    if (at !== undefined && at >= (options.from ?? Number.NEGATIVE_INFINITY)) late.push((Date.parse(time) - ms - at) / 1000);
    const then = options.past === 'risk' ? riskAt : next;
    if (then === undefined) planned.delete(feed);
    else planned.set(feed, Date.parse(then));
  }
  return late;
}
