import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { retryDelay } from '../../src/webhooks/retry-delay.js';
import { signatureOf } from '../../src/webhooks/signature.js';

const limits = { first: 1_000, max: 60_000 };

test('the pause doubles after each failure, up to the cap, jittered down by at most a quarter', () => {
  assert.deepEqual([1, 2, 3, 4].map((failures) => retryDelay(failures, limits, () => 1)), [1_000, 2_000, 4_000, 8_000]);
  assert.deepEqual([1, 2, 3].map((failures) => retryDelay(failures, limits, () => 0)), [750, 1_500, 3_000]);
  assert.equal(retryDelay(7, limits, () => 1), 60_000, 'capped');
  assert.equal(retryDelay(1_000, limits, () => 1), 60_000, 'no overflow after many failures');
  // However the jitter falls, a later pause below the cap is longer than an earlier one.
  for (let failures = 1; failures < 6; failures++) {
    assert.ok(retryDelay(failures + 1, limits, () => 0) > retryDelay(failures, limits, () => 1));
  }
});

test('the signature is the hex HMAC-SHA256 of "<timestamp>.<body>" under the secret', () => {
  const body = '{"id":"e1","event":"insert"}';
  const expected = createHmac('sha256', 'a-secret-of-24-characters').update(`1700000000.${body}`).digest('hex');
  assert.equal(signatureOf('a-secret-of-24-characters', 1700000000, body), `v1=${expected}`);
  assert.notEqual(signatureOf('a-secret-of-24-characters', 1700000001, body), `v1=${expected}`, 'the timestamp is signed');
});
