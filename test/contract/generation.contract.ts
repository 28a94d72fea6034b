import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attachmentsGenerationKey } from '../../src/content/generation-keys.js';
import { eachAdapterPair, emptyIndex, makeDoc, type MakeAdapterPair } from './contract-helpers.js';
import { makeAttachment } from './attachment-store.contract.js';

const both = ['article', attachmentsGenerationKey];

/** `StorageAdapter.generation`: what the response cache trusts to know that nothing was written. */
export function describeGenerationContract(
  name: string,
  makePair: MakeAdapterPair,
  options: { readonly stableWhenIdle?: false | string } = {},
): void {
  describe(`storage generation: ${name}`, () => {
    const pair = eachAdapterPair(makePair);

    it('stays the same while nothing is written, reads included', { skip: options.stableWhenIdle ?? false }, async () => {
      const before = await pair.adapter.generation(both);
      await pair.adapter.documents.find({ type: null });
      await pair.adapter.documents.count({ type: 'article' });
      await pair.adapter.attachments.find(['a1']);
      await pair.other.documents.find({ type: null });
      assert.equal(await pair.adapter.generation(both), before);
    });

    it('moves with every committed write to its scopes, top-level or in a transaction, and never comes back', async () => {
      const seen = new Set([await pair.adapter.generation(both)]);
      const expectNew = async (what: string) => {
        const now = await pair.adapter.generation(both);
        assert.ok(!seen.has(now), `${what} moves the generation`);
        seen.add(now);
      };
      await pair.adapter.documents.insert(makeDoc({ docId: 'a' }), emptyIndex());
      await expectNew('an insert');
      await pair.adapter.transaction(async (tx) => {
        await tx.documents.update({ ...makeDoc({ docId: 'a' }), title: 'changed' }, emptyIndex());
      });
      await expectNew('a transaction');
      await pair.adapter.documents.remove('article', [makeDoc({ docId: 'a' })._id]);
      await expectNew('a removal');
      await pair.adapter.attachments.insert(makeAttachment('a1'));
      await expectNew('an attachment');
      await pair.adapter.attachments.update({ ...makeAttachment('a1'), title: 'renamed' });
      await expectNew('an attachment update');
      await pair.adapter.documents.insert(makeDoc({ docId: 'b' }), emptyIndex());
      const beforeUsage = await pair.adapter.generation([attachmentsGenerationKey]);
      await pair.adapter.attachments.setUsage(makeDoc({ docId: 'b' })._id, ['a1'], false);
      assert.notEqual(await pair.adapter.generation([attachmentsGenerationKey]), beforeUsage, 'which versions use an attachment moves it');
    });

    it('stays where only other keys were written', async () => {
      const article = await pair.adapter.generation(['article']);
      const attachments = await pair.adapter.generation([attachmentsGenerationKey]);
      const author = await pair.adapter.generation(['author']);
      await pair.adapter.documents.insert({ ...makeDoc({ docId: 'x' }), type: 'author' }, emptyIndex());
      await pair.adapter.tokens.put({ token: 't', userId: 'u', expiresAt: new Date(Date.now() + 60_000).toISOString() });
      await pair.adapter.attachments.insert(makeAttachment('a2'));
      assert.equal(await pair.adapter.generation(['article']), article, 'an author, a token and an attachment leave the articles');
      assert.notEqual(await pair.adapter.generation(['author']), author);
      assert.notEqual(await pair.adapter.generation([attachmentsGenerationKey]), attachments);
      const attachmentsThen = await pair.adapter.generation([attachmentsGenerationKey]);
      await pair.adapter.documents.insert(makeDoc({ docId: 'y' }), emptyIndex());
      assert.equal(await pair.adapter.generation([attachmentsGenerationKey]), attachmentsThen, 'an article without attachments leaves them');
      assert.notEqual(await pair.adapter.generation(['article']), article);
    });

    it('counts up a type and the mode of the version written: a draft leaves the published versions, a move both modes', async () => {
      const keys = ['article', 'article:draft', 'article:published', 'author:'];
      const read = async () => (await pair.adapter.generation(keys)).split(' ');
      const [type, draft, published, author] = await read();
      await pair.adapter.documents.insert(makeDoc({ docId: 'm' }), emptyIndex());
      let now = await read();
      assert.notEqual(now[0], type);
      assert.notEqual(now[1], draft);
      assert.equal(now[2], published, 'a draft leaves the published versions');
      await pair.adapter.transaction(async (tx) => {
        await tx.documents.update({ ...makeDoc({ docId: 'm' }), title: 'again' }, emptyIndex());
      });
      const afterUpdate = await read();
      assert.notEqual(afterUpdate[1], now[1]);
      assert.equal(afterUpdate[2], published, 'nor does a draft saved again');
      await pair.adapter.documents.insert(makeDoc({ docId: 'm', mode: 'published' }), emptyIndex({ locale: 'en', mode: 'published' }));
      now = await read();
      assert.notEqual(now[2], published, 'a published version moves the published key');
      assert.equal(now[1], afterUpdate[1], 'and leaves the drafts');
      await pair.adapter.documents.remove('article', [makeDoc({ docId: 'm', mode: 'published' })._id]);
      const afterRemove = await read();
      assert.notEqual(afterRemove[2], now[2], 'a removal moves its mode');
      await pair.adapter.documents.insert(makeDoc({ docId: 'n' }), emptyIndex());
      const beforeMove = await read();
      await pair.adapter.documents.update(makeDoc({ docId: 'n' }), emptyIndex({ locale: 'en', mode: 'published' }));
      const afterMove = await read();
      assert.ok(afterMove[1] !== beforeMove[1] && afterMove[2] !== beforeMove[2], 'a version moved to another mode moves both');
      await pair.adapter.documents.insert({ ...makeDoc({ docId: 'u', locale: null, mode: null }), type: 'author' }, emptyIndex({ locale: null, mode: null }));
      assert.notEqual((await read())[3], author, 'a version of a type without modes moves `<type>:`');
    });

    it('counts each document version apart: a write to one leaves the others, a removed one is 0, and no value comes back', async () => {
      const a = makeDoc({ docId: 'va' });
      const b = makeDoc({ docId: 'vb' });
      const published = makeDoc({ docId: 'va', mode: 'published' });
      const versions = [a._id, b._id, published._id];
      const read = async (since?: string) => pair.adapter.generations({ keys: ['article:published'], versions }, since === undefined ? {} : { since });
      const tokens = async () => (await read()).token!.split('/')[1]!.split(' ');
      assert.deepEqual(await tokens(), ['0', '0', '0'], 'a version never written is at 0');
      await pair.adapter.documents.insert(a, emptyIndex());
      await pair.adapter.documents.insert(b, emptyIndex());
      const [a1, b1, p1] = await tokens();
      assert.ok(a1 !== '0' && b1 !== '0' && a1 !== b1 && p1 === '0');
      const seen = new Set([a1]);
      await pair.adapter.transaction(async (tx) => tx.documents.update({ ...a, title: 'changed' }, emptyIndex()));
      const [a2, b2] = await tokens();
      assert.ok(!seen.has(a2!), 'a write to a version moves it');
      seen.add(a2!);
      assert.equal(b2, b1, 'and leaves another version of its type');
      await pair.adapter.documents.insert(published, emptyIndex({ locale: 'en', mode: 'published' }));
      const [a3, , p3] = await tokens();
      assert.equal(a3, a2, 'a version of another mode leaves the draft');
      await pair.adapter.documents.remove('article', [published._id]);
      assert.equal((await tokens())[2], '0', 'a removed version is at 0');
      await pair.adapter.documents.insert(published, emptyIndex({ locale: 'en', mode: 'published' }));
      const p5 = (await tokens())[2]!;
      assert.ok(p5 !== '0' && p5 !== p3, 'made again, it never comes back to a value it had');
      await pair.other.documents.update({ ...a, title: 'from the other process' }, emptyIndex());
      assert.ok(!seen.has((await tokens())[0]!), "another process's write is seen");
    });

    it('says where the store is: unmoved, the generations need no reading; any write moves it', async () => {
      const sources = { keys: ['article:published'], versions: [makeDoc({ docId: 'pa' })._id] };
      const first = await pair.adapter.generations(sources);
      assert.ok(first.token !== null);
      await pair.other.documents.insert({ ...makeDoc({ docId: 'px' }), type: 'author' }, emptyIndex());
      const moved = await pair.adapter.generations(sources, { since: first.position });
      assert.notEqual(moved.position, first.position, 'a write to anything moves the position');
      assert.equal(moved.token, first.token, 'and leaves the generations of what it did not write');
      const last = await pair.adapter.generations(sources, { positionLast: true });
      assert.equal(last.token, first.token);
      const unmoved = await pair.adapter.generations(sources, { since: last.position });
      assert.ok(unmoved.token === null || unmoved.token === first.token, 'unmoved: nothing to read, or the same');
      assert.equal(unmoved.position, last.position);
    });

    it('moves with a write committed by another process on the same store, both ways', async () => {
      const mine = await pair.adapter.generation(both);
      const theirs = await pair.other.generation(both);
      await pair.other.documents.insert(makeDoc({ docId: 'b' }), emptyIndex());
      assert.notEqual(await pair.adapter.generation(both), mine, "the other process's write is seen");
      const afterTheirs = await pair.other.generation(both);
      assert.notEqual(afterTheirs, theirs, 'the writer sees its own write');
      await pair.adapter.documents.insert(makeDoc({ docId: 'c' }), emptyIndex());
      assert.notEqual(await pair.other.generation(both), afterTheirs);
      const attachments = await pair.other.generation([attachmentsGenerationKey]);
      await pair.adapter.attachments.insert(makeAttachment('a3'));
      assert.notEqual(await pair.other.generation([attachmentsGenerationKey]), attachments, "the other process's attachment is seen");
    });

    it("sees another process's commit at once while its own reads of the generation keep running", async () => {
      // Reads kept in flight all along: a call made after a commit must not be answered by one
      // of them that began before it.
      let reading = true;
      const background = (async () => {
        while (reading) {
          await Promise.all(Array.from({ length: 4 }, () => pair.adapter.generation(both)));
          // A turn of the event loop each time: an adapter that answers without I/O (SQLite) would
          // otherwise never let the writes run.
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      try {
        let last = await pair.adapter.generation(both);
        for (let round = 0; round < 20; round++) {
          await pair.other.documents.insert(makeDoc({ docId: `busy-${round}` }), emptyIndex());
          const now = await pair.adapter.generation(both);
          assert.notEqual(now, last, `round ${round}: the commit is seen by the next call`);
          last = now;
        }
      } finally {
        reading = false;
        await background;
      }
    });
  });
}
