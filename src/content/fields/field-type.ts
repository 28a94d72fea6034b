import type { SanitizedField } from '../types/piece-type.js';
import type { Principal } from '../../core/principal.js';
import type { Mode } from '../../core/ids.js';
import type { AttachmentRecord, FilterCondition, FilterOperation, IndexEntry, IndexValue } from '../../storage/storage-adapter.js';
import type { PasswordLookup } from './password-hasher.js';
import type { Limits } from '../../config/limits.js';
import type { FieldProperties, ValueSchemaContext } from './value-schema.js';

/**
 * Thrown by a field type's `convert` when a value cannot be accepted. The schema walker adds
 * the path; nested schemas (array, object, area) pass their own collected errors in `errors`.
 */
export class FieldFailure extends Error {
  readonly failure: 'required' | 'invalid' | 'min' | 'max';
  readonly errors?: readonly { name: string; path: string; message?: string; data?: Record<string, unknown> }[];
  readonly data: Record<string, unknown>;

  constructor(
    failure: 'required' | 'invalid' | 'min' | 'max',
    message?: string,
    options: { errors?: FieldFailure['errors']; data?: Record<string, unknown> } = {},
  ) {
    super(message ?? failure);
    this.failure = failure;
    this.errors = options.errors;
    this.data = options.data ?? {};
  }
}

/** Existing documents a relationship may point at, looked up in one batch per call. */
export interface RelationshipLookup {
  /**
   * Returns, in input order, the documents of `type` among `refs` (each a full `_id`, a bare
   * `cmsDocId`) that exist in the given locale and mode, as `{ cmsDocId, values }` (`values`:
   * the stored version). Unknown references are left out.
   */
  resolve(type: string, refs: readonly string[]): Promise<{ cmsDocId: string; values?: Readonly<Record<string, unknown>> }[]>;
  /** False when the caller may not read documents of `type` at all. */
  canRead(type: string): boolean;
}

/** Uploaded files an attachment field may name, read in the transaction of the write. */
export interface AttachmentLookup {
  /** The record of the attachment with this `_id`, or null when there is none. */
  find(id: string): Promise<AttachmentRecord | null>;
}

/** Widget types by name, as configured (`@cms/rich-text` always present). */
export type WidgetTypes = ReadonlyMap<string, { readonly fields: readonly SanitizedField[] }>;

/** A stored object described by a schema: a document, an array item, an object value, a widget. */
export interface SchemaValues {
  readonly fields: readonly SanitizedField[];
  readonly values: Record<string, unknown>;
}

export interface ConvertContext {
  readonly locale: string | null;
  readonly mode: Mode | null;
  readonly principal: Principal;
  readonly relationships: RelationshipLookup;
  readonly attachments: AttachmentLookup;
  /** New unique id for areas, widgets and array items. */
  readonly newId: () => string;
  /** Converts a nested schema (array items, object values, widgets) with the same rules. */
  convertSchema(
    fields: readonly SanitizedField[],
    input: Record<string, unknown>,
    existing: Record<string, unknown> | undefined,
  ): Promise<Record<string, unknown>>;
  /** Widget type definitions by name, as configured (`@cms/rich-text` always present). */
  readonly widgetTypes: WidgetTypes;
  /** Password rules and the hashes made for this write (password fields never hash themselves). */
  readonly passwords: PasswordLookup;
  /** What one request may hold (`areaWidgets`...), checked before the work it would cost. */
  readonly limits: Limits;
  /** Rich-text characters this write has sent to the sanitizer, counted against `limits.documentBytes`. */
  readonly sanitizedCharacters: { count: number };
}

export interface DefinitionContext {
  /** Key path of the field in the configuration, for error messages. */
  readonly path: string;
  /** Names of every configured piece type (relationship `withType` must be one of them). */
  readonly pieceTypes: ReadonlySet<string>;
  /** Names of every configured widget type (an area's `options.widgets` must be among them). */
  readonly widgetTypes: ReadonlySet<string>;
  /** Sanitizes a nested `fields.add` (array, object) with the same rules. */
  sanitizeFields(add: unknown, path: string): SanitizedField[];
}

