import { readFileSync, readlinkSync } from 'node:fs';

/**
 * CPU time of single threads of this process, from Linux's /proc (proc(5): /proc/thread-self,
 * /proc/self/task/TID/stat, utime and stime in clock ticks). Node's process.cpuUsage() counts
 * every thread at once; the daemon's effort report splits it into the main thread, the pool's
 * workers and the rest (V8's compiler and collector threads, libuv's). Elsewhere than Linux each
 * answer is null.
 */

/** Clock ticks per second of /proc's times (USER_HZ: 100 on every Linux architecture Node runs on). */
const TICKS_PER_SECOND = 100;

/** The calling thread's id in the kernel (its task), or null without /proc. */
export function ownThreadId(): number | null {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
}

/** CPU a thread of this process has used (user + system), ms; null once it has ended, or without /proc. */
export function threadCpuMs(tid: number): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: fields are counted after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : null;
  } catch {
    return null;
  }
}
