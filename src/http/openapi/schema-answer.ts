import type { JsonSchema } from '../../content/fields/value-schema.js';
import { ref } from './component-names.js';

const string = { type: 'string' };
const boolean = { type: 'boolean' };
const number = { type: 'number' };
const strings = { type: 'array', items: string };

/** A configured text people read: one string, or one per language code (`{ en: 'Recipe', de: 'Rezept' }`). */
const localizedText = {
  anyOf: [string, { type: 'object', additionalProperties: string, description: 'Language code to text; show the reader\'s language, else `en`, else the first' }],
};

/** An image style: `value` is the one class the image tool puts on the figure. */
const labelledClass = { type: 'object', required: ['label', 'value'], properties: { label: string, value: string }, additionalProperties: false };

/** The rich-text options an area describes, defaults filled in (`content/fields/area-options.ts`). */
const richTextOptions: Record<string, JsonSchema> = {
  toolbar: { ...strings, description: 'The toolbar items, in order' },
  insert: { ...strings, description: 'What the insert menu offers (`image`, `table`, `importTable`, `horizontalRule`)' },
  styles: { type: 'array', items: ref('SchemaRichTextStyle'), description: 'The paragraph and heading styles' },
  imageStyles: { type: 'array', items: labelledClass, description: 'The classes an image may take' },
};

/**
 * The components of `GET /api/v1/@cms/schema` (`content/schema/describe-schema.ts` and
 * `describe-field.ts`). Closed, as the document components are: a key the answer gains without
 * being named here fails the API tests, which check every answer against this document.
 */
export const schemaAnswerComponents: Record<string, JsonSchema> = {
  ConfigurationSchema: {
    type: 'object',
    description: 'What the caller may see of the configuration (README, `GET /api/v1/@cms/schema`).',
    required: ['locales', 'widgets', 'types'],
    properties: {
      locales: { type: 'array', items: ref('SchemaLocale') },
      widgets: { type: 'object', description: 'The widget types the described areas accept, by name', additionalProperties: ref('SchemaWidget') },
      types: { type: 'object', description: 'The piece types the caller may read, by name', additionalProperties: ref('SchemaPieceType') },
    },
    additionalProperties: false,
  },
  SchemaLocale: {
    type: 'object',
    required: ['name', 'label', 'prefix', 'default', 'fallbacks'],
    properties: {
      name: string,
      label: string,
      prefix: { ...string, description: 'The URL prefix of the locale\'s pages; empty for none' },
      default: boolean,
      fallbacks: { ...strings, description: 'The locales a published read falls back to, in order (the configured `fallback` chain); empty for none' },
    },
    additionalProperties: false,
  },
  SchemaWidget: {
    type: 'object',
    required: ['label', 'fields'],
    properties: { label: string, fields: { type: 'array', items: ref('SchemaField') } },
    additionalProperties: false,
  },
  SchemaPieceType: {
    type: 'object',
    description: 'A piece type as the caller sees it: callers without API access to it see only its public projection\'s fields and nothing about drafts.',
    required: ['label', 'pluralLabel', 'localized', 'perPage', 'sort', 'columns', 'fields', 'can'],
    properties: {
      label: localizedText,
      pluralLabel: localizedText,
      localized: boolean,
      perPage: { type: 'integer' },
      sort: { type: 'object', description: 'The default order: property to 1 (ascending) or -1', additionalProperties: { enum: [1, -1] } },
      pagePath: { ...string, description: 'Where the type\'s pages live on the site, when it has pages' },
      preview: { const: true, description: 'Callers with API access only: the type\'s front end shows its drafts (`options.preview`); `POST …/:_id/preview-url` answers the URL' },
      autopublish: { ...boolean, description: 'Callers with API access only' },
      publicProjection: { type: 'object', description: 'Callers with API access only: what anonymous callers see of a document' },
      columns: { type: 'array', items: ref('SchemaListColumn'), description: 'The list\'s columns (`options.columns`), the title first' },
      fields: { type: 'array', items: ref('SchemaField') },
      can: ref('SchemaPermissions'),
    },
    additionalProperties: false,
  },
  SchemaListColumn: {
    type: 'object',
    description: 'One column of the list: a top-level field, `updatedAt` or `createdAt`.',
    required: ['name', 'label', 'sortable'],
    properties: { name: string, label: localizedText, sortable: { ...boolean, description: 'Whether `sort[<name>]` is accepted for the caller' } },
    additionalProperties: false,
  },
  SchemaPermissions: {
    type: 'object',
    description: 'What the caller may do with the type. `create`, `edit` and `delete` are about drafts (published versions also need `publish`).',
    required: ['read', 'viewDrafts', 'create', 'edit', 'publish', 'delete'],
    properties: { read: boolean, viewDrafts: boolean, create: boolean, edit: boolean, publish: boolean, delete: boolean },
    additionalProperties: false,
  },
  SchemaField: {
    type: 'object',
    description: 'One field: the common keys, then the options its type takes (README "Field types").',
    required: ['name', 'type', 'label', 'help', 'required'],
    properties: {
      name: string,
      type: { ...string, description: 'The field type (`string`, `area`, `relationship`…)' },
      label: localizedText,
      help: { ...localizedText, description: 'Empty when the field has none' },
      required: boolean,
      def: { description: 'The default value, when the field has one' },
      textarea: { ...boolean, description: 'string' },
      min: { ...number, description: 'Length, count or value, by the type' },
      max: { ...number, description: 'Length, count or value, by the type' },
      pattern: { ...string, description: 'string: a regular expression the value must match' },
      choices: { type: 'array', items: ref('SchemaChoice'), description: 'select, checkboxes' },
      fields: { type: 'array', items: ref('SchemaField'), description: 'array and object: the fields of each item; relationship: the fields kept per related document' },
      withType: { ...string, description: 'relationship, relationshipReverse: the related type, always named' },
      reverseOf: { ...string, description: 'relationshipReverse: the forward relationship field' },
      fileGroups: { ...strings, description: 'attachment: the accepted file groups (`fileGroup` folded in)' },
      extensions: { ...strings, description: 'attachment: the accepted extensions' },
      options: ref('SchemaAreaOptions'),
    },
    additionalProperties: false,
  },
  SchemaChoice: {
    type: 'object',
    required: ['label', 'value'],
    properties: { label: localizedText, value: { type: ['string', 'number', 'boolean'] } },
    additionalProperties: false,
  },
  SchemaAreaOptions: {
    type: 'object',
    description: 'area: the accepted widgets with their options, their count, and (when rich text is accepted) the effective rich-text options.',
    required: ['widgets'],
    properties: {
      widgets: { type: 'object', description: 'Every widget type the area accepts, by name', additionalProperties: ref('SchemaWidgetOptions') },
      groups: {
        type: 'object',
        additionalProperties: { type: 'object', required: ['label', 'widgets'], properties: { label: string, widgets: strings }, additionalProperties: false },
      },
      min: number,
      max: number,
      expanded: boolean,
      ...richTextOptions,
    },
    additionalProperties: false,
  },
  SchemaWidgetOptions: {
    type: 'object',
    description: 'The options an area gives one widget type: as configured, and for rich text the effective ones.',
    properties: richTextOptions,
    additionalProperties: true,
  },
  SchemaRichTextStyle: {
    type: 'object',
    required: ['tag', 'label'],
    properties: { tag: string, label: string, class: string },
    additionalProperties: false,
  },
};
