import { isDeepStrictEqual } from 'node:util';
import { fail, isPlainObject, type PatchOperation } from './patch-operation.js';

/** The array a PATCH array operator applies to: none yet is an empty one. */
export function arrayAt(current: unknown, path: string, op: string): unknown[] {
  if (current === null || current === undefined) return [];
  if (!Array.isArray(current)) fail(path, `${op} applies to arrays only`);
  return current;
}

/** The PATCH operators on arrays (`$push`, `$addToSet`, `$pull`, `$pullAll`, `$pullAllById`, `$move`). */
export function applyArrayOperator(items: unknown[], operation: PatchOperation, keys: ValueKeys): unknown[] {
  const { op, value, path } = operation;
  switch (op) {
    case '$push':
      return push(items, value, path);
    case '$addToSet':
      return addToSet(items, isPlainObject(value) && '$each' in value ? eachOf(value, path) : [value], keys);
    case '$pull':
      return items.filter((item) => !matches(item, value));
    case '$pullAll': {
      if (!Array.isArray(value)) fail(path, '$pullAll takes an array');
      const pulled = new Set(value.map((item) => keys.of(item)));
      return items.filter((item) => !pulled.has(keys.of(item)));
    }
    case '$pullAllById': {
      const ids = new Set(Array.isArray(value) ? value : [value]);
      return items.filter((item) => !(isPlainObject(item) && ids.has(item._id)) && !ids.has(item));
    }
    case '$move':
      return move(items, value, path);
    default:
      return fail(path, `Unknown operator ${op}`);
  }
}

/**
 * The same text for deep-equal JSON values, whatever the order of their keys: sets of these
 * keep `$addToSet` and `$pullAll` linear (pairwise comparison is quadratic in client-sized
 * lists). An object's key is kept until an operation changes it in place, so that a thousand
 * operations on one area read its widgets once, not a thousand times (a 15 MB area held the
 * event loop for 37 s). Recursion is bounded by the JSON depth limit.
 */
export class ValueKeys {
  readonly #known = new WeakMap<object, string>();

  of(value: unknown): string {
    if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'undefined';
    let key = this.#known.get(value);
    if (key === undefined) {
      key = this.#compute(value);
      this.#known.set(value, key);
    }
    return key;
  }

  forget(values: readonly unknown[]): void {
    for (const value of values) if (typeof value === 'object' && value !== null) this.#known.delete(value);
  }

  #compute(value: object): string {
    if (Array.isArray(value)) return `[${value.map((item) => this.of(item)).join(',')}]`;
    const record = value as Record<string, unknown>;
    const entries = Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${this.of(record[key])}`);
    return `{${entries.join(',')}}`;
  }
}

function addToSet(items: unknown[], additions: readonly unknown[], keys: ValueKeys): unknown[] {
  const seen = new Set(items.map((item) => keys.of(item)));
  const result = [...items];
  for (const item of additions) {
    const key = keys.of(item);
    if (!seen.has(key)) result.push(item);
    seen.add(key);
  }
  return result;
}

function eachOf(value: Record<string, unknown>, path: string): unknown[] {
  if (!Array.isArray(value.$each)) fail(path, '$each takes an array');
  return value.$each;
}

function push(items: unknown[], value: unknown, path: string): unknown[] {
  if (!(isPlainObject(value) && '$each' in value)) return [...items, value];
  const additions = eachOf(value, path);
  const index = insertionIndex(items, value, path);
  return [...items.slice(0, index), ...additions, ...items.slice(index)];
}

/** `$position`, `$before` or `$after`; an unknown anchor appends, as the original does. */
function insertionIndex(items: unknown[], spec: Record<string, unknown>, path: string): number {
  if (spec.$position !== undefined) {
    const position = spec.$position;
    if (typeof position !== 'number' || !Number.isInteger(position)) fail(path, '$position takes an integer');
    return position < 0 ? Math.max(0, items.length + position) : Math.min(position, items.length);
  }
  const anchor = spec.$before ?? spec.$after;
  const at = items.findIndex((item) => isPlainObject(item) && item._id === anchor);
  if (anchor === undefined || at === -1) return items.length;
  return spec.$before !== undefined ? at : at + 1;
}

function move(items: unknown[], spec: unknown, path: string): unknown[] {
  if (!isPlainObject(spec) || typeof spec.$item !== 'string') fail(path, '$move takes { $item, $before | $after }');
  const from = items.findIndex((item) => isPlainObject(item) && item._id === spec.$item);
  if (from === -1) fail(path, `No item with _id ${spec.$item}`);
  const rest = [...items];
  const [moved] = rest.splice(from, 1);
  const anchor = spec.$before ?? spec.$after;
  const at = rest.findIndex((item) => isPlainObject(item) && item._id === anchor);
  if (at === -1) fail(path, `No item with _id ${String(anchor)}`);
  rest.splice(spec.$before !== undefined ? at : at + 1, 0, moved);
  return rest;
}

/** `$pull` removes equal values, and objects whose properties include every property of the condition. */
function matches(item: unknown, condition: unknown): boolean {
  if (isDeepStrictEqual(item, condition)) return true;
  if (!isPlainObject(item) || !isPlainObject(condition)) return false;
  return Object.entries(condition).every(([key, v]) => Object.hasOwn(item, key) && isDeepStrictEqual(item[key], v));
}
