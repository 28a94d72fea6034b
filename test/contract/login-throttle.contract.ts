import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StorageAdapter, ThrottleKey } from '../../src/storage/storage-adapter.js';

const minute = 60_000;
// A time in the future of today, so that real clocks play no part.
const t0 = Date.UTC(2030, 0, 1);

/** What the login throttle relies on: attempts counted per key before they are checked, atomically, with a lock at the limit. */
export function describeLoginThrottleContract(adapterOf: () => StorageAdapter): void {
  describe('login throttle', () => {
    const keyed = (key: string, limit = 3, periodMs = minute): ThrottleKey => ({ key, limit, periodMs });
    const take = (key: string, now: number, limit = 3) => adapterOf().loginThrottle.take([keyed(key, limit)], now);

    it('takes attempts up to the limit, then refuses for one period from the one that reached it; other keys go on', async () => {
      const store = adapterOf().loginThrottle;
      assert.equal(await take('a', t0), null);
      assert.equal(await take('a', t0 + 1000), null);
      assert.equal(await take('b', t0 + 1000), null);
      assert.equal(await store.lockedUntil(['a', 'b'], t0 + 1000), null);
      assert.equal(await take('a', t0 + 2000), null, 'the attempt reaching the limit is taken');
      assert.equal(await store.lockedUntil(['b', 'a', 'c'], t0 + 2000), t0 + 2000 + minute, 'and locks the key');
      assert.equal(await take('a', t0 + 3000), t0 + 2000 + minute, 'the next one is refused with the end of the lock');
      assert.equal(await take('a', t0 + 4000), t0 + 2000 + minute, 'a refused attempt does not lengthen the lock');
      assert.equal(await take('b', t0 + 4000), null);
      assert.equal(await take('a', t0 + 2000 + minute), null, 'the lock ends');
      assert.equal(await take('a', t0 + 2001 + minute), null, 'counting starts again at one');
    });

    it('starts counting again once a period without reaching the limit is over', async () => {
      await take('a', t0);
      await take('a', t0 + 1000);
      assert.equal(await take('a', t0 + minute + 1), null);
      assert.equal(await take('a', t0 + minute + 2), null);
      assert.equal(await adapterOf().loginThrottle.lockedUntil(['a'], t0 + minute + 2), null);
      assert.equal(await take('a', t0 + minute + 3), null);
      assert.equal(await take('a', t0 + minute + 4), t0 + 2 * minute + 3);
    });

    it('keeps each key to its own limit when one call counts several, and counts none of them when one refuses', async () => {
      const store = adapterOf().loginThrottle;
      const both = (now: number) => store.take([keyed('user', 2), keyed('address', 4, 2 * minute)], now);
      assert.equal(await both(t0), null);
      assert.equal(await both(t0 + 1), null);
      assert.equal(await both(t0 + 2), t0 + 1 + minute, 'the user is locked');
      assert.equal(await both(t0 + 3), t0 + 1 + minute);
      // Two attempts reached the address; the refused ones counted against it neither.
      assert.equal(await store.take([keyed('address', 4, 2 * minute)], t0 + 4), null);
      assert.equal(await store.take([keyed('address', 4, 2 * minute)], t0 + 5), null);
      assert.equal(await store.take([keyed('address', 4, 2 * minute)], t0 + 6), t0 + 5 + 2 * minute);
      assert.equal(await store.take([keyed('other', 9), keyed('address', 4, 2 * minute)], t0 + 7), t0 + 5 + 2 * minute);
      assert.equal(await store.lockedUntil(['other'], t0 + 7), null);
      for (let i = 0; i < 9; i++) assert.equal(await take('other', t0 + 8 + i, 9), null, 'the refused call counted nothing against "other"');
      assert.equal(await take('other', t0 + 17, 9), t0 + 16 + minute);
    });

    it('takes exactly the limit of many attempts made at once, and refuses the others', async () => {
      const answers = await Promise.all(Array.from({ length: 24 }, () => take('many', t0)));
      assert.equal(answers.filter((answer) => answer === null).length, 3, JSON.stringify(answers));
      for (const answer of answers) if (answer !== null) assert.equal(answer, t0 + minute);
      const addresses = await Promise.all(Array.from({ length: 24 }, (_, i) => adapterOf().loginThrottle.take([keyed(`user-${i % 2}`), keyed('one-address', 5)], t0)));
      assert.equal(addresses.filter((answer) => answer === null).length, 5, 'the shared key lets five through');
    });

    it('gives back one attempt, unlocking a key below its limit again', async () => {
      const store = adapterOf().loginThrottle;
      for (let i = 0; i < 3; i++) await take('a', t0 + i);
      await store.giveBack(keyed('a'), t0 + 3);
      assert.equal(await store.lockedUntil(['a'], t0 + 3), null);
      assert.equal(await take('a', t0 + 4), null, 'one more is taken');
      assert.equal(await take('a', t0 + 5), t0 + 4 + minute, 'and locks again');
      await store.giveBack(keyed('nothing'), t0 + 5);
      assert.equal(await store.lockedUntil(['nothing'], t0 + 5), null);
    });

    it('forgets the attempts of a cleared key only', async () => {
      const store = adapterOf().loginThrottle;
      for (let i = 0; i < 3; i++) {
        await take('a', t0 + i);
        await take('b', t0 + i);
      }
      await store.clear('a');
      await store.clear('nothing');
      assert.equal(await store.lockedUntil(['a'], t0 + 3), null);
      assert.equal(await store.lockedUntil(['b'], t0 + 3), t0 + 2 + minute);
      await take('a', t0 + 4);
      await take('a', t0 + 5);
      assert.equal(await store.lockedUntil(['a'], t0 + 5), null, 'counting starts again from nothing');
    });

    it('answers for keys of any length and characters, and for no key', async () => {
      const store = adapterOf().loginThrottle;
      const odd = `${'x'.repeat(5000)}'"; DROP TABLE login_throttle; --é`;
      assert.equal(await take(odd, t0, 1), null);
      assert.equal(await store.lockedUntil([odd], t0), t0 + minute);
      assert.equal(await take(odd, t0, 1), t0 + minute);
      assert.equal(await store.lockedUntil([], t0), null);
      assert.equal(await store.take([], t0), null);
    });
  });
}
