import { Type, type Static } from '@sinclair/typebox';
import { roleSchema } from '../../config/schema-check.js';
import { localizedTextSchema } from './localized-text.js';

/** Options of a piece-type module; everything is optional because defaults fill the gaps. */
export const pieceTypeOptionsSchema = Type.Object(
  {
    label: Type.Optional(localizedTextSchema),
    pluralLabel: Type.Optional(localizedTextSchema),
    perPage: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, errorMessage: 'must be an integer from 1 to 100' })),
    publicApiProjection: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Union([Type.Literal(1), Type.Literal(true)], { errorMessage: 'must be 1 or true' }),
        { errorMessage: 'must be an object mapping properties to 1 or true' },
      ),
    ),
    pagePath: Type.Optional(
      Type.String({
        pattern: '^(/[^/\\s?#]+)+$',
        errorMessage: 'must start with "/" and not end with "/" (for example "/articles")',
      }),
    ),
    // Live preview (preview-option.ts): the front end's URL of a document; the template is checked at start.
    preview: Type.Optional(
      Type.Object(
        {
          url: Type.Union([Type.String(), Type.Function([Type.Any(), Type.Any()], Type.String())], {
            errorMessage: 'must be a URL template string or a function (doc, { locale, mode }) => string',
          }),
        },
        { additionalProperties: false, errorMessage: 'must be an object { url }' },
      ),
    ),
    localized: Type.Optional(Type.Boolean({ errorMessage: 'must be true or false' })),
    slugPrefix: Type.Optional(Type.String({ pattern: '^[a-z0-9-]*$', errorMessage: 'must be lowercase letters, digits and "-"' })),
    sort: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Union([Type.Literal(1), Type.Literal(-1)], { errorMessage: 'must be 1 or -1' }),
        { errorMessage: 'must be an object mapping properties to 1 or -1' },
      ),
    ),
    viewRole: Type.Optional(roleSchema),
    editRole: Type.Optional(roleSchema),
    publishRole: Type.Optional(roleSchema),
    autopublish: Type.Optional(Type.Boolean({ errorMessage: 'must be true or false' })),
    // Review stages before publishing (review-option.ts): true, or { stages, publishFrom }; checked at start.
    review: Type.Optional(Type.Unknown()),
    history: Type.Optional(
      Type.Object(
        {
          maxEntries: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, errorMessage: 'must be an integer from 0 to 100000' })),
          maxPublishEntries: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, errorMessage: 'must be an integer from 1 to 100000' })),
          maxAgeDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 36_500, errorMessage: 'must be an integer from 1 to 36500' })),
        },
        { additionalProperties: false, errorMessage: 'must be an object { maxEntries?, maxPublishEntries?, maxAgeDays? }' },
      ),
    ),
    // The admin list's columns (list-columns.ts): field names, or { name, label }; the names are checked at start.
    columns: Type.Optional(
      Type.Array(
        Type.Union([
          Type.String({ minLength: 1 }),
          Type.Object({ name: Type.String({ minLength: 1 }), label: Type.Optional(localizedTextSchema) }, { additionalProperties: false }),
        ]),
        { errorMessage: 'must be a list of field names or { name, label } objects' },
      ),
    ),
    fallbackFields: Type.Optional(
      Type.Union([Type.Boolean(), Type.Array(Type.String({ minLength: 1 }))], { errorMessage: 'must be true, false or a list of field names' }),
    ),
  },
  { additionalProperties: false },
);

/** `options.preview` as the configuration file holds it. */
export type ConfiguredPreview = Static<typeof pieceTypeOptionsSchema.properties.preview>;

/** One entry of `modules`; field definitions are checked by the field sanitizer. */
export const moduleSchema = Type.Object(
  {
    extend: Type.Optional(Type.Literal('@cms/piece-type', { errorMessage: 'must be "@cms/piece-type"' })),
    options: Type.Optional(pieceTypeOptionsSchema),
    fields: Type.Optional(
      Type.Object(
        {
          add: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { errorMessage: 'must be an object' })),
          remove: Type.Optional(Type.Array(Type.String(), { errorMessage: 'must be a list of field names' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** One entry of `widgets`. */
export const widgetSchema = Type.Object(
  {
    fields: Type.Optional(
      Type.Object(
        { add: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { errorMessage: 'must be an object' })) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
