import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ConflictError } from '../../src/errors/app-error.js';
import { migrations } from '../../src/storage/postgres/migrations.js';
import { createPostgresAdapter } from '../../src/storage/postgres/postgres-adapter.js';
import { createSqliteAdapter } from '../../src/storage/sqlite/sqlite-adapter.js';
import type { DocumentQuery, StorageAdapter, TextSearch } from '../../src/storage/storage-adapter.js';
import { compileHeldValuesQuery } from '../../src/storage/postgres/postgres-query.js';
import {
  adminQuery,
  describeOnPostgres,
  dropSchema,
  makePostgresAdapter,
  requirePostgresUrl,
  skipWithoutPostgres,
  uniqueSchemaName,
} from '../helpers/postgres.js';
import { docIdsOf, emptyIndex, idsOf, makeDoc, makeIndex, placeOf } from './contract-helpers.js';
import { runStorageContract } from './storage-adapter.contract.js';
import { describeGenerationContract } from './generation.contract.js';
import { describeTransactionHoldsContract } from './transaction-holds.contract.js';
import { attachmentsGenerationKey } from '../../src/content/generation-keys.js';
import { makeAttachment } from './attachment-store.contract.js';

// Every test of the contract gets an adapter on a schema of its own, dropped afterwards.
if (skipWithoutPostgres) describeOnPostgres('storage contract: postgres', () => undefined);
else runStorageContract('postgres', makePostgresAdapter);
if (!skipWithoutPostgres) {
  // Two adapters on one schema, as two processes have them.
  const makePostgresPair = async () => {
    const { adapter, schema, cleanup } = await makePostgresAdapter();
    return { adapter, other: createPostgresAdapter({ attachmentsGenerationKey, connectionString: requirePostgresUrl(), schema }), cleanup };
  };
  describeGenerationContract('postgres', makePostgresPair);
  describeTransactionHoldsContract('postgres', makePostgresPair);
}

// These need no database server.
describe('postgres adapter without a server', () => {
  it('answers ping with false when the server cannot be reached, and closes', async () => {
    const unreachable = createPostgresAdapter({ attachmentsGenerationKey, connectionString: 'postgres://cms@127.0.0.1:1/cms' });
    assert.equal(await unreachable.ping(), false);
    await unreachable.close();
    await unreachable.close();
  });

  it('refuses a schema name that is not a plain identifier, and a pool too small for a transaction and a read', () => {
    const connectionString = 'postgres://cms@127.0.0.1:1/cms';
    assert.throws(() => createPostgresAdapter({ attachmentsGenerationKey, connectionString, schema: 'cms; DROP TABLE x' }), /Invalid schema name/);
    assert.throws(() => createPostgresAdapter({ attachmentsGenerationKey, connectionString, schema: 'Public' }), /Invalid schema name/);
    assert.throws(() => createPostgresAdapter({ attachmentsGenerationKey, connectionString, poolSize: 1 }), /Invalid pool size/);
  });
});

const search = (words: string[], options: Partial<TextSearch> = {}): TextSearch => ({
  words, match: 'any', prefix: false, phrases: [], without: [], texts: 'all', ...options,
});

