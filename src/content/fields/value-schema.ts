import type { SanitizedField } from '../types/piece-type.js';

/** A plain JSON Schema (2020-12) object, as OpenAPI 3.1 embeds it. */
export type JsonSchema = Record<string, unknown>;

/**
 * Which side of the API a schema describes: what GET answers to callers with API access
 * (`read`), what the public projection shows (`public`), or what POST/PUT accept (`write`).
 */
export type SchemaShape = 'read' | 'public' | 'write';

/** What a field type needs to describe values that hold other schemas. */
export interface ValueSchemaContext {
  readonly shape: SchemaShape;
  /** An object with the properties of `fields`, in this shape (array items, object values, `_fields`). */
  fieldsObject(fields: readonly SanitizedField[], base?: Readonly<Record<string, JsonSchema>>): JsonSchema;
  /** A reference to the documents of a piece type as this shape shows related ones. */
  relatedDocument(type: string): JsonSchema;
  /** A reference to the attachment object. */
  attachment(): JsonSchema;
  /** The widgets an area field accepts, each a reference to its widget schema in this shape. */
  areaWidgets(field: SanitizedField): JsonSchema[];
}

/**
 * The properties one field puts into a document of the given shape, by property name (a
 * relationship `author` answers `authorIds`, `authorFields` and `_author`). Empty: the field
 * shows nothing in that shape (a password is never read).
 */
export type FieldProperties = Record<string, JsonSchema>;

/** `type` with null allowed, for values that are absent until set. */
export function nullable(schema: JsonSchema): JsonSchema {
  const type = schema.type;
  if (typeof type === 'string') return { ...schema, type: [type, 'null'] };
  if (Array.isArray(schema.enum)) return { ...schema, enum: [...(schema.enum as unknown[]), null] };
  return { anyOf: [schema, { type: 'null' }] };
}

/** The common case: one property under the field's name, the same schema to read and write. */
export function ownProperty(field: SanitizedField, schema: JsonSchema): FieldProperties {
  return { [field.name]: schema };
}
