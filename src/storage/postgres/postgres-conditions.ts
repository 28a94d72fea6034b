import type { FilterCondition, IndexValue } from '../storage-adapter.js';
import { keyLength, shortTextBytes } from './migrations.js';
import { storable, type Params } from './statements.js';

// The predicates of the two text indexes (see migration 1): a test of text values is written
// once for each, so that each kind of text is looked for in its own index.
const shortText = `octet_length(v.txt) <= ${shortTextBytes}`;
const longText = `octet_length(v.txt) > ${shortTextBytes}`;

/**
 * The three value indexes, which together hold every value: the predicate of each, and the
 * columns to read from it (the other column is NULL there, and naming it would read the table).
 */
export const valueIndexes: readonly { readonly where: string; readonly columns: string }[] = [
  { where: 'v.num IS NOT NULL', columns: 'v.num, NULL::text COLLATE "C" AS txt' },
  { where: shortText, columns: 'NULL::float8 AS num, v.txt' },
  { where: longText, columns: 'NULL::float8 AS num, v.txt' },
];

/** The type, locale and mode filter values are kept under: those of their document's row. */
export interface ValuePartition {
  readonly type: string;
  readonly locale: string;
  readonly mode: string;
}

/**
 * Compiles one condition into a test of the document (`documents.seq`) against
 * document_values; null when it holds for every document (`all` of nothing). With a `partition`
 * (every list has one) the matching documents are gathered once from the values of that partition:
 * one index range for each kind of value the condition can match (numbers, short texts, long
 * texts), joined by UNION ALL so that each is read from its own index, entries only where it
 * holds the value. Without a partition, each candidate document's own values are looked up.
 */
export function compileCondition(condition: FilterCondition, partition: ValuePartition | undefined, params: Params): string | null {
  switch (condition.op) {
    case 'in':
      return matchingDocuments(condition.key, valueIn(condition.values, params), partition, params);
    case 'all':
      return compileAll(condition.key, condition.values, partition, params);
    case 'range':
      return matchingDocuments(condition.key, valueInRange(condition.min, condition.max, params), partition, params);
    case 'contains': {
      // ILIKE ignores (at least ASCII) case; only text values have a `txt`.
      const pattern = params.add(`%${escapeLike(condition.text)}%`, 'text');
      return matchingDocuments(condition.key, eitherText(`v.txt ILIKE ${pattern} ESCAPE '\\'`), partition, params);
    }
    case 'none':
      return `NOT EXISTS (SELECT 1 FROM document_values AS v
        WHERE v.seq = documents.seq AND v.key = ${params.add(condition.key, 'text')})`;
    default:
      throw new Error(`Unknown filter operation: ${(condition as { op: unknown }).op}`);
  }
}

/** The documents holding a value of `key` that passes one of `tests` (one per kind of value). */
function matchingDocuments(key: string, tests: readonly string[], partition: ValuePartition | undefined, params: Params): string {
  if (tests.length === 0) return 'FALSE';
  const keyIs = `v.key = ${params.add(key, 'text')}`;
  if (partition) return `documents.seq IN (${valueRows(`${inPartition(partition, params)} AND ${keyIs}`, tests)})`;
  return `EXISTS (SELECT 1 FROM document_values AS v WHERE v.seq = documents.seq AND ${keyIs} AND (${tests.join(' OR ')}))`;
}

/** `SELECT v.seq` of the values passing `where` and one of `tests`, each test its own index range. */
function valueRows(where: string, tests: readonly string[]): string {
  return tests.map((test) => `SELECT v.seq FROM document_values AS v WHERE ${where} AND ${test}`).join(' UNION ALL ');
}

/**
 * `column = value` for a slug, with the test of its beginning that lets the slug index find it
 * (the index holds `left(slug, 200)`, not the slug).
 */
export function slugIs(column: string, value: string): string {
  return `${column} = ${value} AND left(${column}, ${keyLength}) = left(${value}, ${keyLength})`;
}

/** The first `length` characters (code points, as PostgreSQL's left() counts them) of `text`. */
export function beginning(text: string, length: number): string {
  if (text.length <= length) return text;
  return Array.from(text).slice(0, length).join('');
}

/** Escapes LIKE's wildcards (and the escape character) for `ESCAPE '\'`. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/** Checks a value before it is written: the index holds strings and finite numbers only. */
export function assertIndexValue(key: string, value: unknown): asserts value is IndexValue {
  if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) return;
  throw new Error(`Invalid index value for "${key}": ${String(value)}`);
}

