import assert from 'node:assert/strict';
import { afterEach, beforeEach, it } from 'node:test';
import { createPostgresAdapter } from '../../src/storage/postgres/postgres-adapter.js';
import type { StorageAdapter, StorageSession } from '../../src/storage/storage-adapter.js';
import { uniqueSlug } from '../../src/content/documents/slugs.js';
import { describeOnPostgres, makePostgresAdapter, requirePostgresUrl } from '../helpers/postgres.js';
import { emptyIndex, makeDoc, settlesWithin, signal } from './contract-helpers.js';
import { attachmentsGenerationKey } from '../../src/content/generation-keys.js';

/** The `counter` of a version, read and written back counted up by one. */
async function countUpIn(tx: StorageSession, docId: string): Promise<void> {
  const [doc] = await tx.documents.find({ type: 'article', ids: [`${docId}:en:draft`] });
  await tx.documents.update({ ...doc!, counter: Number(doc!.counter) + 1 }, emptyIndex());
}

/** `countUpIn` as the services write: in a transaction that holds the document from its start. */
function countUp(store: StorageAdapter, docId: string): Promise<void> {
  return store.transaction({ lock: [docId] }, (tx) => countUpIn(tx, docId));
}

/** Inserts a draft with the first free slug of `base`, as the services pick it. */
async function insertWithSlug(tx: StorageSession, docId: string, base: string): Promise<string> {
  const slug = await uniqueSlug(tx.documents, { base, locale: 'en', modes: ['draft'], docId });
  await tx.documents.insert(makeDoc({ docId, slug }), emptyIndex());
  return slug;
}

