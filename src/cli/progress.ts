/**
 * A progress line on standard error, redrawn in place, shown only on a terminal (a pipe, a log
 * file or `--json` output gets none). Long commands — an export, a large OPML import, the demo —
 * use it so that a silent terminal never looks hung.
 */
export interface Progress {
  update(text: string): void;
  /** Clears the line, so that what follows starts on a clean line. */
  done(): void;
}

export function progressLine(enabled = Boolean(process.stderr.isTTY), write = (text: string): unknown => process.stderr.write(text)): Progress {
  let shown = false;
  let last = -Infinity;
  return {
    update(text) {
      // Redrawing more than ~10 times a second costs time and shows nothing more.
      const now = performance.now();
      if (!enabled || now - last < 100) return;
      last = now;
      shown = true;
      write(`\r\x1b[2K${text}`);
    },
    done() {
      if (shown) write('\r\x1b[2K');
      shown = false;
    },
  };
}
