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

/**
 * Writes the filter values (in the scope of their document's row) and search texts (checked by
 * assertDocumentIndex) stored under `seq`; no search row when every text is empty.
 */
export function writeIndex(statements: StatementSource, seq: number, scope: ValueScope, index: DocumentIndex): void {
  const insertValue = statements.statement(insertValueSql);
  const scopeValues = scopeParams(scope);
  for (const { key, value } of index.values) insertValue.run(...scopeValues, key, value, seq);
  const { title, high, low, publicTitle, publicHigh, publicLow } = index.search;
  // No text, no row: no search can match it (a previous version, a document without texts).
  if (searchTextNames.every((name) => index.search[name] === '')) return;
  for (const table of searchTables) {
    statements.statement(insertTextsSql(table)).run(seq, title, high, low, publicTitle, publicHigh, publicLow);
  }
}

/** Removes the filter values and search texts of the documents stored under `seqs`. */
export function removeIndex(statements: StatementSource, seqs: readonly number[]): void {
  if (seqs.length === 0) return;
  const list = jsonList(seqs);
  statements.statement(removeValuesSql).run(list);
  for (const table of searchTables) statements.statement(removeTextsSql(table)).run(list);
}