/** Documents a filter may have to look up (relationship filters by slug, choice labels). */
export interface FilterContext {
  readonly locale: string | null;
  readonly mode: Mode | null;
  readonly principal: Principal;
  /** The caller has API access to the listed type: it sees every property, related ids included. */
  readonly fullAccess: boolean;
  /**
   * Documents of `type` the caller can read in this locale and mode, matched by `cmsDocId` or by
   * slug. Empty when the caller cannot read the type at all.
   */
  findDocuments(
    type: string,
    by: { readonly docIds?: readonly string[]; readonly slugs?: readonly string[] },
  ): Promise<{ _id: string; cmsDocId: string; type: string; slug: string; title: string }[]>;
}

/** A distinct index value among a list's documents, with their number when counted. */
export interface HeldValue {
  readonly value: IndexValue;
  readonly count?: number;
}

/** One entry of `choices` / `counts` in a list response. */
export interface Choice {
  readonly value: IndexValue | boolean;
  readonly label: string;
  readonly count?: number;
  /** A related document's, on the choices of a relationship (the original's): the one `value` is not. */
  readonly _id?: string;
  readonly slug?: string;
  readonly type?: string;
  readonly metaType?: 'doc';
}

/**
 * A list filter a field offers under one query-string name (`category`, `_author`,
 * `authorAnd`...). It reads the index values the field type writes under `key`.
 */
export interface QueryFilter {
  readonly name: string;
  readonly key: string;
  /** The piece type whose documents the filter names: offered only to callers who may read it. */
  readonly targetType?: string;
  /** What the filter matches, for the OpenAPI document; default: a filter on its field. */
  readonly about?: string;
  /**
   * Launders the query-string value (a string, or an array or object as qs parses them).
   * Null: no filter (`any`, empty). Throws FieldFailure('invalid') for a malformed value.
   * A list of conditions, each on its own key, must all hold (a filter over several index keys).
   */
  parse(raw: unknown, ctx: FilterContext): ParsedFilter | Promise<ParsedFilter>;
  /**
   * The `choices` of this filter from the distinct index values of the matching documents, each
   * with the number of them holding it when the list counts them (`counts`), to be kept as `count`.
   */
  choices(values: readonly HeldValue[], ctx: FilterContext): Choice[] | Promise<Choice[]>;
}

/** A filter's laundered value: one operation on its key, conditions on keys of its own, or none. */
export type ParsedFilter = FilterOperation | readonly FilterCondition[] | null;

/** Text a field contributes to search: `high` ranks above body text (`low`). */
export interface SearchText {
  readonly text: string;
  readonly weight: 'high' | 'low';
}

/**
 * What a field's HTML inside a generic widget may call back into (`content/rendering`): nested
 * areas and schemas, and related documents loaded before rendering.
 */
export interface FieldHtmlContext {
  renderArea(area: unknown): string;
  renderFields(values: Readonly<Record<string, unknown>>, fields: readonly SanitizedField[]): string;
  renderRelated(docs: unknown): string;
}

/**
 * One field type: a boot half (`validateDefinition`) that checks a definition once, and a
 * request half (`convert`) that launders every incoming value. Registered in `registry.ts`.
 */
