import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { maxImageSide } from '../../media/naming.js';
import { loginSchema, storedBounds, storedDocumentSchema } from '../../content/stored-shape.js';

/**
 * The archive `cms export` writes and `cms import` reads: a gzipped tar whose entries come in
 * this order, each sorted, with fixed headers (no time, owner or mode of this machine), so the
 * same store always gives the same bytes:
 * - `documents.jsonl`: every document version, one JSON object a line, by `_id`;
 * - `users.jsonl`: every user's login data (the password hash, never a password), by `userId`;
 * - `attachments.jsonl`: every attachment record with the versions holding it, `readable` and its uploader when known, by `_id`;
 * - `audit.jsonl`: the audit trail, in the order appended (absent from archives made before it);
 * - `history.jsonl`: every history entry with its content, in the order appended (version 2);
 * - `share-links.jsonl`: every preview link, its key's digest only (never a key), by `id` (version 2);
 * - `schedules.jsonl`: every pending or failed schedule, by draft `_id` then action (version 2);
 * - `files/<key>`: every file of every attachment, readable or not, by key;
 * - `manifest.json`: last, since it holds the SHA-256 of everything before it.
 */
export const archiveFormat = 'cms-archive';
/** Version 2 added history, preview links and schedules; an archive of version 1 imports with what it has. */
export const archiveVersion = 2;
export const readableVersions: readonly number[] = [1, 2];

export const partNames = ['documents.jsonl', 'users.jsonl', 'attachments.jsonl', 'audit.jsonl', 'history.jsonl', 'share-links.jsonl', 'schedules.jsonl'] as const;
export type PartName = (typeof partNames)[number];
/** Parts an archive may lack (one made before they existed): the next entry then comes in their place. */
export const optionalPartNames: readonly PartName[] = ['audit.jsonl', 'history.jsonl', 'share-links.jsonl', 'schedules.jsonl'];
/** The parts an archive of each version holds: all of them (but version 1's optional audit trail). */
export function requiredParts(version: number): readonly PartName[] {
  return version === 1 ? ['documents.jsonl', 'users.jsonl', 'attachments.jsonl'] : partNames;
}
/** The parts an archive of each version may hold. */
export function allowedParts(version: number): readonly PartName[] {
  return version === 1 ? ['documents.jsonl', 'users.jsonl', 'attachments.jsonl', 'audit.jsonl'] : partNames;
}
export const filePrefix = 'files/';
export const manifestName = 'manifest.json';
/** A manifest is a few hundred bytes: anything much larger is not one. */
export const manifestMaxBytes = 64 * 1024;

/** Tar header fields that would otherwise come from this machine and this moment. */
export const fixedHeader = { mtime: new Date(0), mode: 0o644, uid: 0, gid: 0, uname: '', gname: '' } as const;

const isoDate = Type.String({ maxLength: storedBounds.dateLength });
const id = Type.String({ minLength: 1, maxLength: storedBounds.idLength });
const count = Type.Integer({ minimum: 0 });
const sha256 = Type.String({ pattern: '^[0-9a-f]{64}$' });

const partSchema = Type.Object({ name: Type.Union(partNames.map((name) => Type.Literal(name))), lines: count, bytes: count, sha256 }, { additionalProperties: false });

