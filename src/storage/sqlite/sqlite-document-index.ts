import type { DocumentIndex, IndexValue } from '../storage-adapter.js';
import { assertIndexValue, partitionParams, type ValuePartition } from './sqlite-conditions.js';
import { jsonList } from './sqlite-query.js';
import type { StatementSource } from './statement-cache.js';

// OR IGNORE: a value a document holds twice is indexed once, as `all` counts on.
const insertValueSql = 'INSERT OR IGNORE INTO document_values (type, locale, mode, key, value, seq) VALUES (?, ?, ?, ?, ?, ?)';
const removeValuesSql = 'DELETE FROM document_values WHERE seq IN (SELECT value FROM json_each(?))';
const storedValuesSql = 'SELECT type, locale, mode, key, value FROM document_values WHERE seq = ?';
const removeValueSql = 'DELETE FROM document_values WHERE type = ? AND locale = ? AND mode = ? AND key = ? AND value = ? AND seq = ?';

/** The search texts of one document in the column order of document_texts. */
type Texts = readonly [title: string, high: string, low: string, publicTitle: string, publicHigh: string, publicLow: string];

const textColumns = ['title', 'high', 'low', 'public_title', 'public_high', 'public_low'] as const;
const searchTextNames = ['title', 'high', 'low', 'publicTitle', 'publicHigh', 'publicLow'] as const;

/** Both full-text tables index document_texts (migration 9), each some of its columns. */
const searchTables = [
  { name: 'document_search', columns: [0, 1, 2, 3, 4, 5] },
  { name: 'document_words', columns: [0, 1, 3, 4] },
].map(({ name, columns }) => {
  const names = columns.map((n) => textColumns[n]).join(', ');
  const marks = columns.map(() => '?').join(', ');
  return {
    columns,
    insertSql: `INSERT INTO ${name} (rowid, ${names}) VALUES (?, ${marks})`,
    // External content: FTS5 removes a row's terms when told what they were.
    deleteSql: `INSERT INTO ${name} (${name}, rowid, ${names}) VALUES ('delete', ?, ${marks})`,
  };
});

const readTextsSql = `SELECT ${textColumns.join(', ')} FROM document_texts WHERE seq = ?`;
const putTextsSql = `INSERT OR REPLACE INTO document_texts (seq, ${textColumns.join(', ')}) VALUES (?, ?, ?, ?, ?, ?, ?)`;
const removeTextsSql = 'DELETE FROM document_texts WHERE seq = ?';

/** Throws unless every value is a string or a finite number and every search text a string. */
export function assertDocumentIndex(index: DocumentIndex): void {
  for (const { key, value } of index.values) assertIndexValue(key, value);
  for (const name of searchTextNames) {
    if (typeof index.search[name] !== 'string') throw new Error(`Invalid search text "${name}"`);
  }
}

/** What the full-text tables hold for a document (null: no row), and what they are to hold. */
interface TextsChange {
  readonly before: Texts | null;
  after: Texts | null;
}

/**
 * The full-text writes of a write transaction, held until it commits. FTS5 keeps the terms of
 * its writes in memory and writes them out as one new index segment when the transaction
 * commits, or whenever a statement opens a savepoint: and every UPDATE of a documents row does
 * (its statement journal). Written as they came, a group of writes would cost one segment per
 * document; held until the commit, one for the group. Held per document, they also cancel out:
 * a write that gives a document the texts it had (a change to a field no text comes from, a
 * publish) leaves both tables alone, and a table whose columns kept their texts is not touched.
 * A search through the transaction writes them first (`flush`), so it sees the transaction's
 * own writes.
 */
export class PendingSearchWrites {
  #changes = new Map<number, TextsChange>();

  /** The document under `seq` is to hold `texts` (null: none) once written. */
  set(statements: StatementSource, seq: number, texts: Texts | null): void {
    const change = this.#changes.get(seq);
    if (change) change.after = texts;
    else this.#changes.set(seq, { before: this.#stored(statements, seq), after: texts });
  }

