import type { FieldType } from '../fields/field-type.js';
import type { SanitizedField } from './piece-type.js';
import { ConfigError } from '../../errors/app-error.js';
import { isPlainObject, joinPath } from '../../config/schema-check.js';
import { relationshipTarget } from '../fields/relationship.js';
import { defaultRelationshipFields } from './builtin-types.js';
import { checkLocalizedText, defaultText, type LocalizedText } from './localized-text.js';

/** What the sanitizer needs of the field-type registry (`FieldTypeRegistry` satisfies it). */
export interface FieldTypeLookup {
  get(name: string): FieldType | undefined;
}

export interface FieldSchemaContext {
  readonly fieldTypes: FieldTypeLookup;
  /** Every piece type name, configured or built in (relationship `withType`). */
  readonly pieceTypes: ReadonlySet<string>;
  /** Every widget type name (area `options.widgets`). */
  readonly widgetTypeNames: ReadonlySet<string>;
  /** Names this schema may not use because its container stores something under them. */
  readonly reservedNames: ReadonlySet<string>;
  /**
   * The owner of the schema as the original names it, `doc.<type>` or `widget.<type>`: arrays and
   * objects at any depth in it are `<owner>.<field>` (SanitizedField `scopedName`).
   */
  readonly owner?: string;
}

const commonKeys = ['type', 'label', 'help', 'required', 'def'];
const fieldNamePattern = /^_?[A-Za-z][A-Za-z0-9]*$/;
const prototypeKeys = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf'];

/** Properties of every document the service writes itself. */
export const documentReservedNames: ReadonlySet<string> = new Set([
  ...prototypeKeys,
  ...['_id', '_url', '_parentUrl', '_parentSlug', '_prevAttachmentId', '_edit', '_publish', '_docId', '_fields'],
  ...['cmsDocId', 'cmsLocale', 'cmsMode', 'type', 'metaType', 'createdAt', 'updatedAt', 'updatedBy'],
  ...['lastPublishedAt', 'lastPublishedBy', 'modified', 'cacheInvalidatedAt', 'titleSortified'],
  ...['highSearchText', 'highSearchWords', 'lowSearchText', 'searchSummary', 'historicUrls'],
  ...['relatedReverseIds', 'archivedAt', 'cmsPlaceholder'],
]);

/** Properties of array items, objects and widgets the service writes itself. */
export const nestedReservedNames: ReadonlySet<string> = new Set([
  ...prototypeKeys,
  ...['_id', '_edit', '_docId', 'type', 'metaType', 'scopedArrayName', 'scopedObjectName', 'cmsPlaceholder'],
]);

/** The field types whose values carry their field's `scopedName` (`scopedArrayName` on each item, `scopedObjectName`). */
const scopedTypes: ReadonlySet<string> = new Set(['array', 'object']);

