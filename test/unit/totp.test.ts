import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base32Decode, base32Encode, hotp, matchTotp, otpauthUrl, totpStep } from '../../src/auth/totp.js';

const sha1Key = Buffer.from('12345678901234567890');

test('HOTP: the test values of RFC 4226, appendix D', () => {
  const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
  assert.deepEqual(expected.map((_, counter) => hotp(sha1Key, counter)), expected);
});

test('TOTP: the test vectors of RFC 6238, appendix B (8 digits, SHA-1, SHA-256, SHA-512)', () => {
  const keys = {
    sha1: sha1Key,
    sha256: Buffer.from('12345678901234567890123456789012'),
    sha512: Buffer.from('1234567890123456789012345678901234567890123456789012345678901234'),
  };
  const vectors: Array<[number, string, string, string]> = [
    [59, '94287082', '46119246', '90693936'],
    [1111111109, '07081804', '68084774', '25091201'],
    [1111111111, '14050471', '67062674', '99943326'],
    [1234567890, '89005924', '91819424', '93441116'],
    [2000000000, '69279037', '90698825', '38618901'],
    [20000000000, '65353130', '77737706', '47863826'],
  ];
  for (const [seconds, sha1, sha256, sha512] of vectors) {
    const step = totpStep(seconds * 1000);
    assert.equal(hotp(keys.sha1, step, 8, 'sha1'), sha1, `SHA-1 at ${seconds}`);
    assert.equal(hotp(keys.sha256, step, 8, 'sha256'), sha256, `SHA-256 at ${seconds}`);
    assert.equal(hotp(keys.sha512, step, 8, 'sha512'), sha512, `SHA-512 at ${seconds}`);
  }
});

test('base32 round trip; spaces, case and padding forgiven; other characters refused', () => {
  assert.equal(base32Encode(Buffer.from('foobar')), 'MZXW6YTBOI');
  assert.equal(base32Decode('mzxw 6ytb oi======')?.toString(), 'foobar');
  assert.equal(base32Decode('MZXW1'), null);
  const secret = base32Encode(sha1Key);
  assert.deepEqual(base32Decode(secret), sha1Key);
});

test('matchTotp: the window of one step either way, no replay of a used step, only six digits', () => {
  const secret = base32Encode(sha1Key);
  const now = 1111111111 * 1000;
  const step = totpStep(now);
  assert.equal(matchTotp(secret, hotp(sha1Key, step), now), step);
  assert.equal(matchTotp(secret, hotp(sha1Key, step - 1), now), step - 1);
  assert.equal(matchTotp(secret, hotp(sha1Key, step + 1), now), step + 1);
  assert.equal(matchTotp(secret, hotp(sha1Key, step - 2), now), null);
  assert.equal(matchTotp(secret, hotp(sha1Key, step + 2), now), null);
  assert.equal(matchTotp(secret, hotp(sha1Key, step), now, step), null, 'a step already used');
  assert.equal(matchTotp(secret, '12345', now), null);
  assert.equal(matchTotp(secret, '1234567', now), null);
  assert.equal(matchTotp('not base32!', '123456', now), null);
});

test('otpauth URL: Key Uri Format with issuer, secret and parameters', () => {
  const url = new URL(otpauthUrl({ issuer: 'My CMS', account: 'ada@example.com', secret: 'MZXW6YTBOI' }));
  assert.equal(url.protocol, 'otpauth:');
  assert.equal(url.host, 'totp');
  assert.equal(decodeURIComponent(url.pathname), '/My CMS:ada@example.com');
  assert.equal(url.searchParams.get('secret'), 'MZXW6YTBOI');
  assert.equal(url.searchParams.get('issuer'), 'My CMS');
  assert.equal(url.searchParams.get('digits'), '6');
  assert.equal(url.searchParams.get('period'), '30');
});
