import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StorageAdapter } from '../../src/storage/storage-adapter.js';

const minute = 60_000;
// A time in the future of today, so that real clocks play no part.
const t0 = Date.UTC(2030, 0, 1);

/** What the login throttle relies on: failures counted per key, atomically, with a lock at the limit. */
export function describeLoginThrottleContract(adapterOf: () => StorageAdapter): void {
  describe('login throttle', () => {
    const fail = (key: string, now: number, limit = 3) =>
      adapterOf().loginThrottle.recordFailures([{ key, limit, periodMs: minute }], now);

    it('locks a key for one period from the failure that reaches its limit, and no other key', async () => {
      const store = adapterOf().loginThrottle;
      await fail('a', t0);
      await fail('a', t0 + 1000);
      await fail('b', t0 + 1000);
      assert.equal(await store.lockedUntil(['a', 'b'], t0 + 1000), null);
      await fail('a', t0 + 2000);
      assert.equal(await store.lockedUntil(['a'], t0 + 2000), t0 + 2000 + minute);
      assert.equal(await store.lockedUntil(['b', 'a', 'c'], t0 + 2000), t0 + 2000 + minute, 'any locked key counts');
      assert.equal(await store.lockedUntil(['b', 'c'], t0 + 2000), null);
      assert.equal(await store.lockedUntil(['a'], t0 + 2000 + minute), null, 'the lock ends');
    });

    it('starts counting again once a period without reaching the limit is over', async () => {
      const store = adapterOf().loginThrottle;
      await fail('a', t0);
      await fail('a', t0 + 1000);
      await fail('a', t0 + minute + 1);
      await fail('a', t0 + minute + 2);
      assert.equal(await store.lockedUntil(['a'], t0 + minute + 2), null);
      await fail('a', t0 + minute + 3);
      assert.equal(await store.lockedUntil(['a'], t0 + minute + 3), t0 + 2 * minute + 3);
    });

    it('keeps each key to its own limit when one call counts several', async () => {
      const store = adapterOf().loginThrottle;
      const both = (now: number) =>
        store.recordFailures([{ key: 'user', limit: 2, periodMs: minute }, { key: 'address', limit: 3, periodMs: 2 * minute }], now);
      await both(t0);
      await both(t0 + 1);
      assert.equal(await store.lockedUntil(['user'], t0 + 1), t0 + 1 + minute);
      assert.equal(await store.lockedUntil(['address'], t0 + 1), null);
      await both(t0 + 2);
      assert.equal(await store.lockedUntil(['address'], t0 + 2), t0 + 2 + 2 * minute);
    });

    it('counts every one of many failures made at once', async () => {
      const store = adapterOf().loginThrottle;
      await Promise.all(Array.from({ length: 10 }, (_, i) => fail('many', t0 + i, 11)));
      assert.equal(await store.lockedUntil(['many'], t0 + 10), null, 'ten failures are below eleven');
      await fail('many', t0 + 10, 11);
      assert.equal(await store.lockedUntil(['many'], t0 + 10), t0 + 10 + minute);
    });

    it('forgets the failures of a cleared key only', async () => {
      const store = adapterOf().loginThrottle;
      for (let i = 0; i < 3; i++) {
        await fail('a', t0 + i);
        await fail('b', t0 + i);
      }
      await store.clear('a');
      await store.clear('nothing');
      assert.equal(await store.lockedUntil(['a'], t0 + 3), null);
      assert.equal(await store.lockedUntil(['b'], t0 + 3), t0 + 2 + minute);
      await fail('a', t0 + 4);
      await fail('a', t0 + 5);
      assert.equal(await store.lockedUntil(['a'], t0 + 5), null, 'counting starts again from nothing');
    });

    it('answers for keys of any length and characters, and for no key', async () => {
      const store = adapterOf().loginThrottle;
      const odd = `${'x'.repeat(5000)}'"; DROP TABLE login_throttle; --é`;
      await fail(odd, t0, 1);
      assert.equal(await store.lockedUntil([odd], t0), t0 + minute);
      assert.equal(await store.lockedUntil([], t0), null);
    });
  });
}
