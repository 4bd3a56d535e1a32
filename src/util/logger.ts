import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

/**
 * pino on stdout (fd 1), stderr (fd 2) or a file: human-readable on a terminal (or when asked)
 * and JSON lines otherwise (always JSON lines in a file). All write synchronously in-process (no
 * transport worker), so that the last lines before an exit are never lost.
 */
export function createLogger(options: { level: string; pretty: boolean | 'auto' }, fd: 1 | 2 | string = 2): Logger {
  const base = { level: options.level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime };
  if (typeof fd === 'string') return pino(base, pino.destination({ dest: fd, sync: true, mkdir: true, append: false }));
  const stream = fd === 1 ? process.stdout : process.stderr;
  const usePretty = options.pretty === 'auto' ? Boolean(stream.isTTY) : options.pretty;
  if (usePretty) return pino(base, pretty({ destination: fd, colorize: Boolean(stream.isTTY), sync: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' }));
  return pino(base, pino.destination({ dest: fd, sync: true }));
}
