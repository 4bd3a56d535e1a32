import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffObjects } from '../../src/archive/diff.js';
import { normalizeArticle, objectHash } from '../../src/archive/normalize.js';
import type { ArticleState, StoredCapture } from '../../src/archive/store.js';
import { decideVersion } from '../../src/daemon/versioning.js';

const before = normalizeArticle({ title: 'T', byline: null, published: null, html: '<p>The mayor said no, on Tuesday, to the new harbour bridge plan.</p>' });
const after = normalizeArticle({ title: 'T', byline: null, published: null, html: '<p>The mayor said yes, on Tuesday, to the new harbour bridge plan.</p>' });
const article: ArticleState = { id: 1, url: 'https://a.example/1', canonicalUrl: null, revisitStep: 1, latestTextLength: 70, latestCapturedAt: '2026-11-02T12:00:00.000Z' };
const capture = (fetchedAt: string): StoredCapture => ({
  snapshotId: 9, itemId: 1, feedId: 1, url: 'https://a.example/1', finalUrl: 'https://a.example/1', fetchedAt, status: 200, headers: {}, contentType: 'text/html', sha256: null,
  item: { title: 'T', summary: null, published: null, updated: null, author: null },
});
const extracted = {
  article: { title: 'T', byline: null, published: null, modified: null, html: '<p>The mayor said yes.</p>', text: 'The mayor said yes, on Tuesday, to the new harbour bridge plan.', leadImage: null, language: 'en', method: 'sigfeed' as const, wrapper: null, reason: null, source: 's' },
  object: after, hash: objectHash(after), packed: new Uint8Array([1]), wrapperId: null, canonicalUrl: null,
};
const revisit = { enabled: true, after: [3600_000, 6 * 3600_000] };

test('an edit is a new version when its capture is newer than the latest version\'s', () => {
  const decision = decideVersion(article, capture('2026-11-02T13:00:00.000Z'), extracted, { kind: 'edited', diff: diffObjects(before, after) }, null, revisit);
  assert.equal(decision.kind, 'edit');
});

test('a capture older than the latest version (extracted late, after a newer one) is a check, never a version out of order', () => {
  const decision = decideVersion(article, capture('2026-11-02T11:00:00.000Z'), extracted, { kind: 'edited', diff: diffObjects(before, after) }, null, revisit);
  assert.equal(decision.kind, 'check');
  assert.ok(decision.kind === 'check' && decision.result === 'failed' && /captured before the latest version/.test(decision.reason ?? ''));
});
