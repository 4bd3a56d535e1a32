import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HOST_TROUBLE_OPTIONS, HostTrouble } from '../../src/daemon/host-trouble.js';

test('a host that does not answer makes its other pages wait, doubling per failed round, capped, honouring Retry-After; an answer clears it', () => {
  const trouble = new HostTrouble(1000);
  const page = (n: number) => `http://news.example/articles/${n}`;
  assert.equal(trouble.waitUntil(page(1), 0), null, 'a host never seen may be tried');
  assert.equal(trouble.failed(page(1), 0, null), 1000);
  assert.equal(trouble.waitUntil(page(2), 500), 1000, 'another page of the host waits');
  assert.equal(trouble.waitUntil('http://other.example/a', 500), null, 'another host does not');
  // Requests already under way when the host was found down fail too: the same round, no doubling.
  assert.equal(trouble.failed(page(3), 200, null), 1200);
  // After the wait ran out, a failure doubles it.
  assert.equal(trouble.failed(page(2), 1500, null), 1500 + 2000);
  let at = 4000;
  for (let round = 0; round < 10; round += 1) at = trouble.failed(page(1), at, null);
  const longest = 1000 * 2 ** HOST_TROUBLE_OPTIONS.maxDoublings;
  assert.equal(trouble.failed(page(1), at, null) - at, longest, 'the wait stops doubling');
  assert.equal(trouble.failed(page(1), at + longest, 3_600_000), at + longest + 3_600_000, 'Retry-After, when longer, is the wait');
  trouble.answered(page(4));
  assert.equal(trouble.waitUntil(page(1), at), null, 'an answer from the host clears it');
});
