import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import type { ArchiveEvent } from '../../src/archive/store.js';
import { composeNotification, signedDelivery } from '../../src/daemon/notifier.js';

const webhook = (extra: { events?: Array<'article' | 'version' | 'gap'>; feeds?: string[]; tags?: string[] } = {}) => ({ url: 'https://hooks.example/f', secret: 's'.repeat(16), events: extra.events ?? ['article', 'version', 'gap'], ...extra });
const version = (n: number, tags = ['news']): ArchiveEvent => ({
  kind: 'version', id: 7, articleId: 3, n, title: 'Bridge', url: 'https://a.example/bridge', feed: 'https://a.example/feed', feedTitle: 'A', tags,
  capturedAt: '2026-11-28T10:00:00.000Z', change: n > 1 ? ['body-edit'] : [], summary: n > 1 ? '1 paragraph edited' : 'first capture',
  diff: n > 1 ? { fields: [], media: { added: [], removed: [] }, kinds: ['body-edit'], editedShare: 0.1, summary: '1 paragraph edited', blocks: [
    { op: 'equal', count: 2 },
    { op: 'changed', before: { kind: 'p', text: 'The mayor said no.' }, after: { kind: 'p', text: 'The mayor said yes.' }, words: [{ op: 'equal', text: 'The mayor said ' }, { op: 'removed', text: 'no.' }, { op: 'added', text: 'yes.' }] },
  ] } as never : null,
});

test('an edit is told with its change kinds, its changed words and links to the diff and the capture; a first version is a new article', () => {
  const edit = JSON.parse(composeNotification(webhook(), version(2), 'https://archive.example')!.payload) as Record<string, never>;
  assert.equal(edit['event'], 'version');
  assert.deepEqual(edit['version'], { n: 2, capturedAt: '2026-11-28T10:00:00.000Z', change: ['body-edit'], summary: '1 paragraph edited', words: { removed: ['no.'], added: ['yes.'] } });
  assert.deepEqual(edit['links'], {
    article: 'https://archive.example/articles/3', version: 'https://archive.example/articles/3/versions/2', diff: 'https://archive.example/articles/3/diff?from=1&to=2',
    memento: 'https://archive.example/captures/20261128100000/https://a.example/bridge',
  });
  assert.equal(composeNotification(webhook(), version(1), 'https://archive.example')!.event, 'article');
});

test('a webhook is told only the events, feeds and tags it asked for', () => {
  assert.equal(composeNotification(webhook({ events: ['version'] }), version(1), 'x'), null);
  assert.ok(composeNotification(webhook({ events: ['version'] }), version(2), 'x'));
  assert.equal(composeNotification(webhook({ tags: ['sport'] }), version(2), 'x'), null);
  assert.ok(composeNotification(webhook({ tags: ['sport', 'news'] }), version(2), 'x'));
  assert.ok(composeNotification(webhook({ feeds: ['https://a.example/feed'] }), version(2, []), 'x'));
  assert.equal(composeNotification(webhook({ feeds: ['https://b.example/feed'] }), version(2, []), 'x'), null);
  const gap: ArchiveEvent = { kind: 'gap', id: 1, feed: 'https://a.example/feed', feedTitle: 'A', tags: [], gap: { since: 'a', until: 'b', recovered: 0, pages: 0, complete: false, missing: 5 } };
  assert.equal(composeNotification(webhook({ events: ['article'] }), gap, 'x'), null);
  assert.equal(JSON.parse(composeNotification(webhook(), gap, 'x')!.payload).gap.missing, 5);
});

test('a delivery is signed over its exact body, which holds its id and the time it was sent', () => {
  const { body, headers } = signedDelivery({ id: 42, event: 'version', payload: '{"event":"version","x":1}' }, 'the-secret-0123456789', new Date('2026-11-28T10:00:00Z'));
  assert.deepEqual(JSON.parse(body), { id: 'forest-42', sentAt: '2026-11-28T10:00:00.000Z', event: 'version', x: 1 });
  assert.equal(headers['x-forest-signature'], `sha256=${createHmac('sha256', 'the-secret-0123456789').update(body).digest('hex')}`);
  assert.equal(headers['x-forest-delivery'], 'forest-42');
});
