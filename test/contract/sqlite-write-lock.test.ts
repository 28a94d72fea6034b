import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteAdapter } from '../../src/storage/sqlite/sqlite-adapter.js';
import { emptyIndex, makeDoc } from './contract-helpers.js';
import { attachmentsGenerationKey } from '../../src/content/generation-keys.js';

// Two adapters on one file stand for two worker processes (CMS_WORKERS): each has its own connections.
test('a write waiting for the write lock another adapter holds leaves the event loop free, then runs', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'cms-sqlite-lock-'));
  const filename = join(directory, 'cms.sqlite');
  const holder = createSqliteAdapter({ attachmentsGenerationKey, filename });
  const waiter = createSqliteAdapter({ attachmentsGenerationKey, filename });
  try {
    await holder.migrate();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const first = holder.transaction(async (tx) => {
      await tx.documents.insert(makeDoc({ docId: 'first' }), emptyIndex());
      holding();
      await released;
    });
    await held;
    const second = waiter.transaction((tx) => tx.documents.insert(makeDoc({ docId: 'second' }), emptyIndex()));
    // While the second write waits, timers still fire: SQLite's own busy wait would stop this
    // process, and the holder could never commit (the second would fail after 5 s).
    const started = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(Date.now() - started < 1000, 'the event loop ran while the write waited');
    release();
    await first;
    await second;
    const stored = await waiter.documents.find({ type: null });
    assert.deepEqual(stored.map((doc) => doc.cmsDocId).sort(), ['first', 'second']);
  } finally {
    await holder.close();
    await waiter.close();
    await rm(directory, { recursive: true, force: true });
  }
});
