import type { FastifyInstance } from 'fastify';
import { InvalidRequestError, ValidationError } from '../../errors/app-error.js';

const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * JSON bodies: parsed with JSON.parse (which never touches prototypes), then refused when any
 * key anywhere is `__proto__`, `constructor` or `prototype`, naming its path, or when nesting
 * is deeper than any content needs.
 */
export function registerJsonBody(app: FastifyInstance, limits: { bodyLimit: number; maxDepth: number }): void {
  const { bodyLimit, maxDepth } = limits;
  // Only JSON is accepted (multipart uploads register their own parser): a text/plain body is a 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_request, raw, done) => {
    const text = typeof raw === 'string' ? raw : raw.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      return done(new InvalidRequestError(`Malformed JSON body: ${(error as Error).message}`), undefined);
    }
    try {
      checkKeys(body, '', 0, maxDepth);
    } catch (error) {
      return done(error as Error, undefined);
    }
    done(null, body);
  });
}

function checkKeys(value: unknown, path: string, depth: number, maxDepth: number): void {
  if (typeof value !== 'object' || value === null) return;
  if (depth > maxDepth) throw new InvalidRequestError(`The body is nested more than ${maxDepth} levels deep`);
  if (Array.isArray(value)) {
    value.forEach((item, index) => checkKeys(item, join(path, String(index)), depth + 1, maxDepth));
    return;
  }
  for (const key of Object.keys(value)) {
    const keyPath = join(path, key);
    if (forbiddenKeys.has(key) || key.split('.').some((segment) => forbiddenKeys.has(segment))) {
      throw new ValidationError([{ name: 'invalid', path: keyPath, message: `The key "${key}" is not allowed` }]);
    }
    checkKeys((value as Record<string, unknown>)[key], keyPath, depth + 1, maxDepth);
  }
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
