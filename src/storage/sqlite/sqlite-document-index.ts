import type { DocumentIndex } from '../storage-adapter.js';
import { assertIndexValue, scopeParams, type ValueScope } from './sqlite-conditions.js';
import { jsonList } from './sqlite-query.js';
import type { StatementSource } from './statement-cache.js';

// OR IGNORE: a value a document holds twice is indexed once, as `all` counts on.
const insertValueSql = 'INSERT OR IGNORE INTO document_values (type, locale, mode, key, value, seq) VALUES (?, ?, ?, ?, ?, ?)';
const removeValuesSql = 'DELETE FROM document_values WHERE seq IN (SELECT value FROM json_each(?))';

/** Both search tables hold the same texts under the same rowid, tokenized differently. */
const searchTables = ['document_search', 'document_words'] as const;

const insertTextsSql = (table: string): string => `INSERT INTO ${table}
  (rowid, title, high, low, public_title, public_high, public_low) VALUES (?, ?, ?, ?, ?, ?, ?)`;
const removeTextsSql = (table: string): string =>
  `DELETE FROM ${table} WHERE rowid IN (SELECT value FROM json_each(?))`;

const searchTextNames = ['title', 'high', 'low', 'publicTitle', 'publicHigh', 'publicLow'] as const;

/** Throws unless every value is a string or a finite number and every search text a string. */
export function assertDocumentIndex(index: DocumentIndex): void {
  for (const { key, value } of index.values) assertIndexValue(key, value);
  for (const name of searchTextNames) {
    if (typeof index.search[name] !== 'string') throw new Error(`Invalid search text "${name}"`);
  }
}

type SearchWrite = { readonly remove: string } | { readonly insert: readonly [number, ...string[]] };

/**
 * The full-text writes of a write transaction, held until it commits. FTS5 keeps the terms of
 * its writes in memory and writes them out as one new index segment when the transaction
 * commits, or whenever a statement opens a savepoint: and every UPDATE of a documents row does
 * (its statement journal). Written as they came, a group of writes would cost one segment per
 * document; held until the commit, one for the group. Statements run in the order written, so
 * a seq removed and then reused ends up with its new texts. A search through the transaction
 * writes them first (`flush`), so it sees the transaction's own writes.
 */
export class PendingSearchWrites {
  #writes: SearchWrite[] = [];

  add(write: SearchWrite): void {
    this.#writes.push(write);
  }

  flush(statements: StatementSource): void {
    const writes = this.#writes;
    this.#writes = [];
    for (const write of writes) {
      for (const table of searchTables) {
        if ('remove' in write) statements.statement(removeTextsSql(table)).run(write.remove);
        else statements.statement(insertTextsSql(table)).run(...write.insert);
      }
    }
  }

  /** The transaction rolled back: what it wrote is gone, and so is what it held. */
  discard(): void {
    this.#writes = [];
  }
}

/**
 * Writes the filter values (in the scope of their document's row) and search texts (checked by
 * assertDocumentIndex) stored under `seq`; no search row when every text is empty. The search
 * texts go to `search` when given, else they are written at once.
 */
export function writeIndex(statements: StatementSource, seq: number, scope: ValueScope, index: DocumentIndex, search?: PendingSearchWrites): void {
  const insertValue = statements.statement(insertValueSql);
  const scopeValues = scopeParams(scope);
  for (const { key, value } of index.values) insertValue.run(...scopeValues, key, value, seq);
  const { title, high, low, publicTitle, publicHigh, publicLow } = index.search;
  // No text, no row: no search can match it (a previous version, a document without texts).
  if (searchTextNames.every((name) => index.search[name] === '')) return;
  searchWrite(statements, { insert: [seq, title, high, low, publicTitle, publicHigh, publicLow] }, search);
}

/** Removes the filter values and search texts of the documents stored under `seqs`; the texts as writeIndex writes them. */
export function removeIndex(statements: StatementSource, seqs: readonly number[], search?: PendingSearchWrites): void {
  if (seqs.length === 0) return;
  const list = jsonList(seqs);
  statements.statement(removeValuesSql).run(list);
  searchWrite(statements, { remove: list }, search);
}

function searchWrite(statements: StatementSource, write: SearchWrite, pending: PendingSearchWrites | undefined): void {
  if (pending) {
    pending.add(write);
    return;
  }
  const now = new PendingSearchWrites();
  now.add(write);
  now.flush(statements);
}
