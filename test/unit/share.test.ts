import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkRef } from '../../src/archive/store.js';
import { hostOwner, OwnHosts, ownHostsFirst } from '../../src/daemon/share.js';

const hosts = Array.from({ length: 600 }, (_, i) => `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}:8080`);

test('hosts are shared about evenly among daemons, and every daemon makes the same choice whatever order it lists them in', () => {
  const owners = ['d-a', 'd-b', 'd-c'];
  const counts = new Map<string, number>();
  for (const host of hosts) {
    const owner = hostOwner(host, owners);
    assert.equal(hostOwner(host, [...owners].reverse()), owner);
    counts.set(owner, (counts.get(owner) ?? 0) + 1);
  }
  for (const owner of owners) assert.ok(Math.abs(counts.get(owner)! - 200) < 40, `${owner}: ${counts.get(owner)} hosts of 600`);
});

test('when a daemon leaves, only its hosts move; the others stay with their daemons', () => {
  const before = new Map(hosts.map((host) => [host, hostOwner(host, ['d-a', 'd-b', 'd-c'])]));
  for (const host of hosts) {
    const after = hostOwner(host, ['d-a', 'd-c']);
    if (before.get(host) !== 'd-b') assert.equal(after, before.get(host), host);
  }
});

test('each daemon takes its own hosts\' units first, each group in the queue\'s order; alone, the queue is as it was', () => {
  const refs: WorkRef[] = hosts.slice(0, 40).map((host, i) => ({ kind: 'capture', id: i, url: `http://${host}/page/${i}`, dueAt: i }));
  const owners = ['d-a', 'd-b'];
  const ordered = ownHostsFirst(refs, owners, 'd-a');
  const own = (ref: WorkRef) => hostOwner(new URL(ref.url).host, owners) === 'd-a';
  const firstOther = ordered.findIndex((ref) => !own(ref));
  assert.ok(firstOther > 0 && ordered.slice(firstOther).every((ref) => !own(ref)), 'own hosts first, then the others');
  assert.deepEqual(ordered.map((ref) => ref.id).sort((a, b) => a - b), refs.map((ref) => ref.id), 'nothing dropped: the others\' units are still there to take');
  for (const group of [ordered.slice(0, firstOther), ordered.slice(firstOther)]) assert.deepEqual(group.map((ref) => ref.dueAt), [...group.map((ref) => ref.dueAt)].sort((a, b) => a - b));
  const theOther = ownHostsFirst(refs, owners, 'd-b');
  assert.deepEqual(theOther.slice(0, refs.length - firstOther).map((ref) => ref.id), ordered.slice(firstOther).map((ref) => ref.id), 'the other daemon starts where this one ends');
  assert.deepEqual(ownHostsFirst(refs, ['d-a'], 'd-a'), refs);
  assert.deepEqual(ownHostsFirst(refs, [], 'd-a'), refs);
});

test('which hosts are a daemon\'s is remembered between passes, and asked again when the live daemons change', () => {
  const refs: WorkRef[] = hosts.slice(0, 60).map((host, i) => ({ kind: 'poll', id: i, url: `http://${host}/feed/${i}`, dueAt: i }));
  const remembered = new OwnHosts();
  const three = ['d-a', 'd-b', 'd-c'];
  assert.deepEqual(ownHostsFirst(refs, three, 'd-a', remembered), ownHostsFirst(refs, three, 'd-a'));
  assert.deepEqual(ownHostsFirst(refs, three, 'd-a', remembered), ownHostsFirst(refs, three, 'd-a'), 'the same answers from memory');
  // d-b left: its hosts are shared by the two others, and the memory follows.
  const two = ['d-a', 'd-c'];
  const after = ownHostsFirst(refs, two, 'd-a', remembered);
  assert.deepEqual(after, ownHostsFirst(refs, two, 'd-a'));
  assert.notDeepEqual(after, ownHostsFirst(refs, three, 'd-a'), 'd-b\'s hosts moved');
  // Another daemon asking with the same memory gets its own answers.
  assert.deepEqual(ownHostsFirst(refs, two, 'd-c', remembered), ownHostsFirst(refs, two, 'd-c'));
});
