import { operators, fail, isPlainObject, type Operator, type PatchOperation } from './patch-operation.js';
import { applyArrayOperator, arrayAt, ValueKeys } from './patch-array-operators.js';
import type { SanitizedField } from '../types/piece-type.js';

/**
 * PATCH bodies: plain keys, dot paths (`body.items.0.content`), at-notation (`@<id>.content`)
 * and MongoDB-style operators. Operators only move raw values around; the touched top-level
 * fields are then converted and validated like any other input, so a patch can never store
 * what an insert would refuse.
 */

const forbiddenSegments = new Set(['__proto__', 'constructor', 'prototype']);

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
    // A plain key naming no field is dropped, as on insert; a dot path must lead through what
    // the document holds (`toString.call` reaches nothing of it), as in the original.
    if (operation.lenient && segments.length === 0) return null;
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

