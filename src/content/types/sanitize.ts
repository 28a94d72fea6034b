import type { PieceTypeOptions, SanitizedField, SanitizedPieceType } from './piece-type.js';
import { ConfigError } from '../../errors/app-error.js';
import { assertMatches, isPlainObject, joinPath } from '../../config/schema-check.js';
import { deepFreeze } from '../../config/deep-freeze.js';
import {
  basePieceFields,
  builtinPieceTypeNames,
  builtinPieceTypes,
  builtinWidgetTypes,
  permanentFieldNames,
  type RawFieldDefinition,
  type RawModule,
} from './builtin-types.js';
import { moduleSchema, widgetSchema } from './module-schema.js';
import { previewOptionOf } from './preview-option.js';
import { reviewOptionOf } from './review-option.js';
import { defaultText, type LocalizedText } from './localized-text.js';
import type { ConfiguredPreview } from './module-schema.js';
import { listColumnsOf, type ConfiguredColumns } from './list-columns.js';
import { checkReverseRelationships } from '../fields/relationship-reverse.js';
import {
  documentReservedNames,
  nestedReservedNames,
  sanitizeFields,
  type FieldSchemaContext,
  type FieldTypeLookup,
} from './sanitize-fields.js';

export { sanitizeFields, humanize, type FieldSchemaContext, type FieldTypeLookup } from './sanitize-fields.js';

export interface PieceTypeSanitizeContext {
  readonly fieldTypes: FieldTypeLookup;
  readonly widgetTypeNames: ReadonlySet<string>;
}

export interface WidgetTypeSanitizeContext {
  readonly fieldTypes: FieldTypeLookup;
  readonly pieceTypeNames: ReadonlySet<string>;
}

export type SanitizedWidgetType = { readonly fields: readonly SanitizedField[] };

export const richTextWidgetName = '@cms/rich-text';

const pieceTypeNamePattern = /^(@cms\/)?[a-z][a-z0-9-]*$/;
const widgetTypeNamePattern = /^[a-z][a-z0-9-]*$/;

type ModuleEntry = {
  extend?: string;
  options?: Record<string, unknown>;
  fields?: { add?: Record<string, unknown>; remove?: string[] };
};

function builtinModule(name: string): RawModule | undefined {
  return Object.hasOwn(builtinPieceTypes, name) ? builtinPieceTypes[name] : undefined;
}

function modulesAsObject(modules: unknown): Record<string, unknown> {
  if (modules === undefined) return {};
  if (!isPlainObject(modules)) throw new ConfigError('modules', 'must be an object mapping piece type names to definitions');
  return modules;
}

/** Every piece type name, built in or configured, after checking the configured names. */
export function pieceTypeNamesOf(modules: unknown): Set<string> {
  const names = new Set(builtinPieceTypeNames);
  for (const name of Object.keys(modulesAsObject(modules))) {
    if (!pieceTypeNamePattern.test(name)) {
      throw new ConfigError(joinPath('modules', name), 'a piece type name is lowercase letters, digits and "-", starting with a letter');
    }
    if (name.startsWith('@cms/') && !builtinPieceTypeNames.has(name)) {
      throw new ConfigError(joinPath('modules', name), `"@cms/" names are reserved; the built-in piece types are ${[...builtinPieceTypeNames].join(', ')}`);
    }
    names.add(name);
  }
  return names;
}

/** Sanitizes the built-in piece types and the configured `modules` into frozen piece types. */
export function sanitizePieceTypes(modules: unknown, ctx: PieceTypeSanitizeContext): Map<string, SanitizedPieceType> {
  const configured = modulesAsObject(modules);
  const fieldContext: FieldSchemaContext = {
    fieldTypes: ctx.fieldTypes,
    pieceTypes: pieceTypeNamesOf(configured),
    widgetTypeNames: ctx.widgetTypeNames,
    reservedNames: documentReservedNames,
  };
  const pieceTypes = new Map<string, SanitizedPieceType>();
  for (const name of fieldContext.pieceTypes) {
    pieceTypes.set(name, sanitizePieceType(name, Object.hasOwn(configured, name) ? configured[name] : {}, fieldContext));
  }
  // Reverse relationships read another type's fields: checked once every type is known.
  checkReverseRelationships(pieceTypes);
  return deepFreeze(pieceTypes);
}