export interface FieldType {
  readonly name: string;
  /** Keys a definition of this type may carry besides the common ones (type, label, help, required, def). */
  readonly definitionKeys: readonly string[];
  /** Boot: throws ConfigError naming `ctx.path` when the definition is unusable. */
  validateDefinition?(definition: Record<string, unknown>, ctx: DefinitionContext): void;
  /** Value of the field in a new document when the input does not name it (`newId` for areas and objects). */
  defaultValue(field: SanitizedField, newId: () => string): unknown;
  /**
   * The properties the field gives a `_newInstance` answer when they differ from its default
   * (relationships: `null` under their name; objects: `nested` of their fields).
   */
  newInstanceValue?(field: SanitizedField, nested: (fields: readonly SanitizedField[]) => Record<string, unknown>): Record<string, unknown>;
  /** True when the value counts as absent for `required`. */
  isEmpty(value: unknown): boolean;
  /**
   * Launders an input value (never undefined: absent inputs are handled by the walker) into the
   * stored value. `existing` is the value currently stored, for types that keep ids or secrets.
   * `container` is the whole stored document (or nested object) the value lives in, for types
   * whose stored state spans several keys (a relationship's `_fields`). Throws FieldFailure.
   */
  convert(
    input: unknown,
    field: SanitizedField,
    ctx: ConvertContext,
    existing: unknown,
    container?: Readonly<Record<string, unknown>>,
  ): unknown | Promise<unknown>;
  /**
   * A stored value that did not come through `convert` (`cms import`) laundered again as
   * `convert` would have stored it; the identity on what `convert` stored. Throws FieldFailure.
   */
  restore?(value: unknown, field: SanitizedField): unknown;
  /** Where the stored value lives in a document; default: under `field.name`. */
  storageKeys?(field: SanitizedField): readonly string[];
  /** Writes a converted value into a document; default `doc[field.name] = value`. */
  write?(doc: Record<string, unknown>, field: SanitizedField, value: unknown): void;
  /** Reads the stored value back out of a document; default `doc[field.name]`. */
  read?(doc: Record<string, unknown>, field: SanitizedField): unknown;
  /** Input keys that address this field besides its name (relationship `author` for `_author`). */
  inputKeys?(field: SanitizedField): readonly string[];
  /**
   * When true, a full conversion (insert/replace) that does not name the field keeps the stored
   * value instead of resetting it to the default: a PUT built from a GET, which never shows a
   * password, must not wipe the password.
   */
  readonly keepsExistingWhenAbsent?: boolean;
  /** Values the filter index holds for this field of a stored document (top-level fields only). */
  indexValues?(doc: Record<string, unknown>, field: SanitizedField): IndexValue[];
  /**
   * Index values under keys of the field's own besides its index key (`attachment:width`), for
   * filters that read several keys (top-level fields only).
   */
  indexEntries?(doc: Record<string, unknown>, field: SanitizedField): IndexEntry[];
  /** The list filters this field offers; they read what `indexValues` wrote under their `key`. */
  filters?(field: SanitizedField): QueryFilter[];
  /** Searchable text of a stored value (nested schemas included). */
  searchTexts?(value: unknown, field: SanitizedField): SearchText[];
  /** The schema-described objects inside a stored value (array items, an object, widgets), for schema walks. */
  nested?(value: unknown, field: SanitizedField, widgetTypes: WidgetTypes): SchemaValues[];
  /**
   * The JSON Schema of what the field puts into a document read or written through the API
   * (`ctx.shape`), by property name: the OpenAPI document is built from these.
   */
  valueSchemas(field: SanitizedField, ctx: ValueSchemaContext): FieldProperties;
  /** True when the stored value (a password hash) never leaves the server: answers and renderings leave the field out. */
  readonly secret?: boolean;
  /**
   * True when this caller may not set the field's stored value, so a write keeps the one stored
   * now: `convert` keeps it (a PATCH), and so does a write that copies stored content into a
   * version (a restore from history, a localize with `update`; see keep-stored-values.ts).
   * `canRead`: whether the caller may read documents of a type.
   */
  keepsStoredValue?(field: SanitizedField, canRead: (type: string) => boolean): boolean;
  /** Shows documents of another piece type: by the ids it stores (`forward`), or by theirs naming this one (`reverse`). */
  readonly relates?: 'forward' | 'reverse';
  /**
   * The documents a stored value names outside any relationship field, by piece type: rich
   * text's inline images (`imageIds`). Only the value's own level: what `nested` yields is walked
   * on its own. They are kept in the named documents' `relatedReverseIds` as relationships are.
   */
  inlineReferences?(value: unknown): ReadonlyMap<string, readonly string[]>;
  /** The piece types `inlineReferences` may name for this definition (an area that allows rich text: images). */
  inlineReferenceTypes?(field: SanitizedField): readonly string[];
  /** The widget types the field's value holds (an area's, `all` when it names none); undefined: it holds no widgets. */
  widgetTypesIn?(field: SanitizedField, all: readonly string[]): readonly string[];
  /** HTML of the field's value in a widget without a renderer of its own; default: its scalar text, escaped. */
  renderHtml?(values: Readonly<Record<string, unknown>>, field: SanitizedField, ctx: FieldHtmlContext): string;
}
