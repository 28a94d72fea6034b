import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clientOf } from '../../src/http/connections-per-address.js';

test('a client is counted by its IPv4 address, or by its IPv6 /64 however the address is written', () => {
  assert.equal(clientOf('203.0.113.7'), '203.0.113.7');
  assert.equal(clientOf('::ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(clientOf('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(clientOf('2001:0DB8:0001:0002:ffff:1:2:3'), '2001:db8:1:2::/64');
  assert.equal(clientOf('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(clientOf('2001:db8:0:0:1::'), '2001:db8:0:0::/64');
  assert.equal(clientOf('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(clientOf('::1'), '0:0:0:0::/64');
  assert.equal(clientOf('64:ff9b::198.51.100.1'), '64:ff9b:0:0::/64');
  assert.equal(clientOf('a::b:c:d:e:1.2.3.4'), 'a:0:b:c::/64');
});