function sanitizePieceType(name: string, entry: unknown, ctx: FieldSchemaContext): SanitizedPieceType {
  const path = joinPath('modules', name);
  const module = checkModuleEntry(name, entry, path);
  const options = pieceTypeOptions(name, module.options ?? {}, path);
  const definitions = mergeFieldDefinitions(name, module, path);
  const fields = sanitizeFields(definitions, joinPath(path, 'fields.add'), { ...ctx, owner: `doc.${name}` });
  const fallbackFields = fallbackFieldsOf(module.options?.fallbackFields, fields, joinPath(path, 'options.fallbackFields'));
  const preview = previewOptionOf(module.options?.preview as ConfiguredPreview | undefined, joinPath(path, 'options.preview'));
  const fieldsByName = new Map(fields.map((field) => [field.name, field]));
  const columns = listColumnsOf(module.options?.columns as ConfiguredColumns | undefined, fieldsByName, joinPath(path, 'options.columns'));
  const review = reviewOptionOf(module.options?.review, joinPath(path, 'options.review'), options);
  return { name, options: { ...options, fallbackFields, preview, columns, review }, fields, fieldsByName };
}

function checkModuleEntry(name: string, entry: unknown, path: string): ModuleEntry {
  assertMatches(moduleSchema, entry, path);
  if (entry.extend === undefined && !builtinPieceTypeNames.has(name)) {
    throw new ConfigError(joinPath(path, 'extend'), 'required: a piece type must extend "@cms/piece-type"');
  }
  return entry;
}

function pieceTypeOptions(name: string, configured: Record<string, unknown>, path: string): PieceTypeOptions {
  if (name === '@cms/user' && configured.localized === true) {
    throw new ConfigError(joinPath(path, 'options.localized'), 'users are never localized');
  }
  // Copied: the frozen result must not share objects with the caller's configuration. `preview`
  // may hold a function, which cannot be cloned: sanitizePieceType reads it.
  const { preview: _preview, ...cloneable } = configured;
  const merged = structuredClone({ ...builtinModule(name)?.options, ...cloneable });
  const labelText = (merged.label as LocalizedText | undefined) ?? name;
  const label = defaultText(labelText);
  const pluralLabelText = (merged.pluralLabel as LocalizedText | undefined) ?? `${label}s`;
  return {
    label,
    pluralLabel: defaultText(pluralLabelText),
    labelText,
    pluralLabelText,
    perPage: (merged.perPage as number | undefined) ?? 10,
    publicApiProjection: (merged.publicApiProjection as PieceTypeOptions['publicApiProjection'] | undefined) ?? null,
    pagePath: (merged.pagePath as string | undefined) ?? null,
    localized: (merged.localized as boolean | undefined) ?? true,
    slugPrefix: (merged.slugPrefix as string | undefined) ?? '',
    sort: (merged.sort as PieceTypeOptions['sort'] | undefined) ?? { updatedAt: -1 },
    viewRole: (merged.viewRole as PieceTypeOptions['viewRole'] | undefined) ?? null,
    editRole: (merged.editRole as PieceTypeOptions['editRole'] | undefined) ?? 'contributor',
    publishRole: (merged.publishRole as PieceTypeOptions['publishRole'] | undefined) ?? 'editor',
    autopublish: (merged.autopublish as boolean | undefined) ?? false,
    history: historyRetention(merged.history as HistoryOption | undefined),
    fallbackFields: [],
    preview: null,
    columns: [],
    review: null,
  };
}

type HistoryOption = { maxEntries?: number; maxPublishEntries?: number; maxAgeDays?: number };

function historyRetention(configured: HistoryOption | undefined): PieceTypeOptions['history'] {
  return {
    maxEntries: configured?.maxEntries ?? null,
    maxPublishEntries: configured?.maxPublishEntries ?? null,
    maxAgeDays: configured?.maxAgeDays ?? null,
  };
}

/** Fields a locale's own slug, visibility and archived state decide: never filled from another locale. */
const ownFields = new Set(['slug', 'visibility', 'archived']);

/** `options.fallbackFields` as field names: `true` every field but `ownFields`; a name no field has stops the start. */
function fallbackFieldsOf(configured: unknown, fields: readonly SanitizedField[], path: string): string[] {
  if (configured === undefined || configured === false) return [];
  if (configured === true) return fields.map((field) => field.name).filter((name) => !ownFields.has(name));
  const names = configured as string[];
  for (const name of names) {
    if (!fields.some((field) => field.name === name) || ownFields.has(name)) throw new ConfigError(path, `"${name}" is no field that may fall back`);
  }
  return [...new Set(names)];
}

