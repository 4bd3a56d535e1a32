import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listAtStart, listEdit } from '../../src/config/list-sync.js';
import type { Subscription } from '../../src/archive/store.js';

const feed = (url: string, extra: Partial<Subscription> = {}): Subscription => ({ url, tags: [], enabled: true, ...extra });

test('on SQLite the file is the list: every edit and every start sends the whole file to replace the archive\'s', () => {
  const before = [feed('a'), feed('b')];
  const after = [feed('a'), feed('c')];
  assert.deepEqual(listEdit(before, after, false), { subscriptions: after, how: { mode: 'replace' } });
  assert.deepEqual(listAtStart(false), { mode: 'replace' });
});

test('on a shared PostgreSQL archive an edit sends only what it changed, and a start only adds', () => {
  const before = [feed('a'), feed('b', { title: 'B' }), feed('d')];
  const after = [feed('a'), feed('b', { title: 'B', enabled: false }), feed('c', { tags: ['x'] })];
  assert.deepEqual(listEdit(before, after, true), { subscriptions: [feed('b', { title: 'B', enabled: false }), feed('c', { tags: ['x'] })], how: { mode: 'change', removed: ['d'] } });
  assert.deepEqual(listEdit(after, after, true), { subscriptions: [], how: { mode: 'change', removed: [] } }, 'an edit that changed nothing sends nothing');
  assert.deepEqual(listAtStart(true), { mode: 'add' });
});
