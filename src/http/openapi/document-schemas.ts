import { reviewSchema } from './review-schema.js';
import type { AppConfig } from '../../content/app-config.js';
import type { SanitizedField, SanitizedPieceType } from '../../content/types/piece-type.js';
import type { FieldTypeLookup } from '../../content/fields/convert-schema.js';
import type { FieldProperties, JsonSchema, SchemaShape, ValueSchemaContext } from '../../content/fields/value-schema.js';
import { allowedWidgetTypes } from '../../content/fields/area-options.js';
import { richTextWidgetType } from '../../content/fields/rich-text.js';
import { keptBy } from '../../content/query/projection.js';
import { basePieceFields, permanentFieldNames } from '../../content/types/builtin-types.js';
import { documentReservedNames, sanitizeFields } from '../../content/types/sanitize-fields.js';
import { ref, shapeSuffix, uniqueNames, type DocumentShape } from './component-names.js';

const string = { type: 'string' };
const boolean = { type: 'boolean' };
const dateTime = { type: 'string', format: 'date-time' };

/** A draft's scheduled publish or unpublish (`POST …/schedule`; content/documents/schedules.ts). */
function schedule(action: 'publish' | 'unpublish'): JsonSchema {
  return {
    type: 'object',
    description: `The draft's scheduled ${action}: \`pending\` until it runs (it is then removed), \`failed\` with the \`reason\` when it was refused at the time (kept until scheduled again or cancelled)`,
    required: ['at', 'by', 'status'],
    properties: {
      at: dateTime,
      by: {
        type: 'object',
        description: 'Who scheduled it: the run acts as them at the time; `_id` null and title "System Task" for an API key.',
        properties: { _id: { type: ['string', 'null'] }, title: { type: ['string', 'null'] }, username: { type: ['string', 'null'] } },
      },
      status: { enum: ['pending', 'failed'] },
      reason: string,
    },
  };
}

/** What GET adds to every document besides its fields (interface 2.1, README "Response documents"). */
const documentProperties: Record<string, JsonSchema> = {
  _id: { ...string, description: '`<cmsDocId>:<locale>:<mode>`; the bare cmsDocId for types that are not localized' },
  cmsDocId: string,
  cmsLocale: { ...string, description: '`<locale>:<mode>`' },
  cmsMode: { enum: ['draft', 'published', 'previous'] },
  metaType: { const: 'doc' },
  visibility: { enum: ['public', 'loginRequired'] },
  titleSortified: { type: 'string', description: 'The title in the form it sorts by' },
  highSearchText: { type: 'string', description: 'The original\'s search properties: title and text fields, sortified' },
  highSearchWords: { type: 'array', items: string },
  lowSearchText: string,
  searchSummary: string,
  createdAt: dateTime,
  updatedAt: dateTime,
  updatedBy: {
    type: ['object', 'null'],
    description: 'The user who made the last change; `_id` null and title "System Task" for an API key.',
    properties: { _id: { type: ['string', 'null'] }, title: { type: ['string', 'null'] }, username: { type: ['string', 'null'] } },
  },
  cacheInvalidatedAt: {
    ...dateTime,
    description: 'When this version or a document related to it (either way) last changed: its own writes set it to `updatedAt`; a relationship added, kept or dropped by another document moves it without moving `updatedAt`',
  },
  relatedReverseIds: {
    type: 'array',
    items: string,
    description: 'The cmsDocIds of the documents whose version in this locale and mode (any, for a type that is not localized) relates to this one; absent on a related document shown inside another document\'s answer',
  },
  lastPublishedAt: { type: ['string', 'null'], format: 'date-time' },
  localizedAt: { type: ['string', 'null'], format: 'date-time' },
  modified: boolean,
  cmsReview: reviewSchema,
  cmsShareKey: { type: 'string', description: 'A shared draft\'s key (`POST …/share`): shown only to callers who may edit the draft' },
  scheduledPublish: schedule('publish'),
  scheduledUnpublish: schedule('unpublish'),
  cmsShareLinkId: { type: 'string', description: 'Only in the answer of `POST …/share` that made a preview link that expires: the link\'s id (`DELETE …/share/{linkId}` revokes it)' },
  cmsShareExpiresAt: { ...dateTime, description: 'Only in the answer of `POST …/share` that made a preview link: when its `cmsShareKey` stops reading the draft' },
  cmsWasArchived: { ...boolean, description: 'true while archived (its slug, and a user\'s username and email, carry `deduplicate-<cmsDocId>-`); false once restored' },
  _url: string,
  _parentUrl: string,
  _parentSlug: { type: 'string', description: 'The path of the piece page (`pagePath`), without the locale prefix: the original\'s page slug' },
  _prevAttachmentId: { type: 'string', description: 'On `@cms/image` documents: the `_id` of the attachment the image holds, as the original answers it (read-only)' },
  _fallbackLocale: { type: 'string', description: 'On a published read: the version stands in for the asked locale, which has none; this is its own locale along the fallback chain. Its `_id` names it: writes go there' },
  _fallbackFields: { type: 'array', items: string, description: 'On a published read: the fields (`fallbackFields` of the type) that were empty in this version and are filled from the locale fallback chain' },
  _create: boolean,
  _edit: boolean,
  _publish: boolean,
  _delete: boolean,
  _fields: { type: 'object', description: 'On a related document: the fields the relationship keeps for it' },
};

