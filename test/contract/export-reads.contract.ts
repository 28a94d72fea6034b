import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StorageAdapter, StoredAttachment, UserLogin } from '../../src/storage/storage-adapter.js';
import { assertConflict, emptyIndex, idsOf, makeDoc, placeOf } from './contract-helpers.js';
import { makeAttachment } from './attachment-store.contract.js';

function login(userId: string): UserLogin {
  return { userId, username: `${userId}-name`, email: null, passwordHash: `hash-of-${userId}` };
}

function stored(id: string, docIds: string[] = [], archivedDocIds: string[] = []): StoredAttachment {
  return { ...makeAttachment(id), docIds, archivedDocIds };
}

/** What `cms export` and `cms import` rely on: every row in a fixed order, and an attachment restored as exported. */
export function describeExportContract(adapterOf: () => StorageAdapter): void {
  describe('export and import', () => {
    it('pages through the versions of every type in bytewise id order', async () => {
      const adapter = adapterOf();
      const docs = [
        makeDoc({ docId: 'b', type: 'page' }),
        makeDoc({ docId: 'a', mode: 'published' }),
        makeDoc({ docId: 'a' }),
        makeDoc({ docId: 'a-b', type: 'page' }),
        makeDoc({ docId: 'n', locale: null, mode: null, type: '@apostrophecms/user' }),
      ];
      for (const doc of docs) await adapter.documents.insert(doc, emptyIndex(placeOf(doc)));
      const first = await adapter.documents.versionsAfter(null, null, 3);
      // '-' sorts before ':' and letters bytewise, whatever the database's collation says.
      assert.deepEqual(idsOf(first), ['a-b:en:draft', 'a:en:draft', 'a:en:published']);
      const rest = await adapter.documents.versionsAfter(null, first.at(-1)!._id, 3);
      assert.deepEqual(idsOf(rest), ['b:en:draft', 'n']);
      assert.deepEqual(rest[1], docs[4]);
      assert.deepEqual(await adapter.documents.versionsAfter(null, 'n', 3), []);
      assert.deepEqual(idsOf(await adapter.documents.versionsAfter('page', null, 3)), ['a-b:en:draft', 'b:en:draft']);
    });

    it('pages through the logins in user id order, hashes included', async () => {
      const adapter = adapterOf();
      for (const id of ['u3', 'u1', 'u2']) await adapter.logins.put(login(id));
      assert.deepEqual(await adapter.logins.loginsAfter(null, 2), [login('u1'), login('u2')]);
      assert.deepEqual(await adapter.logins.loginsAfter('u2', 2), [login('u3')]);
      assert.deepEqual(await adapter.logins.loginsAfter('u3', 2), []);
    });

    it('pages through the attachments in id order, with their usage', async () => {
      const adapter = adapterOf();
      for (const id of ['c', 'a', 'b']) await adapter.attachments.insert(makeAttachment(id));
      await adapter.attachments.setUsage('d2:en:draft', ['b'], false);
      await adapter.attachments.setUsage('d1:en:draft', ['b'], true);
      const first = await adapter.attachments.attachmentsAfter(null, 2);
      assert.deepEqual(first, [stored('a'), stored('b', ['d2:en:draft'], ['d1:en:draft'])]);
      assert.deepEqual(await adapter.attachments.attachmentsAfter('b', 2), [stored('c')]);
      assert.deepEqual(await adapter.attachments.attachmentsAfter('c', 2), []);
    });

    it('restores an attachment with its usage and readability, its files taken as placed', async () => {
      const adapter = adapterOf();
      await adapter.attachments.restore(stored('a', ['d1:en:draft', 'd2:en:draft'], ['d3:en:draft']), true);
      await adapter.attachments.restore(stored('b', [], ['d3:en:draft']), false);
      await adapter.attachments.restore(stored('c'), true);
      assert.deepEqual(await adapter.attachments.attachmentsAfter(null, 10), [
        stored('a', ['d1:en:draft', 'd2:en:draft'], ['d3:en:draft']),
        stored('b', [], ['d3:en:draft']),
        stored('c'),
      ]);
      const states = await adapter.attachments.fileStates(['a', 'b', 'c']);
      assert.deepEqual(
        states.sort((x, y) => x.id.localeCompare(y.id)),
        [
          { id: 'a', readable: true, filesReadable: true },
          { id: 'b', readable: false, filesReadable: false },
          { id: 'c', readable: true, filesReadable: true },
        ],
      );
      assert.deepEqual(await adapter.attachments.unsettledFiles(10), []);
      // Only the attachment nothing holds waits to be reclaimed.
      assert.deepEqual((await adapter.attachments.findUnused(Date.now() + 1000, 10)).map((found) => found._id), ['c']);
      // A usage change afterwards follows the restored rows.
      assert.deepEqual((await adapter.attachments.setUsage('d3:en:draft', [], false)).sort(), ['a', 'b']);
    });

    it('refuses to restore a taken id, and a rolled back restore leaves nothing', async () => {
      const adapter = adapterOf();
      await adapter.attachments.restore(stored('a'), true);
      await assertConflict(adapter.attachments.restore(stored('a', ['d1:en:draft']), true), 'id');
      assert.deepEqual(await adapter.attachments.find(['a']), [stored('a')]);
      await assert.rejects(
        adapter.transaction(async (tx) => {
          await tx.attachments.restore(stored('b', ['d1:en:draft']), false);
          throw new Error('rolled back');
        }),
        /rolled back/,
      );
      assert.deepEqual(await adapter.attachments.attachmentsAfter(null, 10), [stored('a')]);
    });
  });
}
