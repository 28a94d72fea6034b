import type { FieldType } from './field-type.js';
import type { SanitizedField } from '../types/piece-type.js';
import { FieldFailure } from './field-type.js';
import { ConfigError } from '../../errors/app-error.js';
import { isValidId } from '../text.js';
import { keyPath } from './definition-checks.js';
import { isPlainObject } from './nested.js';

const unsafeKeys = new Set(['__proto__', 'constructor', 'prototype']);

function checkNameList(value: unknown, path: string): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string' || entry === '')) {
    throw new ConfigError(path, 'must be an array of non-empty strings');
  }
}

/** Group and extension limits apply to whatever the record says about itself. */
function checkAccepted(record: Record<string, unknown>, options: Readonly<Record<string, unknown>>): void {
  const groups = [...((options.fileGroups as string[] | undefined) ?? [])];
  if (typeof options.fileGroup === 'string') groups.push(options.fileGroup);
  const extensions = options.extensions as string[] | undefined;
  const groupRefused = groups.length > 0 && typeof record.group === 'string' && !groups.includes(record.group);
  const extensionRefused =
    extensions !== undefined && typeof record.extension === 'string' && !extensions.includes(record.extension);
  if (groupRefused || extensionRefused) {
    throw new FieldFailure('invalid', `File type ${String(record.extension ?? record.group)} was not accepted`);
  }
}

/** A copy of the record's own data; `_` properties other than `_id` are computed on read, not stored. */
function launder(input: unknown, field: SanitizedField): Record<string, unknown> | null {
  if (input === null) return null;
  if (!isPlainObject(input) || !isValidId(input._id)) {
    throw new FieldFailure('invalid', 'must be an attachment with a valid _id');
  }
  checkAccepted(input, field.options);
  const kept = Object.entries(input).filter(([key]) => !unsafeKeys.has(key) && (key === '_id' || !key.startsWith('_')));
  return JSON.parse(JSON.stringify(Object.fromEntries(kept))) as Record<string, unknown>;
}

export const attachmentField: FieldType = {
  name: 'attachment',
  definitionKeys: ['fileGroups', 'fileGroup', 'extensions'],
  validateDefinition(definition, ctx) {
    checkNameList(definition.fileGroups, keyPath(ctx, 'fileGroups'));
    checkNameList(definition.extensions, keyPath(ctx, 'extensions'));
    if (definition.fileGroup !== undefined && typeof definition.fileGroup !== 'string') {
      throw new ConfigError(keyPath(ctx, 'fileGroup'), 'must be a string');
    }
    if (definition.def !== undefined) throw new ConfigError(keyPath(ctx, 'def'), 'an attachment cannot have a default');
  },
  defaultValue: () => null,
  isEmpty: (value) => value === null || value === undefined,
  convert: (input, field) => launder(input, field),
};
