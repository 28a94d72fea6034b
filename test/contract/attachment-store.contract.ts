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

    it('keeps who uploaded an attachment apart from its record, through insert and restore', async () => {
      const adapter = adapterOf();
      await adapter.attachments.insert(makeAttachment('a1'), 'user:u1');
      await adapter.attachments.insert(makeAttachment('a2'));
      await adapter.attachments.restore({ ...makeAttachment('a3'), docIds: [], archivedDocIds: [] }, true, 'key:abc');
      const found = await adapter.attachments.uploaders(['a1', 'a2', 'a3', 'missing']);
      assert.deepEqual(
        found.sort((a, b) => a.id.localeCompare(b.id)),
        [
          { id: 'a1', uploadedBy: 'user:u1' },
          { id: 'a3', uploadedBy: 'key:abc' },
        ],
      );
      assert.deepEqual(await adapter.attachments.find(['a1']), [{ ...makeAttachment('a1'), docIds: [], archivedDocIds: [] }]);
      assert.deepEqual(await adapter.attachments.uploaders([]), []);
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

    it('answers the attachments whose usage a version changed, and only those', async () => {
      const adapter = adapterOf();
      await adapter.attachments.insert(makeAttachment('a1'));
      await adapter.attachments.insert(makeAttachment('a2'));
      const sorted = (ids: string[]) => [...ids].sort();
      assert.deepEqual(sorted(await adapter.attachments.setUsage('d1:en:draft', ['a1', 'a2', 'unknown'], false)), ['a1', 'a2']);
      assert.deepEqual(await adapter.attachments.setUsage('d1:en:draft', ['a2', 'a1'], false), [], 'the same usage again changes nothing');
      assert.deepEqual(await adapter.attachments.setUsage('d1:en:draft', ['a1'], false), ['a2'], 'let go');
      assert.deepEqual(await adapter.attachments.setUsage('d1:en:draft', ['a1'], true), ['a1'], 'now archived');
      assert.deepEqual(await adapter.attachments.setUsage('d1:en:draft', [], false), ['a1'], 'forgotten');
      assert.deepEqual(await adapter.attachments.setUsage('d1:en:draft', [], false), []);
    });

    it('keeps whether the files are to be readable apart from whether they were made so', async () => {
      const adapter = adapterOf();
      await adapter.attachments.insert(makeAttachment('a1'));
      await adapter.attachments.insert(makeAttachment('a2'));
      const state = (id: string, readable: boolean, filesReadable: boolean) => ({ id, readable, filesReadable });
      assert.deepEqual(await adapter.attachments.fileStates(['a1', 'missing']), [state('a1', true, true)], 'a new upload is readable');
      assert.deepEqual(await adapter.attachments.unsettledFiles(10), []);
      assert.deepEqual(await adapter.attachments.setReadable(['a1', 'a2', 'missing'], true), [], 'nothing changed');
      assert.deepEqual(await adapter.attachments.setReadable(['a1', 'missing'], false), ['a1']);
      assert.deepEqual(await adapter.attachments.unsettledFiles(10), [state('a1', false, true)]);
      await adapter.attachments.markFiles('a1', false);
      assert.deepEqual(await adapter.attachments.fileStates(['a1']), [state('a1', false, false)]);
      assert.deepEqual(await adapter.attachments.unsettledFiles(10), []);
      await adapter.transaction(async (tx) => {
        assert.deepEqual(await tx.attachments.setReadable(['a1'], true), ['a1']);
      });
      assert.deepEqual(await adapter.attachments.unsettledFiles(10), [state('a1', true, false)]);
      assert.deepEqual(await adapter.attachments.find(['a1']), [{ ...makeAttachment('a1'), docIds: [], archivedDocIds: [] }], 'the record shows none of it');
    });

    it('finds and removes the attachments no version has held since a time, never one a version holds', async () => {
      const adapter = adapterOf();
      const beforeInsert = Date.now() - 1;
      await adapter.attachments.insert(makeAttachment('fresh'));
      await adapter.attachments.insert(makeAttachment('held'));
      await adapter.attachments.insert(makeAttachment('released'));
      await adapter.attachments.setUsage('d1:en:previous', ['held'], false);
      await adapter.attachments.setUsage('d2:es:draft', ['released'], true);
      await adapter.attachments.setUsage('d3:en:draft', ['held'], true);
      const later = Date.now() + 1000;
      const ids = async (before: number) => (await adapter.attachments.findUnused(before, 10)).map((record) => record._id).sort();
      assert.deepEqual(await ids(beforeInsert), [], 'an upload is unused from its insert on');
      assert.deepEqual(await ids(later), ['fresh']);
      assert.equal(await adapter.attachments.removeUnused('fresh', beforeInsert), false, 'not unused for long enough');
      assert.equal(await adapter.attachments.removeUnused('held', later), false, 'held by a version');
      assert.equal(await adapter.attachments.removeUnused('released', later), false, 'held by an archived version');

      // The store counts in milliseconds: the uploads above must lie strictly before `released - 1`.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const released = Date.now();
      await adapter.attachments.setUsage('d2:es:draft', [], false);
      assert.deepEqual(await ids(later), ['fresh', 'released']);
      assert.deepEqual(await ids(released - 1), ['fresh'], 'unused since it was let go');
      assert.equal(await adapter.attachments.removeUnused('released', later), true);
      assert.equal(await adapter.attachments.removeUnused('released', later), false, 'once');
      assert.deepEqual(await adapter.attachments.find(['released', 'held']).then((found) => found.map((record) => record._id)), ['held']);

      // Held again, then let go again: the grace period starts over.
      await adapter.attachments.setUsage('d4:en:draft', ['fresh'], false);
      assert.deepEqual(await ids(later), []);
      const releasedAgain = Date.now();
      await adapter.attachments.setUsage('d4:en:draft', [], false);
      assert.deepEqual(await ids(releasedAgain - 1), []);
      assert.deepEqual(await ids(later), ['fresh']);
    });
  });
}
