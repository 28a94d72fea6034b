import { isDeepStrictEqual } from 'node:util';
import { ValidationError } from '../../errors/app-error.js';
import type { SanitizedField } from '../types/piece-type.js';

/**
 * PATCH bodies: plain keys, dot paths (`body.items.0.content`), at-notation (`@<id>.content`)
 * and MongoDB-style operators. Operators only move raw values around; the touched top-level
 * fields are then converted and validated like any other input, so a patch can never store
 * what an insert would refuse.
 */

const operators = ['$set', '$unset', '$inc', '$push', '$addToSet', '$pull', '$pullAll', '$pullAllById', '$move'] as const;
type Operator = (typeof operators)[number];

export interface PatchOperation {
  readonly op: Operator;
  readonly path: string;
  readonly value: unknown;
  /** Plain keys that name no field are ignored, as unknown properties are on insert. */
  readonly lenient: boolean;
}

const forbiddenSegments = new Set(['__proto__', 'constructor', 'prototype']);

function fail(path: string, message: string): never {
  throw new ValidationError([{ name: 'invalid', path, message }]);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Lists a PATCH body's operations in order; `_patches` applies several patch objects in turn
 * (one level, as the original reads it). At most `maxOperations`, `_patches` included.
 */
export function parsePatch(body: Record<string, unknown>, maxOperations: number): PatchOperation[] {
  const operations: PatchOperation[] = [];
  const add = (operation: PatchOperation, key: string) => {
    if (operations.length >= maxOperations) {
      fail(key, `A patch holds at most ${maxOperations} operations (limits.patchOperations)`);
    }
    operations.push(operation);
  };
  collectOperations(body, '', add);
  return operations;
}

function collectOperations(
  patch: Record<string, unknown>,
  prefix: string,
  add: (operation: PatchOperation, key: string) => void,
): void {
  for (const [key, value] of Object.entries(patch)) {
    if (key === '_patches') {
      if (prefix !== '') fail(`${prefix}_patches`, '_patches cannot hold _patches');
      if (!Array.isArray(value) || !value.every(isPlainObject)) fail('_patches', '_patches must be an array of objects');
      value.forEach((inner, index) => collectOperations(inner, `_patches.${index}.`, add));
    } else if (key.startsWith('$')) {
      if (!(operators as readonly string[]).includes(key)) fail(`${prefix}${key}`, `Unknown operator ${key}`);
      if (!isPlainObject(value)) fail(`${prefix}${key}`, `${key} takes an object of paths`);
      for (const [path, operand] of Object.entries(value)) {
        add({ op: key as Operator, path, value: operand, lenient: false }, `${prefix}${key}.${path}`);
      }
    } else if (key !== '_id') {
      add({ op: '$set', path: key, value, lenient: true }, `${prefix}${key}`);
    }
  }
}

export interface PatchTarget {
  /** The field a top-level key names (its name or an input alias such as `author` for `_author`). */
  fieldFor(key: string): SanitizedField | undefined;
  /** The field's current raw value (relationships: their ids). */
  current(field: SanitizedField): unknown;
  defaultValue(field: SanitizedField): unknown;
  readonly fields: readonly SanitizedField[];
}

/**
 * Applies the operations to working copies of the touched fields. Returns the raw input for
 * those fields, ready to convert.
 */
export function applyPatch(operations: readonly PatchOperation[], target: PatchTarget): Record<string, unknown> {
  const working = new Map<string, unknown>();
  const keys = new ValueKeys();
  const valueOf = (field: SanitizedField) =>
    working.has(field.name) ? working.get(field.name) : structuredClone(target.current(field) ?? null);
  // Finding an `@id` only reads: no copy of every field for each operation.
  const peek = (field: SanitizedField) => (working.has(field.name) ? working.get(field.name) : target.current(field));
  for (const operation of operations) {
    const located = locate(operation, target, peek);
    if (!located) continue;
    const { field, segments } = located;
    working.set(field.name, applyAt(valueOf(field), segments, operation, keys, () => target.defaultValue(field)));
  }
  return Object.fromEntries(working);
}

function locate(
  operation: PatchOperation,
  target: PatchTarget,
  peek: (field: SanitizedField) => unknown,
): { field: SanitizedField; segments: string[] } | null {
  const segments = operation.path.split('.');
  for (const segment of segments) {
    if (forbiddenSegments.has(segment)) fail(operation.path, `"${segment}" is not allowed in a path`);
    if (segment === '') fail(operation.path, 'Empty path segment');
  }
  const head = segments.shift()!;
  if (head.startsWith('@')) return locateById(head.slice(1), segments, operation.path, target, peek);
  const field = target.fieldFor(head);
  if (!field) {
    if (operation.lenient) return null;
    fail(operation.path, `No field named ${head}`);
  }
  return { field, segments };
}

/** `@<id>.rest`: the nested object (widget, array item, area) with that `_id`, anywhere in the document. */
function locateById(
  id: string,
  rest: string[],
  path: string,
  target: PatchTarget,
  peek: (field: SanitizedField) => unknown,
): { field: SanitizedField; segments: string[] } {
  for (const field of target.fields) {
    const found = findIdPath(peek(field), id);
    if (found) return { field, segments: [...found, ...rest] };
  }
  fail(path, `No item with _id ${id}`);
}

function findIdPath(value: unknown, id: string): string[] | null {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const inner = findIdPath(value[i], id);
      if (inner) return [String(i), ...inner];
    }
  } else if (isPlainObject(value)) {
    if (value._id === id) return [];
    for (const [key, child] of Object.entries(value)) {
      if (key.startsWith('_')) continue;
      const inner = findIdPath(child, id);
      if (inner) return [key, ...inner];
    }
  }
  return null;
}

