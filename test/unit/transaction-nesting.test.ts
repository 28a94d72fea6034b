import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { transactionNesting, type TransactionState } from '../../src/storage/transaction-queue.js';

const nested = /Nested transaction/;

/** Runs `work` as a transaction's work would: its state active until it ends. */
async function runAs<T>(nesting: ReturnType<typeof transactionNesting>, work: () => Promise<T>): Promise<T> {
  const state: TransactionState = { active: true };
  try {
    return await nesting.run(state, work);
  } finally {
    state.active = false;
  }
}

test('refuses a transaction begun inside another, across awaits, and again after the tracking was let go', async () => {
  const nesting = transactionNesting();
  for (let round = 0; round < 2; round++) {
    await runAs(nesting, async () => {
      await nextTurn();
      assert.throws(() => nesting.refuseNested(), nested, `round ${round}`);
    });
    // No transaction runs: the tracking is off, and nothing is refused.
    nesting.refuseNested();
  }
});

test('keeps tracking while any transaction runs: the one still running refuses after the other ended', async () => {
  const nesting = transactionNesting();
  let endFirst!: () => void;
  const first = runAs(nesting, () => new Promise<void>((resolve) => (endFirst = resolve)));
  const second = runAs(nesting, async () => {
    endFirst();
    await first;
    await nextTurn();
    assert.throws(() => nesting.refuseNested(), nested);
  });
  await Promise.all([first, second]);
});

test('lets a continuation of an ended transaction begin one, whether or not another runs', async () => {
  const nesting = transactionNesting();
  let continuation!: Promise<void>;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  await runAs(nesting, async () => {
    // Work left behind by the transaction (a wake-up, a notification), run after it ended.
    continuation = gate.then(() => nesting.refuseNested());
  });
  await runAs(nesting, async () => {
    release();
    await continuation;
  });
});