export function inPartition(partition: ValuePartition, params: Params): string {
  return `v.type = ${params.add(partition.type, 'text')} AND v.locale = ${params.add(partition.locale, 'text')}`
    + ` AND v.mode = ${params.add(partition.mode, 'text')}`;
}

/** `in`: numbers are looked for among the numbers, texts among the texts; 3 never equals '3'. */
function valueIn(values: readonly IndexValue[], params: Params): string[] {
  const { numbers, texts } = splitValues(values);
  const short = texts.filter(isShortText);
  const long = texts.filter((text) => !isShortText(text));
  const tests: string[] = [];
  if (numbers.length > 0) tests.push(`v.num = ANY (${params.add(numbers, 'float8[]')})`);
  if (short.length > 0) tests.push(`(${shortText} AND v.txt = ANY (${params.add(short, 'text[]')}))`);
  if (long.length > 0) tests.push(`(${longText} AND v.txt = ANY (${params.add(long, 'text[]')}))`);
  return tests;
}

/** A test of text values, once for the short and once for the long ones. */
function eitherText(test: string): string[] {
  return [`(${shortText} AND ${test})`, `(${longText} AND ${test})`];
}

/** Whether a text, as it is stored, is held by the index of short texts. */
function isShortText(text: string): boolean {
  return Buffer.byteLength(storable(text) as string, 'utf8') <= shortTextBytes;
}

function compileAll(key: string, values: readonly IndexValue[], partition: ValuePartition | undefined, params: Params): string | null {
  // A Set tells 3 from '3', as the index does.
  const distinct = [...new Set(values)];
  if (distinct.length === 0) return null;
  // A document holds each value once (see valueArrays), so a document matching every value has
  // exactly as many matching rows as there are values.
  const keyIs = `v.key = ${params.add(key, 'text')}`;
  const tests = valueIn(distinct, params);
  const count = params.add(distinct.length, 'bigint');
  if (partition) {
    return `documents.seq IN (SELECT matching.seq FROM (${valueRows(`${inPartition(partition, params)} AND ${keyIs}`, tests)}) AS matching
      GROUP BY matching.seq HAVING count(*) = ${count})`;
  }
  return `(SELECT count(*) FROM document_values AS v
    WHERE v.seq = documents.seq AND ${keyIs} AND (${tests.join(' OR ')})) = ${count}`;
}

/**
 * Inclusive bounds, compared as SQLite's adapter does: all numbers lie below all texts, and an
 * open bound stops at the edge of the kind of the other bound. So [5, open) holds numbers only,
 * (open, 'b'] texts only, [5, 'b'] the numbers from 5 and the texts up to 'b', and a range with
 * no bound at all every value.
 */
function valueInRange(min: IndexValue | undefined, max: IndexValue | undefined, params: Params): string[] {
  assertBound(min);
  assertBound(max);
  const tests: string[] = [];
  const numbers = typeof min === 'number' || (min === undefined && typeof max !== 'string');
  const texts = typeof max === 'string' || (max === undefined && typeof min !== 'number');
  if (numbers) {
    const bounds = ['v.num IS NOT NULL'];
    if (typeof min === 'number') bounds.push(`v.num >= ${params.add(min, 'float8')}`);
    if (typeof max === 'number') bounds.push(`v.num <= ${params.add(max, 'float8')}`);
    tests.push(`(${bounds.join(' AND ')})`);
  }
  if (texts) {
    const bounds: string[] = [];
    if (typeof min === 'string') bounds.push(`v.txt >= ${params.add(min, 'text')}`);
    if (typeof max === 'string') bounds.push(`v.txt <= ${params.add(max, 'text')}`);
    tests.push(...eitherText(bounds.length > 0 ? bounds.join(' AND ') : 'TRUE'));
  }
  return tests;
}

function assertBound(value: IndexValue | undefined): void {
  if (value !== undefined) assertIndexValue('range', value);
}

/** Splits filter values into numbers and texts, checking each. */
export function splitValues(values: readonly IndexValue[]): { numbers: number[]; texts: string[] } {
  const numbers: number[] = [];
  const texts: string[] = [];
  for (const value of values) {
    assertIndexValue('filter', value);
    if (typeof value === 'number') numbers.push(value);
    else texts.push(value);
  }
  return { numbers, texts };
}
