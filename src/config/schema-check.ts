import { Type, type TSchema, type Static } from '@sinclair/typebox';
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value';
import { ConfigError } from '../errors/app-error.js';
import { roles } from '../core/principal.js';

/** A role name, as in `apiKeys` and the role options of piece types. */
export const roleSchema = Type.Union(
  roles.map((name) => Type.Literal(name)),
  { errorMessage: `must be one of ${roles.join(', ')}` },
);

/** `/modules/@cms~1image/options` (JSON pointer) -> `modules.@cms/image.options`. */
export function pointerToKeyPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

export function joinPath(base: string, key: string): string {
  if (!base) return key;
  if (!key) return base;
  return `${base}.${key}`;
}

function describe(error: ValueError): string {
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    return 'unknown key';
  }
  const custom = (error.schema as { errorMessage?: unknown }).errorMessage;
  return typeof custom === 'string' ? custom : error.message.replace(/^Expected/, 'expected');
}

/** Throws a ConfigError naming the key path of the first structural mismatch. */
export function assertMatches<T extends TSchema>(schema: T, value: unknown, basePath: string): asserts value is Static<T> {
  const first = Value.Errors(schema, value).First();
  if (first) {
    throw new ConfigError(joinPath(basePath, pointerToKeyPath(first.path)), describe(first));
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
