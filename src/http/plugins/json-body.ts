import type { FastifyInstance } from 'fastify';
import { InvalidRequestError, ValidationError } from '../../errors/app-error.js';

const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype']);

/** How much structure a JSON body may have (`limits.ts`: jsonDepth, arrayItems, objectKeys, bodyNodes, stringLength). */
export interface JsonShapeLimits {
  readonly maxDepth: number;
  /** Characters in one string value or key. */
  readonly maxStringLength: number;
  readonly maxArrayItems: number;
  readonly maxObjectKeys: number;
  /** Values of any kind in the whole body, containers included. */
  readonly maxNodes: number;
}

/**
 * JSON bodies: parsed with JSON.parse (which never touches prototypes), then refused, naming the
 * path, when any key anywhere is `__proto__`, `constructor` or `prototype`, or when the body has
 * more structure than any content needs. The checks run before anything else looks at the body,
 * so no later step (conversion, patch operators, storage) ever walks a client-sized structure.
 */
export function registerJsonBody(app: FastifyInstance, options: { bodyLimit: number; shape: JsonShapeLimits }): void {
  // Only JSON is accepted (multipart uploads register their own parser): a text/plain body is a 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: options.bodyLimit }, (_request, raw, done) => {
    const text = typeof raw === 'string' ? raw : raw.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      return done(new InvalidRequestError(`Malformed JSON body: ${(error as Error).message}`), undefined);
    }
    try {
      checkShape(body, '', 0, { limits: options.shape, nodes: 0 });
    } catch (error) {
      return done(error as Error, undefined);
    }
    done(null, body);
  });
}

interface Walk {
  readonly limits: JsonShapeLimits;
  nodes: number;
}

/** Depth first, counting as it goes: the first breach stops the walk, so a huge body costs no more than the limit. */
function checkShape(value: unknown, path: string, depth: number, walk: Walk): void {
  walk.nodes += 1;
  if (walk.nodes > walk.limits.maxNodes) refuse(path, `The body has more than ${walk.limits.maxNodes} values`);
  if (typeof value === 'string' && value.length > walk.limits.maxStringLength) {
    refuse(path, `A string may have at most ${walk.limits.maxStringLength} characters`);
  }
  if (typeof value !== 'object' || value === null) return;
  if (depth > walk.limits.maxDepth) refuse(path, `The body is nested more than ${walk.limits.maxDepth} levels deep`);
  if (Array.isArray(value)) {
    if (value.length > walk.limits.maxArrayItems) refuse(path, `An array may have at most ${walk.limits.maxArrayItems} items`);
    for (let index = 0; index < value.length; index++) checkShape(value[index], join(path, String(index)), depth + 1, walk);
    return;
  }
  const keys = Object.keys(value);
  if (keys.length > walk.limits.maxObjectKeys) refuse(path, `An object may have at most ${walk.limits.maxObjectKeys} keys`);
  for (const key of keys) {
    if (key.length > walk.limits.maxStringLength) refuse(path, `A key may have at most ${walk.limits.maxStringLength} characters`);
    const keyPath = join(path, key);
    if (forbiddenKeys.has(key) || key.split('.').some((segment) => forbiddenKeys.has(segment))) {
      refuse(keyPath, `The key "${key}" is not allowed`);
    }
    checkShape((value as Record<string, unknown>)[key], keyPath, depth + 1, walk);
  }
}

function refuse(path: string, message: string): never {
  throw new ValidationError([{ name: 'invalid', path, message, data: {} }]);
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
