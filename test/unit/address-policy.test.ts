import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AddressPolicy, isAddressOrRange } from '../../src/net/address-policy.js';

const publicOnly = AddressPolicy.from(false);

test('by default every address that is not public unicast is refused, named for what it is', () => {
  const refused: Array<[string, RegExp]> = [
    ['10.0.0.5', /^10\.0\.0\.5 is a private address$/],
    ['172.16.3.4', /private/],
    ['192.168.1.1', /private/],
    ['127.0.0.1', /loopback/],
    ['169.254.169.254', /link-local/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['224.0.0.1', /multicast/],
    ['0.0.0.0', /unspecified/],
    ['255.255.255.255', /broadcast/],
    ['240.0.0.1', /reserved/],
    ['192.0.2.10', /reserved/],
    ['::1', /loopback/],
    ['::', /unspecified/],
    ['fe80::1', /link-local/],
    ['fd12:3456::1', /unique-local/],
    ['ff02::1', /multicast/],
    ['2001:db8::1', /reserved/],
  ];
  for (const [ip, reason] of refused) assert.match(publicOnly.refusal(ip) ?? 'allowed', reason, ip);
  for (const ip of ['8.8.8.8', '93.184.215.14', '2606:4700::1111', '2a00:1450:4001::200e']) assert.equal(publicOnly.refusal(ip), null, ip);
});

test('IPv6 forms that carry an IPv4 address are judged by that address', () => {
  // IPv4-mapped, NAT64 well-known prefix, 6to4: private inside → refused; public inside → allowed.
  assert.match(publicOnly.refusal('::ffff:10.0.0.1') ?? '', /private address \(as 10\.0\.0\.1 inside an IPv6 address\)/);
  assert.match(publicOnly.refusal('::ffff:127.0.0.1') ?? '', /loopback/);
  assert.match(publicOnly.refusal('64:ff9b::a9fe:a9fe') ?? '', /link-local.*169\.254\.169\.254/);
  assert.match(publicOnly.refusal('2002:c0a8:0101::1') ?? '', /private.*192\.168\.1\.1/);
  assert.equal(publicOnly.refusal('::ffff:8.8.8.8'), null);
  assert.equal(publicOnly.refusal('64:ff9b::808:808'), null);
  assert.equal(publicOnly.refusal('2002:808:808::1'), null);
  // Local-use NAT64 (RFC 8215) is some private network's translator: refused.
  assert.notEqual(publicOnly.refusal('64:ff9b:1::a00:1'), null);
});

test('IPv4-compatible IPv6 (::/96) and IPv6 outside the global unicast space 2000::/3 are refused', () => {
  // ipaddr.js calls these unicast; the IANA registries do not (RFC 4291 §2.5.5.1, RFC 6890).
  assert.match(publicOnly.refusal('::7f00:1') ?? 'allowed', /IPv4-compatible/);
  assert.match(publicOnly.refusal('::a9fe:a9fe') ?? 'allowed', /IPv4-compatible/);
  assert.match(publicOnly.refusal('::808:808') ?? 'allowed', /IPv4-compatible/);
  assert.match(publicOnly.refusal('::1:0:0:1') ?? 'allowed', /outside the global unicast space/);
  assert.match(publicOnly.refusal('4000::1') ?? 'allowed', /outside the global unicast space/);
  assert.match(publicOnly.refusal('e000::1') ?? 'allowed', /outside the global unicast space/);
  assert.equal(publicOnly.refusal('2a00:1450:4001::200e'), null);
});

test('an allow list admits exactly its addresses and ranges, IPv4-mapped forms included', () => {
  const policy = AddressPolicy.from(['127.0.0.1/32', '10.20.0.0/16', 'fd00::5']);
  assert.equal(policy.refusal('127.0.0.1'), null);
  assert.equal(policy.refusal('::ffff:127.0.0.1'), null);
  assert.match(policy.refusal('127.0.0.2') ?? '', /loopback/);
  assert.equal(policy.refusal('10.20.99.1'), null);
  assert.match(policy.refusal('10.21.0.1') ?? '', /private/);
  assert.equal(policy.refusal('fd00::5'), null);
  assert.match(policy.refusal('fd00::6') ?? '', /unique-local/);
  assert.equal(policy.refusal('8.8.8.8'), null, 'public addresses stay allowed');
});

test('true allows everything; text that is not an address is refused', () => {
  assert.equal(AddressPolicy.from(true).refusal('10.0.0.5'), null);
  assert.match(publicOnly.refusal('localhost') ?? '', /not an IP address/);
});

test('settings values are checked as addresses or CIDR ranges', () => {
  for (const good of ['127.0.0.1', '127.0.0.0/8', '::1', 'fd00::/8']) assert.ok(isAddressOrRange(good), good);
  for (const bad of ['127.0.0.0/33', 'localhost', '10.0.0.0/8/8', '']) assert.ok(!isAddressOrRange(bad), bad);
});
