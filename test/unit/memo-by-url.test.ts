import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoByUrl } from '../../src/http/memo-by-url.js';

/** A memo of `value` that counts how often each URL was computed. */
function counted<T>(value: (url: string) => T, options?: Parameters<typeof memoByUrl>[1]) {
  const computed = new Map<string, number>();
  const memo = memoByUrl((url) => {
    computed.set(url, (computed.get(url) ?? 0) + 1);
    return value(url);
  }, options);
  return { memo, computed };
}

test('a URL asked again is answered from the memo, falsy answers included', () => {
  const { memo, computed } = counted((url) => (url.includes('?') ? url.length : null));
  for (let round = 0; round < 3; round++) {
    assert.equal(memo('/a?page=1'), 9);
    assert.equal(memo('/a'), null);
  }
  assert.deepEqual(Object.fromEntries(computed), { '/a?page=1': 1, '/a': 1 });
});

test('the memo holds at most its entries, and never a URL longer than its bound', () => {
  const { memo, computed } = counted((url) => url.length, { entries: 3, maxLength: 10 });
  for (const url of ['/a', '/b', '/c']) memo(url);
  memo('/a');
  assert.equal(computed.get('/a'), 1, 'held while the memo has room');
  memo('/d');
  memo('/a');
  assert.equal(computed.get('/a'), 2, 'a full memo starts over');
  const long = `/${'x'.repeat(10)}`;
  assert.equal(memo(long), 11);
  assert.equal(memo(long), 11);
  assert.equal(computed.get(long), 2, 'a URL over the bound is computed each time');
});

test('a URL whose value the memo is told not to remember is computed each time and never held', () => {
  const { memo, computed } = counted((url) => url.includes('apikey'), { remember: (mayHoldKey) => !mayHoldKey });
  for (let round = 0; round < 3; round++) {
    assert.equal(memo('/a?apikey=secret'), true);
    assert.equal(memo('/a?page=1'), false);
  }
  assert.deepEqual(Object.fromEntries(computed), { '/a?apikey=secret': 3, '/a?page=1': 1 });
});

test('remember is given the URL too: a URL naming a share key is never held, whatever its value', () => {
  const { memo, computed } = counted((url) => url.length, { remember: (_, url) => !url.includes('cmsShareKey') });
  for (let round = 0; round < 3; round++) {
    memo('/a?cmsShareId=x&cmsShareKey=secret');
    memo('/a?page=1');
  }
  assert.deepEqual(Object.fromEntries(computed), { '/a?cmsShareId=x&cmsShareKey=secret': 3, '/a?page=1': 1 });
});