describeOnPostgres('postgres adapter specifics', () => {
  let adapter: StorageAdapter;
  let schema: string;
  let cleanup: () => Promise<void>;
  const extra: StorageAdapter[] = [];

  /** Another adapter on the same schema: what another server process would have. */
  const otherProcess = (connectionString = requirePostgresUrl()): StorageAdapter => {
    const other = createPostgresAdapter({ attachmentsGenerationKey, connectionString, schema });
    extra.push(other);
    return other;
  };

  beforeEach(async () => {
    ({ adapter, schema, cleanup } = await makePostgresAdapter());
    await adapter.migrate();
  });

  afterEach(async () => {
    await Promise.all(extra.splice(0).map((other) => other.close()));
    await adapter.close();
    await cleanup();
  });

  it('keeps a generation row per document version, removed with the version, in the transaction that removes it', async () => {
    const docs = Array.from({ length: 5 }, (_, i) => makeDoc({ docId: `rows-${i}` }));
    const count = async (table: string) => Number((await adminQuery<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".${table}`))[0]!.n);
    for (const doc of docs) await adapter.documents.insert(doc, emptyIndex());
    await adapter.transaction(async (tx) => tx.documents.update({ ...docs[0]!, title: 'again' }, emptyIndex()));
    assert.equal(await count('version_generations'), 5, 'one row per version, however often it is written');
    await adapter.transaction(async (tx) => {
      await tx.documents.remove('article', idsOf(docs.slice(0, 3)));
    });
    await adapter.documents.remove('article', idsOf(docs.slice(3)));
    assert.equal(await count('version_generations'), 0, 'removed with their versions');
    assert.equal(await count('documents'), 0);
  });

  it('walks the values of a whole list entry by entry, each entry\'s document looked up, whatever the statistics', async () => {
    await adapter.transaction(async (tx) => {
      for (let n = 0; n < 40; n++) await tx.documents.insert(makeDoc({ docId: `walk-${n}`, archived: n % 10 === 0 }), makeIndex({ category: [`c${n % 4}`], priority: [n % 3] }));
    });
    const list: DocumentQuery = { type: 'article', locale: 'en', mode: 'draft', archived: false };
    const url = new URL(requirePostgresUrl());
    url.searchParams.set('options', `-c search_path=${schema}`);
    const planOf = async (analyzed: boolean) => {
      const { sql, params } = compileHeldValuesQuery(list, 'category')!;
      const rows = await adminQuery<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, [...params], url.toString());
      return `${analyzed ? 'analyzed' : 'never analyzed'}\n${rows.map((row) => row['QUERY PLAN']).join('\n')}`;
    };
    for (const analyzed of [false, true]) {
      if (analyzed) await adapter.refreshStatistics();
      const steps = await planOf(analyzed);
      // Value by value (a recursive walk), each entry's document a subplan of its own: never a
      // join, which without statistics read the whole list for every value entry.
      assert.match(steps, /Recursive Union/, steps);
      assert.match(steps, /SubPlan/, steps);
      assert.doesNotMatch(steps, /Join/, steps);
    }
    assert.deepEqual(await adapter.documents.heldValues(list, 'category'), ['c0', 'c1', 'c2', 'c3']);
  });

  it('analyzes the tables of its own schema when asked to refresh its statistics', async () => {
    await adapter.documents.insert(makeDoc({ docId: 'counted' }), makeIndex({ category: ['news'] }));
    const analyzed = async () => (await adminQuery<{ relname: string }>(
      'SELECT relname FROM pg_stat_user_tables WHERE schemaname = $1 AND last_analyze IS NOT NULL ORDER BY relname', [schema],
    )).map((row) => row.relname);
    assert.deepEqual(await analyzed(), []);
    await adapter.refreshStatistics();
    const tables = await analyzed();
    assert.ok(tables.includes('documents') && tables.includes('document_values'), tables.join(', '));
  });

  it('keeps a type\'s counts while its generation stands, and counts again after a write to it from any process', async () => {
    const list: DocumentQuery = { type: 'article', locale: 'en', mode: 'draft', archived: false };
    for (const docId of ['a', 'b']) await adapter.documents.insert(makeDoc({ docId }), emptyIndex());
    assert.equal(await adapter.documents.count(list), 2);
    // A row the triggers do not see leaves the generation where it was: the kept count answers.
    await adminQuery(`ALTER TABLE ${schema}.documents DISABLE TRIGGER documents_generation`);
    await otherProcess().documents.insert(makeDoc({ docId: 'unseen' }), emptyIndex());
    await adminQuery(`ALTER TABLE ${schema}.documents ENABLE TRIGGER documents_generation`);
    assert.equal(await adapter.documents.count(list), 2, 'kept');
    await otherProcess().documents.insert({ ...makeDoc({ docId: 'x' }), type: 'author' }, emptyIndex());
    assert.equal(await adapter.documents.count(list), 2, 'a write to another type leaves it kept');
    await otherProcess().documents.insert(makeDoc({ docId: 'c' }), emptyIndex());
    assert.equal(await adapter.documents.count(list), 4, 'a write to the type from another process counts again');
  });

  it('may be shared by several processes', () => {
    assert.equal(adapter.capabilities.sharedAcrossProcesses, true);
  });

  it('migrates a new schema once when several processes start together', async () => {
    const fresh = uniqueSchemaName();
    const adapters = [1, 2, 3].map(() => createPostgresAdapter({ attachmentsGenerationKey, connectionString: requirePostgresUrl(), schema: fresh }));
    try {
      await Promise.all(adapters.map((each) => each.migrate()));
      await Promise.all(adapters.map((each) => each.migrate()));
      const rows = await adminQuery<{ version: number }>(`SELECT version FROM "${fresh}".schema_migrations ORDER BY version`);
      assert.deepEqual(rows.map((row) => row.version), migrations.map((_, index) => index + 1));
      await adapters[0]!.documents.insert(makeDoc({ docId: 'a' }), emptyIndex());
      assert.equal(await adapters[2]!.documents.count({ type: null }), 1);
    } finally {
      await Promise.all(adapters.map((each) => each.close()));
      await dropSchema(fresh);
    }
  });

  it('rejects a top-level write inside a transaction, and lets top-level reads see committed data only', async () => {
    await assert.rejects(
      adapter.transaction(async (tx) => {
        await tx.documents.insert(makeDoc({ docId: 'a' }), emptyIndex());
        assert.equal(await adapter.documents.count({ type: null }), 0);
        await adapter.documents.remove('article', ['x']);
      }),
      /Nested transaction/,
    );
    await assert.rejects(adapter.transaction(() => adapter.transaction(async () => 1)), /Nested transaction/);
    assert.equal(await adapter.documents.count({ type: null }), 0);
    assert.equal(await adapter.documents.remove('article', ['x']), 0);
  });

  it('rejects use of a session after its transaction ended', async () => {
    const leaked = await adapter.transaction(async (tx) => tx);
    await assert.rejects(leaked.documents.count({ type: null }), /has ended/);
  });

  it('does not report as committed a transaction in which a statement failed, even if work went on', async () => {
    const url = new URL(requirePostgresUrl());
    url.searchParams.set('options', `-c search_path=${schema} -c default_transaction_read_only=on`);
    const readOnly = createPostgresAdapter({ attachmentsGenerationKey, connectionString: url.href });
    extra.push(readOnly);
    await assert.rejects(
      readOnly.transaction(async (tx) => {
        await assert.rejects(tx.documents.insert(makeDoc({ docId: 'a' }), emptyIndex()), /read-only/);
        return 'done';
      }),
      /rolled back/,
    );
    assert.equal(await readOnly.documents.count({ type: null }), 0);
  });

  it('lets readers in other processes see committed data only, without waiting for a transaction', async () => {
    const other = otherProcess();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding!: () => void;
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const first = adapter.transaction(async (tx) => {
      await tx.documents.insert(makeDoc({ docId: 'first' }), emptyIndex());
      holding();
      await gate;
    });
    await held;
    assert.equal(await other.documents.count({ type: null }), 0, 'a reader does not wait, and sees committed data only');
    release();
    await first;
    assert.deepEqual(docIdsOf(await other.documents.find({ type: null })), ['first']);
  });

  it('returns documents and attachment records exactly as written, key order and U+0000 included', async () => {
    const doc = { ...makeDoc({ docId: 'a' }), zeta: 1, alpha: 'x\u0000y', nested: { b: [1.5, 'two', null], a: true } };
    await adapter.documents.insert(doc, emptyIndex(placeOf(doc)));
    const [found] = await adapter.documents.find({ type: 'article', ids: [doc._id] });
    assert.equal(JSON.stringify(found), JSON.stringify(doc));
    // Sorting on a property reads the document's JSON, which holds the escape.
    const sorted = await adapter.documents.find({ type: null, sort: [{ field: 'alpha', direction: 1 }, { field: 'title', direction: -1 }] });
    assert.deepEqual(idsOf(sorted), [doc._id]);
  });

  it('stores ids, slugs, values and texts holding U+0000, and finds them by the same text', async () => {
    const doc = makeDoc({ docId: 'a\u0000b', slug: 's\u0000' });
    await adapter.documents.insert(doc, makeIndex({ label: ['x\u0000y'] }, { title: 'zebra\u0000crossing' }));
    assert.deepEqual(idsOf(await adapter.documents.find({ type: 'article', ids: [doc._id] })), [doc._id]);
    assert.equal(await adapter.documents.count({ type: null, slug: 's\u0000' }), 1);
    assert.equal(await adapter.documents.count({ type: null, conditions: [{ key: 'label', op: 'in', values: ['x\u0000y'] }] }), 1);
    assert.equal(await adapter.documents.count({ type: null, search: search(['crossing']) }), 1);
    assert.deepEqual(await adapter.documents.slugsLike({ locale: 'en', mode: 'draft', base: 's\u0000' }), ['s\uFFFD']);
  });

  it('stores and finds values, slugs, titles and names longer than an index entry can hold', async () => {
    const long = (seed: string) => Array.from({ length: 1200 }, (_, n) => `${seed}${(n * 7919) % 1000}`).join('-');
    const slug = long('s');
    const label = long('label ');
    const doc = makeDoc({ docId: 'a', slug, title: long('t'), titleSortified: long('t') });
    await adapter.documents.insert(doc, makeIndex({ label: [label, 'short'] }, { low: long('word') }));
    await adapter.documents.insert(makeDoc({ docId: 'b', slug: `${slug}-2` }), makeIndex({ label: [`${label}!`] }));
    const labelled = (values: string[]) => adapter.documents.find({ type: 'article', locale: 'en', mode: 'draft', conditions: [{ key: 'label', op: 'in', values }] });
    assert.deepEqual(docIdsOf(await labelled([label])), ['a']);
    assert.deepEqual(docIdsOf(await labelled([label, 'short', `${label}!`])).sort(), ['a', 'b']);
    const inList = { type: 'article', locale: 'en', mode: 'draft' } as const;
    assert.equal(await adapter.documents.count({ ...inList, conditions: [{ key: 'label', op: 'contains', text: 'LABEL 999' }] }), 2);
    assert.equal(await adapter.documents.count({ ...inList, conditions: [{ key: 'label', op: 'range', min: label, max: label }] }), 1);
    assert.equal(await adapter.documents.count({ ...inList, conditions: [{ key: 'label', op: 'all', values: [label, 'short'] }] }), 1);
    assert.deepEqual(await adapter.documents.distinctValues(inList, 'label'), [
      { value: label, count: 1 },
      { value: `${label}!`, count: 1 },
      { value: 'short', count: 1 },
    ]);
    assert.equal(await adapter.documents.count({ type: null, slug }), 1);
    assert.deepEqual(await adapter.documents.slugsLike({ locale: 'en', mode: 'draft', base: slug }), [slug, `${slug}-2`]);
    await assert.rejects(adapter.documents.insert(makeDoc({ docId: 'c', slug }), emptyIndex()), (error) => error instanceof ConflictError);
    assert.equal(await adapter.documents.update({ ...doc, archived: true }, makeIndex({ label: [label] })), true);
    assert.deepEqual(docIdsOf(await labelled(['short'])), []);
    assert.deepEqual(docIdsOf(await adapter.documents.find({ ...inList, archived: true, conditions: [{ key: 'label', op: 'in', values: [label] }] })), ['a']);
    assert.equal(await adapter.documents.count({ ...inList, conditions: [{ key: 'label', op: 'in', values: [label] }] }), 1);

    const name = long('user');
    await adapter.logins.put({ userId: 'u1', username: name, email: `${name}@example.com`, passwordHash: 'h' });
    assert.equal((await adapter.logins.findByName(name))?.userId, 'u1');
    assert.equal((await adapter.logins.findByName(`${name}@example.com`))?.userId, 'u1');
    await assert.rejects(adapter.logins.put({ userId: 'u2', username: name, email: null, passwordHash: 'h' }), (error) => error instanceof ConflictError);
  });

  it('indexes a text larger than a tsvector holds, searching its beginning', async () => {
    const huge = Array.from({ length: 300_000 }, (_, n) => n.toString(36)).join(' ');
    await adapter.documents.insert(makeDoc({ docId: 'huge' }), makeIndex({}, { low: huge, high: huge, title: huge }));
    assert.equal(await adapter.documents.count({ type: null, search: search(['zz']) }), 1);
  });

  it('finds words whatever their accents, and no stop words are dropped', async () => {
    await adapter.documents.insert(makeDoc({ docId: 'cafe' }), makeIndex({}, { title: 'Crème brûlée café', low: 'The Who' }));
    assert.equal(await adapter.documents.count({ type: null, search: search(['creme', 'CAFÉ'], { match: 'all' }) }), 1);
    assert.equal(await adapter.documents.count({ type: null, search: search(['brul'], { prefix: true }) }), 1);
    assert.equal(await adapter.documents.count({ type: null, search: search([], { phrases: [['the', 'who']] }) }), 1);
    assert.equal(await adapter.documents.count({ type: null, search: search([], { phrases: [['cafe', 'the']] }) }), 0, 'no phrase across texts');
  });

  it('sorts on any property in the order the SQLite adapter does', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'cms-parity-'));
    const sqlite = createSqliteAdapter({ attachmentsGenerationKey, filename: join(directory, 'cms.sqlite') });
    try {
      await sqlite.migrate();
      const values: unknown[] = [undefined, null, true, false, 2, -1.5, 10, 'a', 'B', '', 'é', [1], { x: 1 }, '10'];
      for (const store of [adapter, sqlite]) {
        for (const [n, value] of values.entries()) {
          const doc = makeDoc({ docId: `d${String(n).padStart(2, '0')}`, title: n % 3 === 0 ? 'same' : `t${n}` });
          if (value !== undefined) doc.rank = value;
          await store.documents.insert(doc, emptyIndex(placeOf(doc)));
        }
      }
      for (const sort of [
        [{ field: 'rank', direction: 1 }],
        [{ field: 'rank', direction: -1 }],
        [{ field: 'title', direction: 1 }, { field: 'rank', direction: -1 }],
      ] as const) {
        const query: DocumentQuery = { type: null, sort, skip: 1, limit: 10 };
        assert.deepEqual(idsOf(await adapter.documents.find(query)), idsOf(await sqlite.documents.find(query)), JSON.stringify(sort));
      }
    } finally {
      await sqlite.close();
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describeOnPostgres('postgres migrations', () => {
  it('moves the reverse ids a version 15 schema keeps in its documents\' data into their rows, in order, and keeps them out of the data', async () => {
    const { adapter, schema, cleanup } = await makePostgresAdapter();
    const upgraded = createPostgresAdapter({ attachmentsGenerationKey, connectionString: requirePostgresUrl(), schema });
    try {
      await adapter.migrate();
      const named = { ...makeDoc({ docId: 'ada', type: 'person' }), relatedReverseIds: ['z', 'a', 'm'], bio: 'b' };
      const emptied = { ...makeDoc({ docId: 'bob', type: 'person' }), relatedReverseIds: [] };
      const never = makeDoc({ docId: 'cy', type: 'person' });
      for (const doc of [named, emptied, never]) await adapter.documents.insert(doc, emptyIndex());
      // The schema as version 15 left it: the ids in the data, no table of them, and no
      // generation per version yet (migration 15's trigger function, which counts none).
      await adminQuery(`SET search_path = "${schema}";
        UPDATE documents SET data = $$${JSON.stringify(named)}$$::json WHERE id = 'ada:en:draft';
        DROP TABLE document_reverse_ids;
        DROP TABLE version_generations;
        DROP SEQUENCE version_generation_values;
        DROP TABLE document_history;
        DROP TABLE schedules;
        DROP TABLE audit_records;
        DROP TABLE share_links;
        DROP TABLE change_log;
        DROP TABLE presence;
        DROP TABLE user_preferences;
        DROP TABLE idempotency_keys;
        DROP TABLE change_log_pruned;
        DROP TABLE signing_keys;
        DROP TABLE account_totp;
        DROP TABLE account_codes;
        DROP TABLE release_documents;
        DROP TABLE releases;
        DROP TABLE review_comments;
        DROP TABLE review_links;
        ${migrations[14]};
        DELETE FROM schema_migrations WHERE version > 15`);

      await upgraded.migrate();
      const found = await upgraded.documents.find({ type: 'person', sort: [{ field: '_id', direction: 1 }] });
      assert.deepEqual(found, [named, emptied, never]);
      assert.deepEqual(Object.keys(found[0]!), Object.keys(named), 'the keys in their order');
      const [row] = await adminQuery<{ ids: unknown }>(`SELECT data -> 'relatedReverseIds' AS ids FROM "${schema}".documents WHERE id = 'ada:en:draft'`);
      assert.deepEqual(row!.ids, [], 'out of the data');
      const dataOf = async () => (await adminQuery<{ data: string }>(`SELECT data::text AS data FROM "${schema}".documents WHERE id = 'ada:en:draft'`))[0]!.data;
      await upgraded.documents.relateBack('person', 'b', [{ versionId: named._id, present: true }], named.updatedAt);
      const once = await dataOf();
      for (const source of ['c', 'd', 'e']) await upgraded.documents.relateBack('person', source, [{ versionId: named._id, present: true }], named.updatedAt);
      assert.equal(await dataOf(), once, 'the same text: no id added to the data');
      assert.deepEqual((await upgraded.documents.find({ type: 'person', ids: [named._id] }))[0]!.relatedReverseIds, ['z', 'a', 'm', 'b', 'c', 'd', 'e']);
    } finally {
      await upgraded.close();
      await adapter.close();
      await cleanup();
    }
  });

  it('keeps the generations of a version 12 schema under their keys, and counts attachment writes up under the key the adapter is given', async () => {
    const { adapter, schema, cleanup } = await makePostgresAdapter();
    try {
      const versions = migrations.slice(0, 12).map((_, index) => `(${index + 1})`).join(', ');
      await adminQuery(`SET search_path = "${schema}";
        ${migrations.slice(0, 12).join(';\n')};
        CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
        INSERT INTO schema_migrations (version) VALUES ${versions};
        INSERT INTO generations (scope, stripe, value) VALUES ('article', 0, 5), ('${attachmentsGenerationKey}', 3, 7)`);

      await adapter.migrate();
      assert.equal(await adapter.generation(['article', attachmentsGenerationKey]), '5 7');
      await adapter.attachments.insert(makeAttachment('a'));
      await adapter.documents.insert(makeDoc({ docId: 'a' }), emptyIndex());
      assert.equal(await adapter.generation(['article', attachmentsGenerationKey]), '6 8', 'each write counted once');
      assert.equal(await adapter.generation(['article:draft', 'article:published']), '1 0', 'and under its type and mode from then on');
      const triggers = await adminQuery<{ tgname: string }>(`SELECT tgname FROM pg_trigger JOIN pg_class ON pg_class.oid = tgrelid
        WHERE relnamespace = $1::regnamespace AND NOT tgisinternal ORDER BY tgname`, [schema]);
      assert.deepEqual(triggers.map((row) => row.tgname), ['documents_generation']);
    } finally {
      await adapter.close();
      await cleanup();
    }
  });
});
