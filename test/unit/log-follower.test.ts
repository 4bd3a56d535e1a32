import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { LogFollower } from '../../bench/scale/daemon-log.js';

test('a log followed as it grows: whole lines only, kept by the filter, none read twice', () => {
  const dir = mkdtempSync(join(tmpdir(), 'forest-follow-'));
  try {
    const path = join(dir, 'forest.log');
    writeFileSync(path, '{"msg":"extracted","n":1}\n{"msg":"polled","n":2}\n{"msg":"extr');
    // Chunks of 5 bytes: every line and the two-byte character below cross a read's edge.
    const follower = new LogFollower(path, (line) => line.includes('"msg":"extracted"'), 5);
    assert.deepEqual(follower.follow(), ['{"msg":"extracted","n":1}']);
    appendFileSync(path, 'acted","t":"é"}\n');
    assert.deepEqual(follower.follow(), ['{"msg":"extracted","t":"é"}']);
    assert.deepEqual(follower.follow(), []);
    assert.deepEqual(follower.lines, ['{"msg":"extracted","n":1}', '{"msg":"extracted","t":"é"}']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
