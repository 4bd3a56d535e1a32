import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffObjects } from '../../src/archive/diff.js';
import { normalizeArticle } from '../../src/archive/normalize.js';
import { unchangedBlocks } from '../../src/archive/views.js';

const object = (paragraphs: string[]) => normalizeArticle({ title: 'T', byline: null, published: null, html: paragraphs.map((text) => `<p>${text}</p>`).join('') });

test('the unchanged runs of a diff are the later version\'s blocks, in order, around edits, additions and removals', () => {
  const before = object(['Alpha opens the story.', 'Beta was said.', 'Gamma follows it.', 'Delta was cut.', 'Epsilon ends it.', 'Zeta closes.']);
  const after = object(['Alpha opens the story.', 'Beta was denied.', 'Gamma follows it.', 'Epsilon ends it.', 'A new paragraph here.', 'Zeta closes.']);
  const diff = diffObjects(before, after);
  const runs = unchangedBlocks(diff, after);
  assert.ok(runs);
  const equal = diff.blocks.map((change, i) => (change.op === 'equal' ? runs[i]!.map((block) => block.text) : null)).filter((run) => run !== null);
  assert.deepEqual(equal.flat(), ['Alpha opens the story.', 'Gamma follows it.', 'Epsilon ends it.', 'Zeta closes.']);
  for (const [i, change] of diff.blocks.entries()) if (change.op === 'equal') assert.equal(runs[i]!.length, change.count);
});

test('a diff that does not add up to the later object (a stored diff of a rebased key) gives no context rather than the wrong one', () => {
  const before = object(['One.', 'Two.']);
  const after = object(['One.', 'Two, edited.']);
  assert.equal(unchangedBlocks(diffObjects(before, after), object(['One.', 'Two, edited.', 'Three.'])), null);
});
