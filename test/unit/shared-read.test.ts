import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sharedRead } from '../../src/storage/shared-read.js';

/** A read whose calls are counted and settled by hand, each resolving with the number of its call. */
function manualRead() {
  const pending: { resolve: (value: number) => void; reject: (error: Error) => void }[] = [];
  let began = 0;
  const read = () =>
    new Promise<number>((resolve, reject) => {
      began += 1;
      const number = began;
      pending.push({ resolve: () => resolve(number), reject });
    });
  return {
    read,
    began: () => began,
    settleNext(error?: Error) {
      const next = pending.shift()!;
      if (error) next.reject(error);
      else next.resolve(0);
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('sharedRead', () => {
  it('gives a caller alone a read of its own, begun at once', async () => {
    const source = manualRead();
    const shared = sharedRead(source.read);
    const first = shared();
    assert.equal(source.began(), 1);
    source.settleNext();
    assert.equal(await first, 1);
    const second = shared();
    assert.equal(source.began(), 2, 'a read that ended is not reused');
    source.settleNext();
    assert.equal(await second, 2);
  });

  it('answers the callers that come while a read runs with one read begun after it ends', async () => {
    const source = manualRead();
    const shared = sharedRead(source.read);
    const running = shared();
    const waiting = [shared(), shared(), shared()];
    await tick();
    assert.equal(source.began(), 1, 'nobody joins the running read, and the next waits for it to end');
    source.settleNext();
    assert.equal(await running, 1);
    await tick();
    assert.equal(source.began(), 2, 'one read for all who waited');
    const late = shared();
    source.settleNext();
    assert.deepEqual(await Promise.all(waiting), [2, 2, 2]);
    await tick();
    assert.equal(source.began(), 3, 'a caller that came while the shared read ran waits for the next');
    source.settleNext();
    assert.equal(await late, 3);
  });

  it('passes a failed read on to its callers only, and reads again for the next', async () => {
    const source = manualRead();
    const shared = sharedRead(source.read);
    const failing = shared();
    const waiting = shared();
    source.settleNext(new Error('connection lost'));
    await assert.rejects(failing, /connection lost/);
    await tick();
    source.settleNext();
    assert.equal(await waiting, 2);
  });

  it('never answers a caller with a read begun before it called, however calls and reads interleave', async () => {
    // The data's version moves now and then; each read reports the version it began at.
    let version = 0;
    const shared = sharedRead(async () => {
      const seen = version;
      await tick();
      return seen;
    });
    const checks: Promise<void>[] = [];
    for (let i = 0; i < 300; i++) {
      if (i % 7 === 0) version += 1;
      const asked = version;
      checks.push(shared().then((seen) => assert.ok(seen >= asked, `call ${i}: a read of version ${seen} for a call at ${asked}`)));
      if (i % 3 === 0) await tick();
    }
    await Promise.all(checks);
  });
});
