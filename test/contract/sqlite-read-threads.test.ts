import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSqliteAdapter } from '../../src/storage/sqlite/sqlite-adapter.js';
import type { DocumentQuery, StorageAdapter } from '../../src/storage/storage-adapter.js';
import { makeDoc, makeIndex } from './contract-helpers.js';
import { attachmentsGenerationKey } from '../../src/content/generation-keys.js';

// Searches and sorts on a stored property cost in proportion to what they select; with read
// threads they run on a worker thread's connection while the event loop goes on.

const documentCount = 3_000;
const list: DocumentQuery = { type: 'article', locale: 'en', mode: 'draft', archived: false };
const search = (word: string): DocumentQuery['search'] => ({ words: [word], match: 'any', prefix: false, phrases: [], without: [], texts: 'all' });
const sortOnProperty: DocumentQuery = { ...list, sort: [{ field: 'rank', direction: -1 }], skip: 100, limit: 10 };
const heavy: Record<string, DocumentQuery> = {
  'a sort on a stored property': sortOnProperty,
  'a full-text search': { ...list, search: search('harbor'), order: 'relevance', limit: 10 },
};
const light: DocumentQuery = { ...list, sort: [{ field: 'updatedAt', direction: -1 }], limit: 10 };

/** How often the event loop came round while `work` ran: 0 or 1 when `work` held it throughout. */
async function loopTurnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let done = false;
  const spin = () => {
    turns++;
    if (!done) setImmediate(spin);
  };
  setImmediate(spin);
  // Counted from the call: the first turn may come before work has started.
  const start = turns;
  await work();
  done = true;
  return turns - start;
}

describe('sqlite read threads', () => {
  let directory: string;
  let filename: string;
  let statementsOnLoop: string[];
  let threaded: StorageAdapter;
  let inline: StorageAdapter;

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'cms-read-threads-'));
    filename = join(directory, 'cms.sqlite');
    statementsOnLoop = [];
    threaded = createSqliteAdapter({ attachmentsGenerationKey, filename, readThreads: 2, onStatement: (sql) => statementsOnLoop.push(sql) });
    await threaded.migrate();
    await threaded.transaction(async (tx) => {
      for (let n = 0; n < documentCount; n++) {
        const doc = { ...makeDoc({ docId: `d${String(n).padStart(5, '0')}` }), rank: (n * 7919) % documentCount, body: 'harbor '.repeat(n % 40) };
        await tx.documents.insert(doc, makeIndex({}, { low: doc.body, publicLow: doc.body }));
      }
    });
    inline = createSqliteAdapter({ attachmentsGenerationKey, filename, readThreads: 0 });
  });

  after(async () => {
    await threaded?.close();
    await inline?.close();
    await rm(directory, { recursive: true, force: true });
  });

  for (const [name, query] of Object.entries(heavy)) {
    it(`runs ${name} on a thread, with the same answer and count`, async () => {
      const expected = await inline.documents.find(query);
      const expectedCount = await inline.documents.count(query);
      assert.equal(expected.length, 10, 'the query selects a page');
      statementsOnLoop.length = 0;
      assert.deepEqual(await threaded.documents.find(query), expected);
      assert.equal(await threaded.documents.count(query), expectedCount);
      assert.ok(!statementsOnLoop.some((sql) => sql.startsWith('SELECT documents.data')), statementsOnLoop.join('\n'));
    });
  }

  // Sorting 3,000 documents by a property of their JSON takes a few milliseconds, about what a
  // garbage collection or the test runner's own work may hold the loop for; eight of them at once
  // keep both threads busy long enough for the loop's turns to show.
  it('goes on turning the event loop while sorts on a stored property run', async () => {
    const eight = (adapter: StorageAdapter) => () => Promise.all(Array.from({ length: 8 }, () => adapter.documents.find(sortOnProperty)));
    const turns = await loopTurnsDuring(eight(threaded));
    assert.ok(turns > 1, `the event loop came round ${turns} times while the queries ran`);
    // The control: on the event loop, the same reads hold it from start to end.
    assert.ok((await loopTurnsDuring(eight(inline))) <= 1, 'inline, the loop waits');
  });

  it('keeps the reads an index bounds on the event loop: a thread would only add a round trip', async () => {
    statementsOnLoop.length = 0;
    const found = await threaded.documents.find(light);
    assert.deepEqual(found, await inline.documents.find(light));
    assert.ok(statementsOnLoop.some((sql) => sql.startsWith('SELECT documents.data')));
  });

  it('sees what was committed before the read, like the read connection', async () => {
    const query = sortOnProperty;
    await threaded.documents.insert({ ...makeDoc({ docId: 'top' }), rank: documentCount * 10 }, makeIndex());
    const [first] = await threaded.documents.find({ ...query, skip: 0, limit: 1 });
    assert.equal(first?._id, makeDoc({ docId: 'top' })._id);
  });
});
