import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BoundedPool } from '../../src/core/bounded-pool.js';
import { ScryptPasswordHasher, hashPassword } from '../../src/auth/passwords.js';
import { RetryLaterError } from '../../src/errors/app-error.js';

function busy(error: unknown): boolean {
  return error instanceof RetryLaterError && error.code === 'unavailable' && error.retryAfter >= 1;
}

/** A task that ends when the test says so. */
function gate(): { task: () => Promise<void>; open: () => void; started: () => boolean } {
  let open!: () => void;
  let started = false;
  const done = new Promise<void>((resolve) => (open = resolve));
  return {
    task: () => {
      started = true;
      return done;
    },
    open: () => open(),
    started: () => started,
  };
}

describe('bounded pool', () => {
  it('runs at most `concurrency` tasks, queues up to `queueLimit` in order, refuses the rest', async () => {
    const pool = new BoundedPool({ concurrency: 2, queueLimit: 3, retryAfterSeconds: 1 });
    const gates = Array.from({ length: 5 }, gate);
    const finished: number[] = [];
    const runs = gates.map((g, i) => pool.run(g.task).then(() => finished.push(i)));
    await assert.rejects(pool.run(async () => 'too many'), busy);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(pool.running, 2);
    assert.deepEqual(gates.map((g) => g.started()), [true, true, false, false, false]);
    gates[1]!.open();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(gates.map((g) => g.started()), [true, true, true, false, false], 'the first queued task takes the free place');
    assert.equal(pool.running, 2);
    for (const g of gates) g.open();
    await Promise.all(runs);
    assert.equal(pool.running, 0);
    assert.deepEqual(finished.sort(), [0, 1, 2, 3, 4]);
  });

  it('frees the place of a task that fails', async () => {
    const pool = new BoundedPool({ concurrency: 1, queueLimit: 0, retryAfterSeconds: 1 });
    await assert.rejects(pool.run(async () => {
      throw new Error('boom');
    }), /boom/);
    assert.equal(pool.running, 0);
    assert.equal(await pool.run(async () => 'ok'), 'ok');
  });
});

describe('bounded pool: named refusals and work that may not be refused', () => {
  it('says what is busy, and queues work that may not be refused past the limit', async () => {
    const refusal = { message: 'Too many images at once.', data: { limit: 'imageProcessingQueue' } };
    const pool = new BoundedPool({ concurrency: 1, queueLimit: 0, retryAfterSeconds: 2, refusal });
    const running = gate();
    const first = pool.run(running.task);
    const error = await pool.run(async () => 'refused').catch((caught: unknown) => caught);
    assert.ok(error instanceof RetryLaterError);
    assert.deepEqual([error.code, error.message, error.data], ['unavailable', 'Too many images at once.', { limit: 'imageProcessingQueue', retryAfter: 2 }]);
    const waiting = gate();
    const second = pool.run(waiting.task, { refusable: false });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(waiting.started(), false, 'it waits for the place');
    running.open();
    waiting.open();
    await Promise.all([first, second]);
    assert.equal(waiting.started(), true);
    assert.equal(pool.running, 0);
  });
});

describe('scrypt password hasher', () => {
  const hasher = new ScryptPasswordHasher({ concurrency: 2, queueLimit: 8 });

  it("hashes with OWASP's parameters (N=2^17, r=8, p=1) and a fresh salt each time", async () => {
    const stored = await hasher.hash('correct horse');
    assert.match(stored, /^scrypt\$131072\$8\$1\$[^$]+\$[^$]+$/);
    assert.notEqual(stored, await hasher.hash('correct horse'));
    assert.deepEqual(await hasher.verify('correct horse', stored), { valid: true, outdated: false });
    assert.deepEqual(await hasher.verify('Correct horse', stored), { valid: false, outdated: false });
  });

  it('verifies a hash of older parameters and says it is outdated', async () => {
    const old = await hashPassword('correct horse', { N: 16384, r: 8, p: 1 });
    assert.deepEqual(await hasher.verify('correct horse', old), { valid: true, outdated: true });
    assert.deepEqual(await hasher.verify('wrong horse', old), { valid: false, outdated: false });
  });

  it('refuses no hash, an empty one and garbage', async () => {
    for (const encoded of [null, '', 'garbage', 'scrypt$3$8$1$AAAAAAAAAAA=$AAAAAAAAAAAAAAAAAAAAAA==']) {
      assert.deepEqual(await hasher.verify('anything at all', encoded), { valid: false, outdated: false });
    }
  });

  it('spends a full verification on a missing hash: it holds a place of the pool like a real one', async () => {
    const single = new ScryptPasswordHasher({ concurrency: 1, queueLimit: 0 });
    const pending = single.verify('anything at all', null);
    await assert.rejects(single.hash('another one'), busy);
    assert.deepEqual(await pending, { valid: false, outdated: false });
  });
});