export const manifestSchema = Type.Object(
  {
    format: Type.Literal(archiveFormat),
    version: Type.Integer(),
    generator: Type.String({ maxLength: 200 }),
    /** The latest `updatedAt` of any document or attachment: when the data was last changed. */
    dataAsOf: Type.Union([isoDate, Type.Null()]),
    parts: Type.Array(partSchema, { maxItems: partNames.length }),
    /** The files, with the SHA-256 of their listing: one `fileListingLine` per file, in order. */
    files: Type.Object({ count, bytes: count, sha256 }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);
export type Manifest = Static<typeof manifestSchema>;
export type ManifestPart = Static<typeof partSchema>;

/** What the files' listing digest covers for one file: its key, size and the SHA-256 of its bytes. */
export function fileListingLine(key: string, size: number, digest: string): string {
  return `${JSON.stringify({ key, size, sha256: digest })}\n`;
}

// The shapes every write is held to: an archive of what the API stored always imports.
export const documentLineSchema = storedDocumentSchema;
export const userLineSchema = loginSchema;

const pixels = Type.Integer({ minimum: 0, maximum: maxImageSide });
const percent = Type.Integer({ minimum: 0, maximum: 100 });
const versionIds = Type.Array(id, { maxItems: 1_000_000 });

// Names and extensions as the media module launders them: they become file keys.
export const attachmentLineSchema = Type.Object({
  _id: Type.String({ pattern: '^[a-z0-9]{1,100}$' }),
  type: Type.Literal('attachment'),
  group: Type.String({ maxLength: 100 }),
  extension: Type.String({ pattern: '^[a-z0-9]{1,20}$' }),
  name: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,99}$' }),
  title: Type.String({ maxLength: 1000 }),
  length: count,
  md5: Type.String({ maxLength: 64 }),
  width: Type.Optional(pixels),
  height: Type.Optional(pixels),
  landscape: Type.Optional(Type.Boolean()),
  portrait: Type.Optional(Type.Boolean()),
  crops: Type.Array(Type.Object({ top: pixels, left: pixels, width: pixels, height: pixels }, { additionalProperties: false }), { maxItems: 10_000 }),
  focalPoint: Type.Optional(Type.Object({ x: percent, y: percent }, { additionalProperties: false })),
  createdAt: isoDate,
  updatedAt: isoDate,
  docIds: versionIds,
  archivedDocIds: versionIds,
  readable: Type.Boolean(),
  // The caller id of the upload (`user:<id>`, `key:<digest>`); absent when unknown.
  uploadedBy: Type.Optional(Type.String({ maxLength: 200 })),
});
export type AttachmentLine = Static<typeof attachmentLineSchema>;

const shortText = Type.Union([Type.String({ maxLength: 1000 }), Type.Null()]);

/** An audit record as `cms export` writes it (storage/interface/audit.ts). */
export const auditLineSchema = Type.Object(
  {
    id,
    at: isoDate,
    actor: Type.Object(
      {
        kind: Type.Union(['anonymous', 'apiKey', 'user', 'cli'].map((kind) => Type.Literal(kind))),
        _id: shortText,
        username: shortText,
        title: shortText,
        role: shortText,
      },
      { additionalProperties: false },
    ),
    address: shortText,
    requestId: shortText,
    action: Type.String({ minLength: 1, maxLength: 200 }),
    type: shortText,
    ids: Type.Array(id, { maxItems: 10_000 }),
    detail: Type.Union([Type.Record(Type.String({ maxLength: 200 }), Type.Unknown()), Type.Null()]),
  },
  { additionalProperties: false },
);

/** Who made a change, as a version's `updatedBy` names them (history, preview links, schedules). */
const author = Type.Object({ _id: shortText, title: Type.String({ maxLength: 1000 }), username: shortText }, { additionalProperties: false });
const epochMs = Type.Integer({ minimum: 0, maximum: 8.64e15 });
const modeName = Type.Union(['draft', 'published', 'previous'].map((mode) => Type.Literal(mode)));

/** A history entry (storage/interface/history.ts), its content as the version held it. */
export const historyLineSchema = Type.Object(
  {
    _id: id,
    createdAt: epochMs,
    updatedBy: author,
    action: Type.String({ minLength: 1, maxLength: 200 }),
    cmsMode: modeName,
    versionId: id,
    startedAt: epochMs,
    // The share it counts against when entries are pruned (history-recorder.ts: first, publish:<role>, change:<role>).
    pool: Type.String({ minLength: 1, maxLength: 100 }),
    type: Type.String({ minLength: 1, maxLength: storedBounds.typeNameLength }),
    docId: id,
    locale: Type.String({ minLength: 1, maxLength: storedBounds.idLength }),
    data: Type.Record(Type.String(), Type.Unknown()),
  },
  { additionalProperties: false },
);
export type HistoryLine = Static<typeof historyLineSchema>;

/** A preview link (storage/interface/share-links.ts): the SHA-256 of its key, base64url, never the key. */
export const shareLinkLineSchema = Type.Object(
  {
    id,
    versionId: id,
    digest: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }),
    createdAt: isoDate,
    createdBy: author,
    expiresAt: Type.Union([isoDate, Type.Null()]),
  },
  { additionalProperties: false },
);
export type ShareLinkLine = Static<typeof shareLinkLineSchema>;

/** A schedule as the store keeps it (storage/interface/schedules.ts), its claim aside: an import leaves it unclaimed. */
export const scheduleLineSchema = Type.Object(
  {
    versionId: id,
    action: Type.Union([Type.Literal('publish'), Type.Literal('unpublish')]),
    type: Type.String({ minLength: 1, maxLength: storedBounds.typeNameLength }),
    docId: id,
    locale: Type.String({ minLength: 1, maxLength: storedBounds.idLength }),
    dueAt: epochMs,
    by: Type.Object(
      { kind: Type.Union([Type.Literal('user'), Type.Literal('apiKey')]), userId: shortText, title: Type.String({ maxLength: 1000 }), username: shortText, keyId: shortText },
      { additionalProperties: false },
    ),
    status: Type.Union([Type.Literal('pending'), Type.Literal('failed')]),
    attempts: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
    unreviewedChange: Type.Union([
      Type.Object({ by: author, role: shortText, at: isoDate }, { additionalProperties: false }),
      Type.Null(),
    ]),
  },
  { additionalProperties: false },
);
export type ScheduleLine = Static<typeof scheduleLineSchema>;

/** Each schema compiled once, with the first mismatch as a message. */
export function compiledCheck<T extends TSchema>(schema: T): (value: unknown) => string | null {
  const check = TypeCompiler.Compile(schema);
  return (value) => {
    if (check.Check(value)) return null;
    const first = check.Errors(value).First();
    return first ? `${first.path || '(the record)'}: ${first.message}` : 'does not match its schema';
  };
}
