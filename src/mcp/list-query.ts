import { InvalidRequestError } from '../errors/app-error.js';
import { isPlainObject } from '../config/schema-check.js';

/**
 * A tool's typed arguments as the query string of the REST list route, as qs parses one: every
 * leaf a string (`perPage: 10` → `"10"`, `true` → `"true"`), arrays and objects kept, so the
 * list operation launders them exactly as it launders `GET /api/v1/<type>?…`.
 */

/** Nested deeper than this, a filter is refused: no filter of the REST list goes near it. */
const maxFilterDepth = 8;
/** The keys qs drops and a body refuses (apostrophe-facts: `__proto__` is a 400 naming the path). */
const prototypeKeys = new Set(['__proto__', 'constructor', 'prototype']);

export function asQueryValue(value: unknown, path: string, depth = 0): unknown {
  if (depth > maxFilterDepth) throw new InvalidRequestError(`${path} is nested too deeply`, { path });
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return '';
  if (Array.isArray(value)) return value.map((item, index) => asQueryValue(item, `${path}.${index}`, depth + 1));
  if (!isPlainObject(value)) throw new InvalidRequestError(`${path} must be a string, number, boolean, array or object`, { path });
  const entries = Object.entries(value).map(([key, item]) => {
    if (prototypeKeys.has(key)) throw new InvalidRequestError(`${path}.${key} is not a field name`, { path: `${path}.${key}` });
    return [key, asQueryValue(item, `${path}.${key}`, depth + 1)] as const;
  });
  return Object.fromEntries(entries);
}

export interface FindArguments {
  readonly search?: string;
  readonly filters?: Record<string, unknown>;
  readonly sort?: Record<string, 1 | -1> | 'search';
  readonly page?: number;
  readonly perPage?: number;
  readonly cursor?: string;
}

/**
 * The list query of `findDocuments`: the filters first, so that a filter named as one of the
 * tool's own arguments (`page`) cannot override it.
 */
export function listQueryOf(args: FindArguments): Record<string, unknown> {
  const { filters, ...named } = args;
  const query = filters === undefined ? {} : (asQueryValue(filters, 'filters') as Record<string, unknown>);
  for (const [name, value] of Object.entries(named)) {
    if (value !== undefined) query[name] = asQueryValue(value, name);
  }
  return query;
}
