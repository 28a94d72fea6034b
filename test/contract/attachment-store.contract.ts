import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AttachmentRecord, StorageAdapter } from '../../src/storage/storage-adapter.js';
import { assertConflict } from './contract-helpers.js';

export function makeAttachment(id: string, overrides: Partial<AttachmentRecord> = {}): AttachmentRecord {
  return {
    _id: id,
    type: 'attachment',
    group: 'images',
    extension: 'png',
    name: `${id}-name`,
    title: `${id} name`,
    length: 75,
    md5: 'd51273152a27aa1c9877dc592eaa89a7',
    width: 8,
    height: 8,
    landscape: false,
    portrait: true,
    crops: [],
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** What the media module and the document service rely on from the attachment store. */
export function describeAttachmentContract(adapterOf: () => StorageAdapter): void {
  describe('attachments', () => {
    it('returns a record as inserted, with empty usage', async () => {
      const adapter = adapterOf();
      const record = makeAttachment('a1');
      await adapter.attachments.insert(record);
      assert.deepEqual(await adapter.attachments.find(['a1', 'missing']), [{ ...record, docIds: [], archivedDocIds: [] }]);
      assert.deepEqual(await adapter.attachments.find([]), []);
    });

    it('refuses a taken id and replaces a record on update', async () => {
      const adapter = adapterOf();
      await adapter.attachments.insert(makeAttachment('a1'));
      await assertConflict(adapter.attachments.insert(makeAttachment('a1')), 'id');
      const cropped = makeAttachment('a1', { crops: [{ top: 1, left: 2, width: 3, height: 4 }], updatedAt: '2025-01-01T00:00:00.000Z' });
      assert.equal(await adapter.attachments.update(cropped), true);
      assert.equal(await adapter.attachments.update(makeAttachment('missing')), false);
      const [found] = await adapter.attachments.find(['a1']);
      assert.deepEqual(found!.crops, cropped.crops);
      assert.equal(found!.updatedAt, cropped.updatedAt);
    });

    it('tracks which versions hold an attachment, live or archived, replacing earlier usage', async () => {
      const adapter = adapterOf();
      await adapter.attachments.insert(makeAttachment('a1'));
      await adapter.attachments.insert(makeAttachment('a2'));
      await adapter.attachments.setUsage('d2:en:draft', ['a1', 'a2', 'a1'], false);
      await adapter.attachments.setUsage('d1:en:published', ['a1', 'unknown'], false);
      await adapter.attachments.setUsage('d3:en:draft', ['a1'], true);
      const usage = async (id: string) => {
        const [found] = await adapter.attachments.find([id]);
        return { docIds: found!.docIds, archivedDocIds: found!.archivedDocIds };
      };
      assert.deepEqual(await usage('a1'), { docIds: ['d1:en:published', 'd2:en:draft'], archivedDocIds: ['d3:en:draft'] });
      assert.deepEqual(await usage('a2'), { docIds: ['d2:en:draft'], archivedDocIds: [] });

      await adapter.attachments.setUsage('d2:en:draft', ['a2'], true);
      await adapter.attachments.setUsage('d3:en:draft', [], false);
      assert.deepEqual(await usage('a1'), { docIds: ['d1:en:published'], archivedDocIds: [] });
      assert.deepEqual(await usage('a2'), { docIds: [], archivedDocIds: ['d2:en:draft'] });
    });

    it('commits usage with the transaction or not at all', async () => {
      const adapter = adapterOf();
      await adapter.attachments.insert(makeAttachment('a1'));
      await assert.rejects(
        adapter.transaction(async (tx) => {
          await tx.attachments.setUsage('d1:en:draft', ['a1'], false);
          assert.deepEqual((await tx.attachments.find(['a1']))[0]!.docIds, ['d1:en:draft']);
          throw new Error('rolled back');
        }),
        /rolled back/,
      );
      assert.deepEqual((await adapter.attachments.find(['a1']))[0]!.docIds, []);
    });
  });
}