describeOnPostgres('postgres writers side by side', () => {
  let adapter: StorageAdapter;
  let other: StorageAdapter;
  let schema: string;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ adapter, schema, cleanup } = await makePostgresAdapter());
    // Another server process on the same schema.
    other = createPostgresAdapter({ attachmentsGenerationKey, connectionString: requirePostgresUrl(), schema });
    await adapter.migrate();
    await other.migrate();
  });

  afterEach(async () => {
    await other.close();
    await adapter.close();
    await cleanup();
  });

  it('commits a write to another document while a transaction holds one, and makes a write to the held one wait', async () => {
    await adapter.documents.insert(makeDoc({ docId: 'held', counter: 0 }), emptyIndex());
    const holding = signal();
    const release = signal();
    const first = adapter.transaction({ lock: ['held'] }, async (tx) => {
      await countUpIn(tx, 'held');
      holding.fire();
      await release.promise;
    });
    await holding.promise;

    const elsewhere = other.transaction((tx) => tx.documents.insert(makeDoc({ docId: 'elsewhere' }), emptyIndex()));
    assert.equal(await settlesWithin(elsewhere, 5000), true, 'a write to another document commits meanwhile');
    assert.equal((await other.documents.find({ type: 'article', docIds: ['elsewhere'] })).length, 1);
    const sameProcess = adapter.transaction((tx) => tx.documents.insert(makeDoc({ docId: 'beside' }), emptyIndex()));
    assert.equal(await settlesWithin(sameProcess, 5000), true, 'in the same process too');

    const same = countUp(other, 'held');
    assert.equal(await settlesWithin(same, 300), false, 'a write to the held document waits');
    release.fire();
    await Promise.all([first, same]);
    const [held] = await other.documents.find({ type: 'article', docIds: ['held'] });
    assert.equal(held!.counter, 2, 'the waiting write read the first one\'s result');
  });

  it('loses no update when two processes count one document up hundreds of times at once', async () => {
    await adapter.documents.insert(makeDoc({ docId: 'counted', counter: 0 }), emptyIndex());
    const perProcess = 150;
    const runs = [adapter, other].flatMap((store) =>
      Array.from({ length: perProcess }, () => countUp(store, 'counted')),
    );
    await Promise.all(runs);
    const [counted] = await adapter.documents.find({ type: 'article', docIds: ['counted'] });
    assert.equal(counted!.counter, 2 * perProcess);
  });

  it('gives concurrent inserts of one title distinct slugs, taking turns on the slug base', async () => {
    let attempts = 0;
    const insertOne = (store: StorageAdapter, n: number) =>
      store.transaction(async (tx) => {
        attempts++;
        return insertWithSlug(tx, `doc${n}`, 'same-title');
      });
    const count = 40;
    const slugs = await Promise.all(Array.from({ length: count }, (_, n) => insertOne(n % 2 === 0 ? adapter : other, n)));
    assert.equal(new Set(slugs).size, count, 'every slug is distinct');
    assert.ok(slugs.includes('same-title') && slugs.includes(`same-title-${count}`), slugs.join(' '));
    assert.equal(attempts, count, 'none had to run again');
    assert.equal(await adapter.documents.count({ type: null }), count);
  });

  it('runs again a work whose slug another writer took meanwhile, which then picks the next one', async () => {
    await adapter.documents.insert(makeDoc({ docId: 'first', slug: 'taken' }), emptyIndex());
    const holding = signal();
    const release = signal();
    // Takes "taken-2" as a slug of its own, not as the next one of "taken": no turn on that base.
    const first = adapter.transaction(async (tx) => {
      await tx.documents.insert(makeDoc({ docId: 'explicit', slug: 'taken-2' }), emptyIndex());
      holding.fire();
      await release.promise;
    });
    await holding.promise;
    let attempts = 0;
    const picked = other.transaction(async (tx) => {
      attempts++;
      if (attempts === 1) setTimeout(release.fire, 200);
      return insertWithSlug(tx, 'next', 'taken');
    });
    await first;
    assert.equal(await picked, 'taken-3');
    assert.equal(attempts, 2, 'the insert that picked taken-2 ran again');
  });

  it('runs a work again after a deadlock, and both transactions commit', async () => {
    for (const docId of ['a', 'b']) await adapter.documents.insert(makeDoc({ docId, counter: 0 }), emptyIndex());
    let attempts = 0;
    const bothHoldOne = { a: signal(), b: signal() };
    // Each holds and writes one document, then writes the other's without holding it: the
    // rows' own locks make them wait for each other.
    const crosswise = (store: StorageAdapter, first: 'a' | 'b', second: 'a' | 'b') =>
      store.transaction({ lock: [first] }, async (tx) => {
        attempts++;
        await countUpIn(tx, first);
        bothHoldOne[first].fire();
        await bothHoldOne[second].promise;
        const [next] = await tx.documents.find({ type: 'article', ids: [`${second}:en:draft`] });
        await tx.documents.update({ ...next!, title: `after ${first}` }, emptyIndex());
      });
    await Promise.all([crosswise(adapter, 'a', 'b'), crosswise(other, 'b', 'a')]);
    assert.equal(attempts, 3, 'the deadlock victim ran once more');
    const docs = await adapter.documents.find({ type: 'article', docIds: ['a', 'b'], sort: [{ field: '_id', direction: 1 }] });
    // Each count-up committed once: the victim's first attempt rolled back, its second committed.
    assert.deepEqual(docs.map((doc) => doc.counter), [1, 1]);
    // The victim's retry may read the other's document before the survivor's unheld write to it
    // commits and then write it back (that write broke the hold rule on purpose): only the
    // victim's own write of the other document is sure to stand.
    assert.ok(docs[0]!.title === 'after b' || docs[1]!.title === 'after a', JSON.stringify(docs.map((doc) => doc.title)));
  });

  it('moves the generation when a write commits, not before, and another process sees it at once', async () => {
    const scopes = ['article'];
    const before = await other.generation(scopes);
    const written = signal();
    const release = signal();
    const open = adapter.transaction(async (tx) => {
      await tx.documents.insert(makeDoc({ docId: 'g' }), emptyIndex());
      written.fire();
      await release.promise;
    });
    await written.promise;
    assert.equal(await other.generation(scopes), before, 'an uncommitted write leaves it');
    release.fire();
    await open;
    const after = await other.generation(scopes);
    assert.notEqual(after, before, 'the commit moves it');

    // Each commit is seen by the other process at once.
    let last = after;
    for (let n = 0; n < 10; n++) {
      const [writer, reader] = n % 2 === 0 ? [adapter, other] : [other, adapter];
      await writer.documents.insert(makeDoc({ docId: `s${n}` }), emptyIndex());
      const now = await reader.generation(scopes);
      assert.ok(BigInt(now) > BigInt(last), `write ${n}: ${last} → ${now}`);
      last = now;
    }
    // Writers side by side: every row written counts.
    await Promise.all(
      Array.from({ length: 20 }, (_, n) => (n % 2 === 0 ? adapter : other).documents.insert(makeDoc({ docId: `w${n}` }), emptyIndex())),
    );
    const final = await other.generation(scopes);
    assert.equal(BigInt(final), BigInt(last) + 20n, `${last} → ${final}: one step per row written`);
  });

  it('never runs out of connections when transactions read through the adapter itself', async () => {
    // Two connections: one transaction at a time, and one connection always left for reads.
    const small = createPostgresAdapter({ attachmentsGenerationKey, connectionString: requirePostgresUrl(), schema, poolSize: 2 });
    try {
      const runs = Array.from({ length: 12 }, (_, n) =>
        small.transaction(async (tx) => {
          await tx.documents.insert(makeDoc({ docId: `p${n}` }), emptyIndex());
          // A read outside the transaction, on another connection of the pool.
          return small.documents.count({ type: null });
        }),
      );
      assert.equal(await settlesWithin(Promise.all(runs), 8000), true, 'every transaction ends');
      assert.equal(await small.documents.count({ type: null }), 12);
    } finally {
      await small.close();
    }
  });
});

