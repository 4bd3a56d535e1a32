import assert from 'node:assert/strict';
import { test } from 'node:test';
import { progressLine } from '../../src/cli/progress.js';

test('the progress line redraws in place on a terminal and clears itself at the end', () => {
  const written: string[] = [];
  const line = progressLine(true, (text) => written.push(text));
  line.update('reading feeds.opml…');
  line.update('too soon to redraw');
  line.done();
  assert.deepEqual(written, ['\r\x1b[2Kreading feeds.opml…', '\r\x1b[2K']);
});

test('no progress line off a terminal (a pipe, a log file, --json)', () => {
  const written: string[] = [];
  const line = progressLine(false, (text) => written.push(text));
  line.update('exporting: 1/2 articles');
  line.done();
  assert.deepEqual(written, []);
});