/** What PUT and PATCH bodies may carry besides fields: the original's control properties (PATCH alone reads `_publish`). */
const lockControl: Record<string, JsonSchema> = {
  _advisoryLock: {
    type: 'object',
    description: 'Take or refresh (`lock: true`) or release after the write (`lock: false`) the advisory lock of this tab; `force` takes it over. A body with nothing else saves nothing.',
    required: ['tabId', 'lock'],
    properties: { tabId: { type: 'string', minLength: 1, maxLength: 200 }, lock: boolean, force: boolean },
  },
};
const publishControl: Record<string, JsonSchema> = {
  _publish: { ...boolean, description: 'true: publish the draft after the patch (drafts of localized types that do not autopublish). A PUT ignores it, as every read answer carries `_publish` as a permission flag' },
};

/** The component of a document of any type (`DocumentSchemas.components`). */
export const anyDocumentComponent = 'DocumentVersion';

/** Always kept by a projection (`src/content/query/projection.ts`): every answer has them. */
const alwaysShown = ['_id', 'type', 'metaType'];

/** What a projection keeps (`src/content/query/projection.ts`), and a related document's `_fields` added after it. */
function isProjected(projection: Readonly<Record<string, unknown>>, key: string): boolean {
  // A public projection also shows `cacheInvalidatedAt`, and with `_url` its `slug` (`publicOutput` in present.ts).
  if (key === '_fields' || key === 'cacheInvalidatedAt' || (key === 'slug' && Boolean(projection._url))) return true;
  // Marks of a locale fallback (locale-fallback.ts), added after the projection.
  if (key === '_fallbackLocale' || key === '_fallbackFields') return true;
  return keptBy(projection, key);
}

/** PATCH operators (interface 4.2, README "PATCH"): each maps paths to values. */
const patchOperators = ['$set', '$unset', '$inc', '$push', '$addToSet', '$pull', '$pullAll', '$pullAllById', '$move'];

/**
 * The component schemas of the configured piece types and widget types, built from the field
 * types' own `valueSchemas`: `Article` (read), `ArticlePublic`, `ArticleInput`, `ArticlePatch`,
 * and per widget type `CmsRichTextWidget` (read) and `CmsRichTextWidgetInput`.
 */
export class DocumentSchemas {
  readonly #config: AppConfig;
  readonly #fieldTypes: FieldTypeLookup;
  /** Base component name per piece type and per widget type. */
  readonly pieceNames: ReadonlyMap<string, string>;
  readonly widgetNames: ReadonlyMap<string, string>;