function applyAt(root: unknown, segments: string[], operation: PatchOperation, keys: ValueKeys, defaultValue: () => unknown): unknown {
  if (segments.length === 0) return applyOperator(root, operation, keys, defaultValue);
  let parent: unknown = root;
  const changed = [root];
  for (const segment of segments.slice(0, -1)) {
    parent = child(parent, segment, operation.path);
    changed.push(parent);
  }
  const last = segments[segments.length - 1]!;
  if (Array.isArray(parent)) setInArray(parent, last, operation, keys);
  else if (isPlainObject(parent)) setInObject(parent, last, operation, keys);
  else fail(operation.path, 'Path does not exist');
  // Changed in place: whatever holds the changed value has another key now.
  keys.forget(changed);
  return root;
}

/**
 * An index is a plain decimal integer naming an item or, where a value is set, the length
 * (append). A larger one would make a sparse array whose holes every later step walks:
 * refused (this project's decisions table).
 */
function arrayIndex(items: readonly unknown[], segment: string, path: string, append: boolean): number {
  if (!/^(0|[1-9]\d*)$/.test(segment)) fail(path, `"${segment}" is not an array index`);
  const index = Number(segment);
  if (index > items.length || (index === items.length && !append)) {
    fail(path, `Index ${segment} is past the end of the array (${items.length} items)`);
  }
  return index;
}

function setInArray(items: unknown[], segment: string, operation: PatchOperation, keys: ValueKeys): void {
  const index = arrayIndex(items, segment, operation.path, operation.op !== '$unset');
  items[index] = operation.op === '$unset' ? null : applyOperator(items[index], operation, keys, () => null);
}

function setInObject(holder: Record<string, unknown>, key: string, operation: PatchOperation, keys: ValueKeys): void {
  if (operation.op === '$unset') delete holder[key];
  else holder[key] = applyOperator(Object.hasOwn(holder, key) ? holder[key] : undefined, operation, keys, () => null);
}

function child(parent: unknown, segment: string, path: string): unknown {
  if (Array.isArray(parent)) return parent[arrayIndex(parent, segment, path, false)];
  if (isPlainObject(parent) && Object.hasOwn(parent, segment)) return parent[segment];
  fail(path, `Path does not exist at "${segment}"`);
}

function applyOperator(current: unknown, operation: PatchOperation, keys: ValueKeys, defaultValue: () => unknown): unknown {
  const { op, value, path } = operation;
  switch (op) {
    case '$set':
      return value;
    case '$unset':
      return defaultValue();
    case '$inc': {
      if (typeof value !== 'number' || !Number.isFinite(value)) fail(path, '$inc takes a number');
      const base = current === null || current === undefined ? 0 : current;
      if (typeof base !== 'number') fail(path, '$inc applies to numbers only');
      return base + value;
    }
    default:
      return applyArrayOperator(arrayAt(current, path, op), operation, keys);
  }
}

function arrayAt(current: unknown, path: string, op: string): unknown[] {
  if (current === null || current === undefined) return [];
  if (!Array.isArray(current)) fail(path, `${op} applies to arrays only`);
  return current;
}

function applyArrayOperator(items: unknown[], operation: PatchOperation, keys: ValueKeys): unknown[] {
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
class ValueKeys {
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
