import type { FilterCondition, IndexValue } from '../storage-adapter.js';
import type { CompiledQuery } from './compiled-query.js';

// SQLite orders numbers before all text and text before all blobs, whatever their values, and
// the index keeps that order. These bounds close a range at the edge of one kind of value, so
// an open-ended range stays a range scan of the (key, value) index and never crosses kinds.
const belowAllNumbers = -Infinity;
const aboveAllNumbers = Infinity;
const belowAllText = '';
/** An empty blob: above all text. Index values are never blobs, so none lies at or beyond it. */
const aboveAllText = Buffer.alloc(0);

/** The type, locale and mode filter values are kept under: those of their document's row. */
export interface ValuePartition {
  readonly type: string;
  readonly locale: string;
  readonly mode: string;
}

/** The test of document_values rows against a partition; its parameters are `partitionParams`. */
export const valuePartitionSql = 'type = ? AND locale = ? AND mode = ?';

export function partitionParams(partition: ValuePartition): string[] {
  return [partition.type, partition.locale, partition.mode];
}

/**
 * Compiles one condition into a test of `seq` (the document's, as `documents.seq` or
 * `+documents.seq`) against document_values; null when it holds for every document (`all` of
 * nothing). With a `partition` (every list has one) the matching documents are gathered once from
 * the values of that partition; without one, each candidate document's own values are looked up.
 */
export function compileCondition(condition: FilterCondition, seq: string, partition: ValuePartition | undefined): CompiledQuery | null {
  const withValue = (test: string, params: readonly unknown[]): CompiledQuery => {
    if (partition) {
      return {
        sql: `${seq} IN (SELECT seq FROM document_values WHERE ${valuePartitionSql} AND key = ? AND ${test})`,
        params: [...partitionParams(partition), condition.key, ...params],
      };
    }
    return {
      sql: `EXISTS (SELECT 1 FROM document_values WHERE document_values.seq = documents.seq AND key = ? AND ${test})`,
      params: [condition.key, ...params],
    };
  };
  switch (condition.op) {
    case 'in':
      return withValue('value IN (SELECT value FROM json_each(?))', [jsonValues(condition.values)]);
    case 'all':
      return compileAll(seq, condition.key, condition.values, partition);
    case 'range':
      return withValue('value BETWEEN ? AND ?', rangeBounds(condition.min, condition.max));
    case 'contains':
      // Ignoring ASCII case as LIKE does (SQLite's lower() folds ASCII only), without LIKE's
      // 50,000-byte pattern limit, which a long filter text would pass.
      // The range keeps it to text values.
      return withValue("value >= '' AND value < x'' AND instr(lower(value), lower(?)) > 0", [condition.text]);
    case 'none':
      return {
        sql: `NOT EXISTS (SELECT 1 FROM document_values
          WHERE document_values.seq = documents.seq AND document_values.key = ?)`,
        params: [condition.key],
      };
    default:
      throw new Error(`Unknown filter operation: ${(condition as { op: unknown }).op}`);
  }
}

/** Checks a value before it is written: the index holds strings and finite numbers only. */
export function assertIndexValue(key: string, value: unknown): asserts value is IndexValue {
  if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) return;
  throw new Error(`Invalid index value for "${key}": ${String(value)}`);
}

function compileAll(seq: string, key: string, values: readonly IndexValue[], partition: ValuePartition | undefined): CompiledQuery | null {
  // A Set tells 3 from '3', as the index does.
  const distinct = [...new Set(values)];
  if (distinct.length === 0) return null;
  // The primary key holds each (value, document) once, so a document matching every value has
  // exactly as many matching rows as there are values.
  const matching = 'key = ? AND value IN (SELECT value FROM json_each(?))';
  if (partition) {
    return {
      sql: `${seq} IN (SELECT seq FROM document_values WHERE ${valuePartitionSql} AND ${matching} GROUP BY seq HAVING COUNT(*) = ?)`,
      params: [...partitionParams(partition), key, jsonValues(distinct), distinct.length],
    };
  }
  return {
    sql: `(SELECT COUNT(*) FROM document_values WHERE document_values.seq = documents.seq AND ${matching}) = ?`,
    params: [key, jsonValues(distinct), distinct.length],
  };
}

/** Inclusive bounds; an open bound stops at the edge of the kind (number or text) of the other. */
function rangeBounds(min: IndexValue | undefined, max: IndexValue | undefined): unknown[] {
  const low = min ?? (typeof max === 'string' ? belowAllText : belowAllNumbers);
  const high = max ?? (typeof min === 'number' ? aboveAllNumbers : aboveAllText);
  return [low, high];
}

/** A JSON array: json_each yields its numbers as numbers and its strings as text. */
function jsonValues(values: readonly IndexValue[]): string {
  values.forEach((value) => assertIndexValue('filter', value));
  return JSON.stringify(values);
}