/** Base (or built-in) fields first, then the module's additions; redefinitions keep their place. */
function mergeFieldDefinitions(name: string, module: ModuleEntry, path: string): Record<string, unknown> {
  const base = builtinModule(name)?.fields?.add ?? basePieceFields;
  const definitions = new Map<string, unknown>(Object.entries(base));
  const addPath = joinPath(path, 'fields.add');
  for (const [fieldName, definition] of Object.entries(module.fields?.add ?? {})) {
    const baseDefinition = Object.hasOwn(base, fieldName) ? base[fieldName] : undefined;
    const merged = baseDefinition ? redefineBaseField(baseDefinition, definition, joinPath(addPath, fieldName)) : definition;
    definitions.set(fieldName, merged);
  }
  removeFields(definitions, module.fields?.remove ?? [], joinPath(path, 'fields.remove'));
  return Object.fromEntries(definitions);
}

function redefineBaseField(base: RawFieldDefinition, definition: unknown, path: string): unknown {
  if (!isPlainObject(definition)) return definition;
  if (definition.type !== undefined && definition.type !== base.type) {
    throw new ConfigError(joinPath(path, 'type'), `a built-in field keeps its type "${String(base.type)}"`);
  }
  if (base.required === true && definition.required === false) {
    throw new ConfigError(joinPath(path, 'required'), 'a required built-in field stays required');
  }
  return { ...base, ...definition };
}

function removeFields(definitions: Map<string, unknown>, names: readonly string[], path: string): void {
  names.forEach((fieldName, index) => {
    const itemPath = joinPath(path, String(index));
    const definition = definitions.get(fieldName);
    if (definition === undefined) {
      throw new ConfigError(itemPath, `there is no field "${fieldName}" to remove`);
    }
    if (permanentFieldNames.has(fieldName) || (isPlainObject(definition) && definition.required === true)) {
      throw new ConfigError(itemPath, `the field "${fieldName}" cannot be removed`);
    }
    definitions.delete(fieldName);
  });
}

function widgetsAsObject(widgets: unknown): Record<string, unknown> {
  if (widgets === undefined) return {};
  if (!isPlainObject(widgets)) throw new ConfigError('widgets', 'must be an object mapping widget type names to definitions');
  return widgets;
}

/** Every widget type name: the built-in ones (`@cms/rich-text`, `@cms/image`) and the configured ones. */
export function widgetTypeNamesOf(widgets: unknown): Set<string> {
  const names = new Set([richTextWidgetName, ...Object.keys(builtinWidgetTypes)]);
  for (const name of Object.keys(widgetsAsObject(widgets))) {
    if (!widgetTypeNamePattern.test(name)) {
      const reason = name.startsWith('@cms/') ? '"@cms/" widget types are built in' : 'a widget type name is lowercase letters, digits and "-"';
      throw new ConfigError(joinPath('widgets', name), reason);
    }
    names.add(name);
  }
  return names;
}

/**
 * Sanitizes the built-in and the configured widget types; `@cms/rich-text` is always there, with
 * no schema fields. Built-in types go through the same field sanitizer as configured ones.
 */
export function sanitizeWidgetTypes(widgets: unknown, ctx: WidgetTypeSanitizeContext): Map<string, SanitizedWidgetType> {
  const configured = widgetsAsObject(widgets);
  const fieldContext: FieldSchemaContext = {
    fieldTypes: ctx.fieldTypes,
    pieceTypes: ctx.pieceTypeNames,
    widgetTypeNames: widgetTypeNamesOf(configured),
    reservedNames: nestedReservedNames,
  };
  const widgetTypes = new Map<string, SanitizedWidgetType>([[richTextWidgetName, { fields: [] }]]);
  for (const [name, entry] of Object.entries(builtinWidgetTypes)) {
    const path = joinPath(joinPath('widgets', name), 'fields.add');
    widgetTypes.set(name, { fields: sanitizeFields(entry.fields.add, path, { ...fieldContext, owner: `widget.${name}` }) });
  }
  for (const [name, entry] of Object.entries(configured)) {
    const path = joinPath('widgets', name);
    assertMatches(widgetSchema, entry, path);
    widgetTypes.set(name, { fields: sanitizeFields(entry.fields?.add, joinPath(path, 'fields.add'), { ...fieldContext, owner: `widget.${name}` }) });
  }
  return deepFreeze(widgetTypes);
}