/** `startDate` -> `Start Date`, `_author` -> `Author`. */
export function humanize(name: string): string {
  const words = name.replace(/^_/, '').replace(/([a-z0-9])([A-Z])/g, '$1 $2');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Sanitizes a `fields.add` object into an ordered schema. */
export function sanitizeFields(add: unknown, path: string, ctx: FieldSchemaContext): SanitizedField[] {
  if (add === undefined) return [];
  if (!isPlainObject(add)) {
    throw new ConfigError(path, 'must be an object mapping field names to definitions');
  }
  const fields = Object.entries(add).map(([name, definition]) =>
    sanitizeField(name, definition, joinPath(path, name), ctx),
  );
  assertNoStorageCollisions(fields, path, ctx.fieldTypes);
  return fields;
}

export function sanitizeField(name: string, definition: unknown, path: string, ctx: FieldSchemaContext): SanitizedField {
  checkFieldName(name, path, ctx.reservedNames);
  if (!isPlainObject(definition)) {
    throw new ConfigError(path, 'a field definition must be an object');
  }
  const fieldType = lookUpType(definition.type, joinPath(path, 'type'), ctx.fieldTypes);
  checkDefinitionKeys(definition, path, fieldType);
  checkCommonKeys(definition, path);
  fieldType.validateDefinition?.(definition, {
    path,
    pieceTypes: ctx.pieceTypes,
    widgetTypes: ctx.widgetTypeNames,
    sanitizeFields: (nested, nestedPath) => sanitizeFields(nested, nestedPath, nestedContext(ctx)),
  });
  return buildField(name, definition, path, fieldType, ctx);
}

function checkFieldName(name: string, path: string, reserved: ReadonlySet<string>): void {
  if (!fieldNamePattern.test(name)) {
    throw new ConfigError(path, 'a field name is letters and digits, starting with a letter or "_" and a letter');
  }
  if (reserved.has(name)) {
    throw new ConfigError(path, `"${name}" is a reserved name`);
  }
}

function lookUpType(type: unknown, path: string, fieldTypes: FieldTypeLookup): FieldType {
  const fieldType = typeof type === 'string' ? fieldTypes.get(type) : undefined;
  if (!fieldType) {
    const shown = typeof type === 'string' ? `"${type}"` : String(type);
    throw new ConfigError(path, type === undefined ? 'a field needs a type' : `unknown field type ${shown}`);
  }
  return fieldType;
}

function checkDefinitionKeys(definition: Record<string, unknown>, path: string, fieldType: FieldType): void {
  for (const key of Object.keys(definition)) {
    if (!commonKeys.includes(key) && !fieldType.definitionKeys.includes(key)) {
      throw new ConfigError(joinPath(path, key), 'unknown key');
    }
  }
}

function checkCommonKeys(definition: Record<string, unknown>, path: string): void {
  for (const key of ['label', 'help']) {
    if (definition[key] !== undefined) checkLocalizedText(definition[key], joinPath(path, key));
  }
  if (definition.required !== undefined && typeof definition.required !== 'boolean') {
    throw new ConfigError(joinPath(path, 'required'), 'must be true or false');
  }
}

/** A field's label and help: as configured for the admin's schema, and resolved to one string for the rest. */
function fieldTexts(name: string, definition: Record<string, unknown>) {
  const labelText = definition.label === undefined ? humanize(name) : structuredClone(definition.label as LocalizedText);
  const helpText = definition.help === undefined ? undefined : structuredClone(definition.help as LocalizedText);
  return {
    label: defaultText(labelText),
    labelText,
    ...(helpText !== undefined && { help: defaultText(helpText), helpText }),
  };
}

function nestedContext(ctx: FieldSchemaContext): FieldSchemaContext {
  return { ...ctx, reservedNames: nestedReservedNames };
}

function buildField(
  name: string,
  definition: Record<string, unknown>,
  path: string,
  fieldType: FieldType,
  ctx: FieldSchemaContext,
): SanitizedField {
  const options: Record<string, unknown> = {};
  for (const key of fieldType.definitionKeys) {
    if (definition[key] !== undefined) options[key] = copyData(definition[key], joinPath(path, key));
  }
  return {
    name,
    type: fieldType.name,
    ...fieldTexts(name, definition),
    required: (definition.required as boolean | undefined) ?? false,
    ...(definition.def !== undefined && { def: copyData(definition.def, joinPath(path, 'def')) }),
    options,
    fields: nestedFields(withTypeRelationshipFields(name, definition, fieldType), path, ctx),
    ...(ctx.owner !== undefined && scopedTypes.has(fieldType.name) && { scopedName: `${ctx.owner}.${name}` }),
  };
}

/**
 * A relationship without `fields` of its own takes those its target type gives relationships
 * to it (images: the crop box and focal point), as the original's `relationshipFields`.
 */
function withTypeRelationshipFields(name: string, definition: Record<string, unknown>, fieldType: FieldType): Record<string, unknown> {
  if (fieldType.name !== 'relationship' || definition.fields !== undefined) return definition;
  const fields = defaultRelationshipFields(relationshipTarget(name, definition.withType));
  return fields ? { ...definition, fields } : definition;
}

/** Array and object fields (and any type whose definition carries `fields.add`) get a nested schema. */
function nestedFields(definition: Record<string, unknown>, path: string, ctx: FieldSchemaContext): SanitizedField[] {
  const fields = definition.fields;
  if (fields === undefined) return [];
  const fieldsPath = joinPath(path, 'fields');
  if (!isPlainObject(fields)) {
    throw new ConfigError(fieldsPath, 'must be an object with "add"');
  }
  for (const key of Object.keys(fields)) {
    if (key !== 'add') throw new ConfigError(joinPath(fieldsPath, key), 'unknown key');
  }
  return sanitizeFields(fields.add, joinPath(fieldsPath, 'add'), nestedContext(ctx));
}

/** The result is frozen, so configuration values are copied rather than frozen in the caller's hands. */
function copyData(value: unknown, path: string): unknown {
  try {
    return structuredClone(value);
  } catch {
    throw new ConfigError(path, 'must be plain data (no functions or class instances)');
  }
}

/** `_author` stores `authorIds` and accepts `author`: no other field may use those names. */
function assertNoStorageCollisions(fields: readonly SanitizedField[], path: string, fieldTypes: FieldTypeLookup): void {
  const owners = new Map<string, string>();
  for (const field of fields) {
    const fieldType = fieldTypes.get(field.type);
    const keys = new Set([
      field.name,
      ...(fieldType?.storageKeys?.(field) ?? []),
      ...(fieldType?.inputKeys?.(field) ?? []),
    ]);
    for (const key of keys) {
      const owner = owners.get(key);
      if (owner !== undefined) {
        throw new ConfigError(joinPath(path, field.name), `conflicts with field "${owner}" (both use "${key}")`);
      }
      owners.set(key, field.name);
    }
  }
}
