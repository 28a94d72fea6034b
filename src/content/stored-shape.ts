import { Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { InvalidRequestError, ValidationError, type FieldError } from '../errors/app-error.js';
import type { StoredDocument, UserLogin } from '../storage/storage-adapter.js';

/**
 * The bounds of what a stored document version and a login may hold. Every write is held to
 * them (`checkStoredDocument`, `checkLogin`) and `cms import` checks an archive's records
 * against the very same shapes, so that whatever the API stored, an import takes back.
 */
export const storedBounds = {
  /** `_id`, `cmsDocId`, `cmsLocale`, a login's `userId`. */
  idLength: 1000,
  slugLength: 10_000,
  typeNameLength: 200,
  visibilityLength: 200,
  /** A login's username, email and password hash. */
  loginTextLength: 1000,
  dateLength: 64,
} as const;

const isoDate = Type.String({ maxLength: storedBounds.dateLength });
const id = Type.String({ minLength: 1, maxLength: storedBounds.idLength });

// Additional properties are a document's fields: kept exactly as stored.
export const storedDocumentSchema = Type.Object({
  _id: id,
  cmsDocId: id,
  cmsLocale: Type.Optional(Type.String({ maxLength: storedBounds.idLength })),
  cmsMode: Type.Optional(Type.Union([Type.Literal('draft'), Type.Literal('published'), Type.Literal('previous')])),
  type: Type.String({ minLength: 1, maxLength: storedBounds.typeNameLength }),
  slug: Type.String({ maxLength: storedBounds.slugLength }),
  title: Type.String(),
  titleSortified: Type.String(),
  archived: Type.Boolean(),
  visibility: Type.Optional(Type.String({ maxLength: storedBounds.visibilityLength })),
  createdAt: isoDate,
  updatedAt: isoDate,
});

const loginText = Type.String({ maxLength: storedBounds.loginTextLength });

// A user created without a password has the empty hash (no password matches it).
export const loginSchema = Type.Object(
  {
    userId: id,
    username: Type.String({ minLength: 1, maxLength: storedBounds.loginTextLength }),
    email: Type.Union([loginText, Type.Null()]),
    passwordHash: loginText,
  },
  { additionalProperties: false },
);

/** Each schema compiled once: the first mismatch as a field error (path without the leading `/`). */
export function compiledFieldCheck<T extends TSchema>(schema: T): (value: unknown) => FieldError | null {
  const check = TypeCompiler.Compile(schema);
  return (value) => {
    if (check.Check(value)) return null;
    const first = check.Errors(value).First();
    if (!first) return { name: 'invalid', path: '', message: 'does not match its schema' };
    const path = first.path.replace(/^\//, '').replaceAll('/', '.');
    const max = maxLengthOf(first.schema);
    if (typeof max === 'number' && typeof first.value === 'string' && first.value.length > max) {
      return { name: 'max', path, message: `must be at most ${max} characters`, data: { max } };
    }
    return { name: 'invalid', path, message: first.message };
  };
}

/** The `maxLength` of a string schema, or of the string among a union's (`email`: a string or null). */
function maxLengthOf(schema: TSchema): unknown {
  const variants = (schema as { anyOf?: TSchema[] }).anyOf ?? [schema];
  return variants.map((variant) => (variant as { maxLength?: unknown }).maxLength).find((max) => max !== undefined);
}

const documentProblem = compiledFieldCheck(storedDocumentSchema);
const loginProblem = compiledFieldCheck(loginSchema);

/**
 * Refuses a version that breaks a bound of `storedDocumentSchema`, or whose JSON (as an archive
 * holds it) is larger than `maxBytes` (`limits.archiveRecordBytes`): a 400 naming what is too large.
 */
export function checkStoredDocument(doc: StoredDocument, maxBytes: number): void {
  const problem = documentProblem(doc);
  if (problem) throw new ValidationError([problem]);
  const bytes = Buffer.byteLength(JSON.stringify(doc));
  if (bytes > maxBytes) {
    throw new InvalidRequestError(`The document would take ${bytes} bytes; at most ${maxBytes} are allowed (limits.archiveRecordBytes)`, {
      limit: 'archiveRecordBytes',
      max: maxBytes,
    });
  }
}

/** Refuses a login that breaks a bound of `loginSchema`, naming the document field it comes from. */
export function checkLogin(login: UserLogin): void {
  const problem = loginProblem(login);
  if (problem) throw new ValidationError([problem]);
}