  flush(statements: StatementSource): void {
    const changes = this.#changes;
    this.#changes = new Map();
    for (const [seq, { before, after }] of changes) {
      if (sameTexts(before, after, textColumns.map((_, n) => n))) continue;
      for (const table of searchTables) {
        if (sameTexts(before, after, table.columns)) continue;
        if (before) statements.statement(table.deleteSql).run(seq, ...table.columns.map((n) => before[n]));
        if (after) statements.statement(table.insertSql).run(seq, ...table.columns.map((n) => after[n]));
      }
      if (after) statements.statement(putTextsSql).run(seq, ...after);
      else statements.statement(removeTextsSql).run(seq);
    }
  }

  /** The transaction rolled back: what it wrote is gone, and so is what it held. */
  discard(): void {
    this.#changes = new Map();
  }

  /** What the tables hold for `seq` now: document_texts changes only when they do. */
  #stored(statements: StatementSource, seq: number): Texts | null {
    return (statements.statement(readTextsSql).raw().get(seq) as Texts | undefined) ?? null;
  }
}

function sameTexts(a: Texts | null, b: Texts | null, columns: readonly number[]): boolean {
  if (a === null || b === null) return a === b;
  return columns.every((n) => a[n] === b[n]);
}

/**
 * Writes the filter values (in the partition of their document's row) and search texts (checked by
 * assertDocumentIndex) stored under `seq`; no search row when every text is empty. The search
 * texts go to `search` when given, else they are written at once.
 */
export function writeIndex(statements: StatementSource, seq: number, partition: ValuePartition, index: DocumentIndex, search?: PendingSearchWrites): void {
  const insertValue = statements.statement(insertValueSql);
  const partitionValues = partitionParams(partition);
  for (const { key, value } of index.values) insertValue.run(...partitionValues, key, value, seq);
  setTexts(statements, [seq], textsOf(index), search);
}

/** No text, no row: no search can match it (a previous version, a document without texts). */
function textsOf(index: DocumentIndex): Texts | null {
  const texts = searchTextNames.map((name) => index.search[name]) as unknown as Texts;
  return texts.every((text) => text === '') ? null : texts;
}

/**
 * Replaces the index stored under `seq` (a document updated in place, in the same partition): only the
 * values that changed are written, as only the texts that changed are (PendingSearchWrites). Most
 * updates change a few fields, and deleting and re-inserting every value costs two index entries
 * each.
 */
export function replaceIndex(statements: StatementSource, seq: number, partition: ValuePartition, index: DocumentIndex, search?: PendingSearchWrites): void {
  const partitionValues = partitionParams(partition);
  const stored = new Map<string, readonly IndexValue[]>();
  for (const row of statements.statement(storedValuesSql).raw().all(seq) as [string, string, string, string, IndexValue][]) {
    stored.set(valueIdentity(row), row);
  }
  const insertValue = statements.statement(insertValueSql);
  for (const { key, value } of index.values) {
    if (!stored.delete(valueIdentity([...partitionValues, key, value]))) insertValue.run(...partitionValues, key, value, seq);
  }
  const removeValue = statements.statement(removeValueSql);
  for (const row of stored.values()) removeValue.run(...row, seq);
  setTexts(statements, [seq], textsOf(index), search);
}

/** A value in its partition as the STRICT table tells values apart: 3 and '3' are two values. */
function valueIdentity(row: readonly IndexValue[]): string {
  return JSON.stringify(row.map((value) => [typeof value, value]));
}

/** Removes the filter values and search texts of the documents stored under `seqs`; the texts as writeIndex writes them. */
export function removeIndex(statements: StatementSource, seqs: readonly number[], search?: PendingSearchWrites): void {
  if (seqs.length === 0) return;
  statements.statement(removeValuesSql).run(jsonList(seqs));
  setTexts(statements, seqs, null, search);
}

function setTexts(statements: StatementSource, seqs: readonly number[], texts: Texts | null, pending: PendingSearchWrites | undefined): void {
  const writes = pending ?? new PendingSearchWrites();
  for (const seq of seqs) writes.set(statements, seq, texts);
  if (!pending) writes.flush(statements);
}
