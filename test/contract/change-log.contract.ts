import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChangeEntry, StorageAdapter } from '../../src/storage/storage-adapter.js';

function entry(id: string, at = '2030-01-01T00:00:00.000Z'): ChangeEntry {
  return { action: 'update', type: 'article', id: `${id}:en:draft`, docId: id, locale: 'en', mode: 'draft', visibility: 'public', archived: false, updatedAt: at, updatedBy: { _id: null, title: 'Ann', username: null }, at };
}

/** The change log: appended in transactions, read after a seq in commit order, pruned by age. */
export function describeChangeLogContract(adapterOf: () => StorageAdapter): void {
  describe('change log', () => {
    it('gives entries growing seqs, reads them after a seq, keeps nothing a rolled back transaction appended', async () => {
      const adapter = adapterOf();
      assert.deepEqual(await adapter.changes.bounds(), { oldest: null, latest: 0 });
      await adapter.transaction((tx) => tx.changes.append([entry('a'), entry('b')]));
      await adapter.transaction(async (tx) => {
        await tx.changes.append([entry('lost')]);
        throw new Error('rolled back');
      }).catch(() => undefined);
      await adapter.transaction((tx) => tx.changes.append([entry('c')]));
      const all = await adapter.changes.after(0, 10);
      assert.deepEqual(all.map((change) => change.docId), ['a', 'b', 'c']);
      const [a, b, c] = all;
      assert.ok(a!.seq < b!.seq && b!.seq < c!.seq);
      assert.deepEqual({ ...a!, seq: 0 }, { ...entry('a'), seq: 0 });
      assert.deepEqual((await adapter.changes.after(a!.seq, 1)).map((change) => change.docId), ['b']);
      assert.deepEqual(await adapter.changes.bounds(), { oldest: a!.seq, latest: c!.seq });
    });

    it('never lets a reader that read up to a seq meet a smaller one later: seq follows commit order', async () => {
      const adapter = adapterOf();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let appended!: () => void;
      const inFirst = new Promise<void>((resolve) => (appended = resolve));
      const first = adapter.transaction(async (tx) => {
        await tx.changes.append([entry('first')]);
        appended();
        await gate;
      });
      await inFirst;
      // On PostgreSQL the second commits while the first is open; SQLite's writers take turns.
      const second = adapter.transaction((tx) => tx.changes.append([entry('second')]));
      await Promise.race([second, new Promise((resolve) => setTimeout(resolve, 200))]);
      const early = await adapter.changes.after(0, 10);
      release();
      await Promise.all([first, second]);
      const last = early.length === 0 ? 0 : early[early.length - 1]!.seq;
      const later = await adapter.changes.after(last, 10);
      assert.deepEqual([...early, ...later].map((change) => change.docId).sort(), ['first', 'second'], 'each read once, none missed');
    });

    it('prunes by age, oldest first, and still says the last seq it gave', async () => {
      const adapter = adapterOf();
      await adapter.transaction((tx) => tx.changes.append([entry('old', '2030-01-01T00:00:00.000Z'), entry('new', '2030-01-03T00:00:00.000Z')]));
      const [, newer] = await adapter.changes.after(0, 10);
      assert.equal(await adapter.changes.prunedThrough(), 0);
      assert.equal(await adapter.transaction((tx) => tx.changes.prune('2030-01-02T00:00:00.000Z', 10)), 1);
      assert.equal(await adapter.changes.prunedThrough(), newer!.seq - 1, 'the greatest seq removed');
      assert.deepEqual(await adapter.changes.bounds(), { oldest: newer!.seq, latest: newer!.seq });
      assert.equal(await adapter.transaction((tx) => tx.changes.prune('2031-01-01T00:00:00.000Z', 10)), 1);
      assert.deepEqual(await adapter.changes.bounds(), { oldest: null, latest: newer!.seq });
      assert.equal(await adapter.changes.prunedThrough(), newer!.seq);
    });

    it("keeps a version's visibility before the change, and one signing key for every reader of the store", async () => {
      const adapter = adapterOf();
      const start = (await adapter.changes.bounds()).latest;
      await adapter.transaction((tx) => tx.changes.append([{ ...entry('hidden'), visibility: 'loginRequired', visibilityBefore: 'public' }]));
      const [hidden] = await adapter.changes.after(start, 10);
      assert.deepEqual([hidden!.visibility, hidden!.visibilityBefore], ['loginRequired', 'public']);
      const key = await adapter.changes.signingKey();
      assert.match(key, /^[0-9a-f]{64}$/);
      assert.equal(await adapter.transaction((tx) => tx.changes.signingKey()), key);
    });
  });
}
