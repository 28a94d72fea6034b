/**
 * The answers the admin reads, under the names the admin uses. The shapes come from the server's
 * OpenAPI document through generated/api-types.ts (`npm run generate:admin-types`); nothing here
 * restates one. The few lines that narrow a shape say which assumption of the admin they hold.
 */
import type {
  Attachment,
  AuditRecord,
  ConfigurationSchema,
  Crop,
  DocumentPage,
  DocumentVersion,
  Error as ErrorAnswer,
  HistoryEntry,
  HistoryPage,
  SchemaAreaOptions,
  SchemaChoice,
  SchemaField,
  SchemaPieceType,
  SchemaWidget,
  Whoami,
} from './generated/api-types';

export type { Attachment, AuditRecord, Crop, HistoryEntry, HistoryPage };

/** A configured text as the schema serves it: one string, or one per language code. */
export type LocalizedText = string | { [language: string]: string };

/** A shape whose configured texts are read in one language (i18n/configured-text.ts): plain strings. */
export type InOneLanguage<T> = T extends readonly (infer Item)[]
  ? InOneLanguage<Item>[]
  : T extends object
    ? { [K in keyof T]: unknown extends T[K] ? T[K] : LocalizedText extends T[K] ? string : InOneLanguage<T[K]> }
    : T;

/** GET /api/v1/@cms/schema as served, and as the screens read it: in the interface language. */
export type ServedSchema = ConfigurationSchema;
export type Schema = InOneLanguage<ConfigurationSchema>;
export type WidgetSchema = InOneLanguage<SchemaWidget>;
export type PieceTypeSchema = InOneLanguage<SchemaPieceType>;
export type FieldSchema = InOneLanguage<SchemaField>;
export type Choice = SchemaChoice;
export type AreaFieldOptions = SchemaAreaOptions;

/** whoami: the signed-in user. */
export type SignedInUser = Whoami;
export type Role = NonNullable<Whoami['role']>;

/** The modes a version is read and written in (`previous` is only ever answered, never asked for). */
export type Mode = Exclude<NonNullable<DocumentVersion['cmsMode']>, 'previous'>;

/**
 * One version of a document as the API answers it; fields are open-ended. The admin's narrowing:
 * it reads with API access, so the properties below are there unless a `project` it sent left
 * them out (it asks for those it shows). Not quite for `cmsLocale`: types that are not localized
 * (`@cms/user`) have none; the hand-written type before this one made the same claim.
 */
export type PieceDocument = DocumentVersion & Required<Pick<DocumentVersion, 'cmsDocId' | 'cmsLocale' | 'cmsMode' | 'title' | 'slug' | 'createdAt' | 'updatedAt'>>;

/** One page of a list; `T` narrows the versions when the admin projects them. */
export type ListAnswer<T = PieceDocument> = Omit<DocumentPage, 'results'> & { results: T[] };

/**
 * The body of an error as the admin holds it: the server's `{ name, message, data }`, or one the
 * client makes itself when no JSON came back (`network`: no answer at all).
 */
export type ErrorBody = Omit<ErrorAnswer, 'name' | 'data'> & { name: ErrorAnswer['name'] | 'network'; data?: ErrorAnswer['data'] };
