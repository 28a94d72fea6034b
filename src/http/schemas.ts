import { Type } from '@sinclair/typebox';

/**
 * JSON Schemas of the request envelopes (query strings, bodies as a whole). Field content is
 * not described here: the document operations convert and validate it through the field registry.
 */

const versionParams = {
  cmsMode: Type.Optional(Type.Union([Type.Literal('draft'), Type.Literal('published')])),
  cmsLocale: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  apikey: Type.Optional(Type.String({ maxLength: 1024 })),
  apiKey: Type.Optional(Type.String({ maxLength: 1024 })),
};

/** One version of a document; further (filter) parameters are left for the list builders. */
export const versionQuery = Type.Object(versionParams);

/**
 * PUT, PATCH and DELETE of one version: `force=true` deletes or archives a media piece that
 * published documents show (else 409); any other value is refused (400).
 */
export const writeQuery = Type.Object({
  ...versionParams,
  force: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
});

/** GET one: a version, or the shared draft `cmsShareId` and `cmsShareKey` name (`draft-sharing.ts`). */
export const readOneQuery = Type.Object({
  ...versionParams,
  cmsShareId: Type.Optional(Type.String({ maxLength: 200 })),
  cmsShareKey: Type.Optional(Type.String({ maxLength: 200 })),
});

/** The list's own parameters (page, sort, filters...) are laundered by the list operation. */
export const listQuery = versionQuery;

/** `GET /api/v1/@cms/image/:_id/src`: a version, and the image size to redirect to. */
export const imageSourceQuery = Type.Object({ ...versionParams, size: Type.Optional(Type.String({ maxLength: 32 })) });

export const idParams = Type.Object({ _id: Type.String({ minLength: 1, maxLength: 200 }) });

/** A history entry of a document (`…/:_id/history/:entryId`); its shape is checked by the operation (400). */
export const historyEntryParams = Type.Object({ _id: idParams.properties._id, entryId: Type.String({ minLength: 1, maxLength: 200 }) });

/** A history list: a version's locale, and the page (laundered by the operation). */
export const historyQuery = Type.Object({
  ...versionParams,
  page: Type.Optional(Type.String({ maxLength: 20 })),
  perPage: Type.Optional(Type.String({ maxLength: 20 })),
});
/** `…/:_id/share/:linkId`: a draft and one of its preview links. */
export const shareLinkParams = Type.Object({ _id: idParams.properties._id, linkId: Type.String({ minLength: 1, maxLength: 100 }) });

export const objectBody = Type.Object({}, { additionalProperties: true });
