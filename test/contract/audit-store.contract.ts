import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuditRecord, StorageAdapter } from '../../src/storage/storage-adapter.js';

function makeRecord(id: string, overrides: Partial<AuditRecord> = {}): AuditRecord {
  return {
    id,
    at: '2030-01-01T00:00:00.000Z',
    actor: { kind: 'user', _id: 'u1', username: 'ada', title: 'Ada', role: 'admin' },
    address: '192.0.2.1',
    requestId: `req-${id}`,
    action: 'document.patch',
    type: 'article',
    ids: ['d1', 'd1:en:draft'],
    detail: { locale: 'en', mode: 'draft' },
    ...overrides,
  };
}

/** What the audit trail relies on: appended with its transaction, read newest first by filter, pruned oldest first. */
export function describeAuditContract(adapterOf: () => StorageAdapter): void {
  describe('audit records', () => {
    it('reads back what was appended, newest first, filtered and paged', async () => {
      const store = adapterOf().audit;
      await store.append([
        makeRecord('r1', { at: '2030-01-01T00:00:00.000Z' }),
        makeRecord('r2', { at: '2030-01-02T00:00:00.000Z', actor: { kind: 'apiKey', _id: null, username: null, title: 'System Task', role: 'editor' }, type: 'note' }),
        makeRecord('r3', { at: '2030-01-03T00:00:00.000Z', action: 'login', type: null, ids: ['u1'], detail: null }),
      ]);
      const ids = (records: AuditRecord[]) => records.map((record) => record.id);
      assert.deepEqual(await store.list({}, { offset: 0, limit: 10 }), [
        makeRecord('r3', { at: '2030-01-03T00:00:00.000Z', action: 'login', type: null, ids: ['u1'], detail: null }),
        makeRecord('r2', { at: '2030-01-02T00:00:00.000Z', actor: { kind: 'apiKey', _id: null, username: null, title: 'System Task', role: 'editor' }, type: 'note' }),
        makeRecord('r1', { at: '2030-01-01T00:00:00.000Z' }),
      ]);
      assert.deepEqual(ids(await store.list({}, { offset: 1, limit: 1 })), ['r2']);
      assert.deepEqual(ids(await store.list({ actor: 'ada' }, { offset: 0, limit: 10 })), ['r3', 'r1']);
      assert.deepEqual(ids(await store.list({ actor: 'u1' }, { offset: 0, limit: 10 })), ['r3', 'r1']);
      assert.deepEqual(ids(await store.list({ type: 'note' }, { offset: 0, limit: 10 })), ['r2']);
      assert.deepEqual(ids(await store.list({ action: 'login' }, { offset: 0, limit: 10 })), ['r3']);
      assert.deepEqual(ids(await store.list({ since: '2030-01-02T00:00:00.000Z', until: '2030-01-03T00:00:00.000Z' }, { offset: 0, limit: 10 })), ['r2']);
      assert.equal(await store.count({}), 3);
      assert.equal(await store.count({ actor: 'ada', type: 'article' }), 1);
      const after = await store.after(0, 2);
      assert.deepEqual(after.map((found) => found.record.id), ['r1', 'r2']);
      assert.deepEqual(ids((await store.after(after[1]!.seq, 10)).map((found) => found.record)), ['r3']);
    });

    it('appends with its transaction, or not at all', async () => {
      const adapter = adapterOf();
      await assert.rejects(
        adapter.transaction(async (tx) => {
          await tx.audit.append([makeRecord('gone')]);
          throw new Error('refused');
        }),
        /refused/,
      );
      assert.equal(await adapter.audit.count({}), 0);
    });

    it('prunes the oldest, by age and by count, a batch at a time', async () => {
      const store = adapterOf().audit;
      for (let day = 1; day <= 6; day++) await store.append([makeRecord(`d${day}`, { at: `2030-01-0${day}T00:00:00.000Z` })]);
      assert.equal(await store.prune({ before: '2030-01-03T00:00:00.000Z', keep: null, limit: 1 }), 1);
      assert.equal(await store.prune({ before: '2030-01-03T00:00:00.000Z', keep: null, limit: 10 }), 1);
      assert.equal(await store.prune({ before: null, keep: 2, limit: 10 }), 2);
      const left = await store.list({}, { offset: 0, limit: 10 });
      assert.deepEqual(left.map((record) => record.id), ['d6', 'd5']);
      assert.equal(await store.prune({ before: null, keep: 5, limit: 10 }), 0);
    });
  });
}
