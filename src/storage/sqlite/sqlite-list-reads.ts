import type { DocumentQuery, DocumentStore, IndexValue } from '../storage-adapter.js';
import type { CountsUntilWrite } from './counts-until-write.js';
import { compileDistinctValuesOfKeysQuery, compileDistinctValuesQuery, compileFindQuery, costGrowsWithSelection } from './sqlite-query.js';
import type { ReadThreads } from './read-threads.js';
import type { StatementSource } from './statement-cache.js';
import { withReverseIds } from './sqlite-document-store.js';
import { heldValuesOf, heldValuesOfKeysOf } from '../held-values.js';

// The sorts a list index holds in order, after type, locale, mode and archived.
const indexedSorts = new Set(['updatedAt', 'createdAt', 'titleSortified']);

/**
 * The read connection's document store with counts kept until the next write (CountsUntilWrite),
 * and filtered pages and a list's values read the cheapest way, chosen from those counts.
 */
export function withListReads(
  store: DocumentStore,
  statements: StatementSource,
  counts: CountsUntilWrite,
  threads: ReadThreads | undefined,
): DocumentStore {
  const offLoop = (query: DocumentQuery) => (threads !== undefined && costGrowsWithSelection(query) ? threads : undefined);
  const count = (query: DocumentQuery) => counts.count(query);
  async function distinctValues(query: DocumentQuery, key: string) {
    if (!(await selectsFew(query, count))) return store.distinctValues(query, key);
    const { sql, params } = compileDistinctValuesQuery(query, key, { bySelected: true });
    return statements.statement(sql).all(...params) as { value: IndexValue; count: number }[];
  }
  async function distinctValuesOfKeys(query: DocumentQuery, keys: readonly string[]) {
    const { sql, params } = compileDistinctValuesOfKeysQuery(query, keys, { bySelected: await selectsFew(query, count) });
    const byKey = new Map(keys.map((key) => [key, [] as { value: IndexValue; count: number }[]]));
    for (const row of statements.statement(sql).all(...params) as { key: string; value: IndexValue; count: number }[]) {
      byKey.get(row.key)!.push({ value: row.value, count: row.count });
    }
    return keys.map((key) => byKey.get(key)!);
  }
  return {
    ...store,
    count: async (query) => counts.count(query, offLoop(query)),
    distinctValues,
    heldValues: (query, key) => heldValuesOf({ distinctValues, heldValues: store.heldValues }, count, query, key),
    heldValuesOfKeys: (query, keys) => heldValuesOfKeysOf({ distinctValuesOfKeys, heldValues: store.heldValues }, count, query, keys),
    async find(query) {
      const probe = await probesConditions(query, counts);
      const away = offLoop(query);
      if (!probe && !away) return store.find(query);
      const { sql, params } = compileFindQuery(query, { probeConditions: probe });
      const rows = (away ? await away.run(sql, params, 'column') : statements.statement(sql).pluck().all(...params)) as string[];
      return withReverseIds(statements, rows, query.reverseIds);
    },
  };
}

/**
 * Whether a filtered page is read by testing each entry the list index walk reaches against its
 * document's values, rather than by gathering first every document each condition selects.
 *
 * Gathering reads at least `matched` filter entries per condition, however early the page;
 * testing reads about `(skip + limit) × total / matched` list entries, each tested against each
 * condition. So testing wins when that walk is no longer than `matched`: a broad filter's first
 * pages (a fifth of 10,000 documents: 0.7 ms instead of 8 ms). A narrow filter or a deep page
 * gathers, whose cost does not depend on how far the walk goes. Both counts are kept until the
 * next write, and the list counts its selection anyway.
 */
async function probesConditions(query: DocumentQuery, counts: CountsUntilWrite): Promise<boolean> {
  const { conditions, sort, limit } = query;
  if (conditions === undefined || conditions.length === 0 || limit === undefined) return false;
  // Only a walk of a list index in sort order: known type and archived state, one indexed sort
  // key, no id list, no search.
  if (query.type === null || query.locale === undefined || query.mode === undefined || query.archived === undefined) return false;
  if (query.ids !== undefined || query.docIds !== undefined || query.search !== undefined) return false;
  if ((query.order ?? 'sort') !== 'sort' || sort?.length !== 1 || !indexedSorts.has(sort[0]!.field)) return false;
  const matched = await counts.count(query);
  if (matched === 0) return false;
  const total = await counts.count({ ...query, conditions: undefined });
  const walk = ((query.skip ?? 0) + limit) * (total / matched);
  return walk <= matched;
}

/**
 * Whether `query` selects at most an eighth of its partition (type, locale and mode), so that its
 * documents' own values are cheaper to look up (some 3 µs each) than every entry of the key to test
 * (under 1 µs each): the archived view, a narrow filter. False without a partition.
 */
async function selectsFew(query: DocumentQuery, count: (query: DocumentQuery) => Promise<number>): Promise<boolean> {
  if (query.type === null || query.locale === undefined || query.mode === undefined || query.localeChain !== undefined) return false;
  const partition = await count({ type: query.type, locale: query.locale, mode: query.mode });
  return (await count(query)) * 8 <= partition;
}