  constructor(config: AppConfig, fieldTypes: FieldTypeLookup, taken: Set<string>) {
    this.#config = config;
    this.#fieldTypes = fieldTypes;
    this.pieceNames = uniqueNames(config.pieceTypes.keys(), [...Object.values(shapeSuffix), 'List'], taken);
    this.widgetNames = uniqueNames(config.widgetTypes.keys(), ['Widget', 'WidgetInput'], taken);
  }

  /** The component name of a piece type's shape, or null for a public shape the type does not have. */
  pieceComponent(type: string, shape: DocumentShape): string | null {
    const pieceType = this.#config.pieceTypes.get(type);
    if (!pieceType || (shape === 'public' && !pieceType.options.publicApiProjection)) return null;
    return `${this.pieceNames.get(type)}${shapeSuffix[shape]}`;
  }

  components(): Record<string, JsonSchema> {
    const schemas: Record<string, JsonSchema> = { [anyDocumentComponent]: this.#anyDocumentSchema() };
    for (const type of this.#config.pieceTypes.values()) Object.assign(schemas, this.#pieceSchemas(type));
    for (const [name, widget] of this.#config.widgetTypes) {
      const base = `${this.widgetNames.get(name)}Widget`;
      schemas[base] = this.#widgetSchema(name, widget.fields, 'read');
      schemas[`${base}Input`] = this.#widgetSchema(name, widget.fields, 'write');
    }
    return schemas;
  }

  /**
   * What every type's documents have: for clients that work on any type (the admin). The fields
   * no module may remove are described by their field types, as in each type's own component.
   */
  #anyDocumentSchema(): JsonSchema {
    const permanent = Object.entries(basePieceFields).filter(([name]) => permanentFieldNames.has(name));
    const context = { fieldTypes: this.#fieldTypes, pieceTypes: new Set<string>(), widgetTypeNames: new Set<string>(), reservedNames: documentReservedNames };
    const fields = sanitizeFields(Object.fromEntries(permanent), 'fields', context);
    return {
      type: 'object',
      description: 'One version of a document of any type as GET answers callers with API access: what every type has. The type\'s own fields are in its component (`<Type>`).',
      required: alwaysShown,
      properties: { ...documentProperties, type: string, ...this.#fieldProperties(fields, 'read') },
      additionalProperties: true,
    };
  }

  #pieceSchemas(type: SanitizedPieceType): Record<string, JsonSchema> {
    const tag = (shape: DocumentShape) => ({ 'x-cms-piece-type': type.name, 'x-cms-shape': shape });
    const read = this.#fieldProperties(type.fields, 'read');
    const readProperties = { ...documentProperties, type: { const: type.name }, ...read };
    const schemas: Record<string, JsonSchema> = {
      [this.pieceComponent(type.name, 'read')!]: {
        type: 'object',
        description: `One version of a document of type ${type.name} (${type.options.label}) as GET answers callers with API access.`,
        ...tag('read'),
        required: alwaysShown,
        properties: readProperties,
        // Closed: an answer with a property the document does not name is a drift to fix.
        additionalProperties: false,
      },
      [this.pieceComponent(type.name, 'write')!]: { ...this.#inputSchema(type), ...tag('write') },
      [this.pieceComponent(type.name, 'patch')!]: { ...this.#patchSchema(type), ...tag('patch') },
    };
    const projection = type.options.publicApiProjection;
    if (projection) {
      const shown = this.#fieldProperties(type.fields, 'public');
      const properties = { ...documentProperties, type: { const: type.name }, ...shown };
      schemas[this.pieceComponent(type.name, 'public')!] = {
        type: 'object',
        description: `One version of a document of type ${type.name} (${type.options.label}) as its public projection shows it to callers without API access.`,
        ...tag('public'),
        required: alwaysShown,
        properties: Object.fromEntries(Object.entries(properties).filter(([key]) => isProjected(projection, key))),
        additionalProperties: false,
      };
    }
    return schemas;
  }

  #inputSchema(type: SanitizedPieceType): JsonSchema {
    const properties = this.#fieldProperties(type.fields, 'write');
    // Required input: a required field without a default, named by its own key alone.
    const required = type.fields.filter((field) => field.required && field.def === undefined && field.name in properties);
    return {
      type: 'object',
      description: `A ${type.options.label} as POST and PUT take it. Properties that name no field are ignored.`,
      ...(required.length > 0 && { required: required.map((field) => field.name) }),
      properties: { ...properties, _newInstance: { ...boolean, description: 'true: store nothing, answer the defaults' }, ...lockControl },
    };
  }

  #patchSchema(type: SanitizedPieceType): JsonSchema {
    const pathValues = { type: 'object', description: 'field paths (dot or @id notation) to values' };
    const operators = Object.fromEntries(patchOperators.map((operator) => [operator, pathValues]));
    return {
      type: 'object',
      description:
        `A PATCH of a ${type.options.label}: field values by name, dot paths (\`body.items.0.content\`) or ` +
        '`@<id>.<property>` paths, operators, and `_patches` applied in order.',
      properties: {
        ...this.#fieldProperties(type.fields, 'write'),
        ...operators,
        _patches: { type: 'array', items: { type: 'object' } },
        ...lockControl,
        ...publishControl,
      },
    };
  }

  #widgetSchema(name: string, fields: readonly SanitizedField[], shape: SchemaShape): JsonSchema {
    const annotations: Record<string, JsonSchema> = shape === 'write' ? {} : { _docId: string, _edit: boolean, _rendered: string };
    // Rich text is the one widget whose content is not schema data.
    const content: Record<string, JsonSchema> = name === richTextWidgetType ? { content: { ...string, description: 'sanitized HTML' } } : {};
    const base: Record<string, JsonSchema> = { _id: string, metaType: { const: 'widget' }, type: { const: name }, ...content, ...annotations };
    return {
      ...this.#fieldsObject(fields, shape, base),
      'x-cms-widget-type': name,
      'x-cms-shape': shape,
      required: shape === 'write' ? ['type'] : ['_id', 'metaType', 'type'],
    };
  }

  #fieldsObject(fields: readonly SanitizedField[], shape: SchemaShape, base: Readonly<Record<string, JsonSchema>> = {}): JsonSchema {
    return { type: 'object', properties: { ...base, ...this.#fieldProperties(fields, shape) } };
  }

  #fieldProperties(fields: readonly SanitizedField[], shape: SchemaShape): FieldProperties {
    const ctx = this.#context(shape);
    const properties: FieldProperties = {};
    for (const field of fields) {
      const fieldType = this.#fieldTypes.get(field.type);
      if (!fieldType) continue;
      for (const [key, schema] of Object.entries(fieldType.valueSchemas(field, ctx))) {
        properties[key] = { ...(field.label && { title: field.label }), ...(field.help && { description: field.help }), ...schema };
      }
    }
    return properties;
  }

  #context(shape: SchemaShape): ValueSchemaContext {
    const allWidgets = [...this.#config.widgetTypes.keys()];
    return {
      shape,
      fieldsObject: (fields, base) => this.#fieldsObject(fields, shape, base),
      relatedDocument: (type) => this.#relatedDocument(type, shape),
      attachment: () => ref('Attachment'),
      areaWidgets: (field) => {
        const allowed = new Set<string>(allowedWidgetTypes(field.options) ?? allWidgets);
        // A string given for any area is stored as one rich-text widget (`fields/area.ts`).
        if (shape !== 'write') allowed.add(richTextWidgetType);
        const suffix = shape === 'write' ? 'WidgetInput' : 'Widget';
        return [...allowed].filter((name) => this.widgetNames.has(name)).map((name) => ref(`${this.widgetNames.get(name)}${suffix}`));
      },
    };
  }

  /** Related documents are shown as the caller may read their type: in full, or its public projection. */
  #relatedDocument(type: string, shape: SchemaShape): JsonSchema {
    if (shape === 'public') {
      const component = this.pieceComponent(type, 'public');
      return component ? ref(component) : { type: 'object', required: alwaysShown };
    }
    const component = this.pieceComponent(type, 'read');
    return component ? ref(component) : { type: 'object' };
  }
}
