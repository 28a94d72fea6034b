/** The shapes of GET /api/v1/@cms/schema (see the README), as the admin reads them. */

export interface Choice {
  readonly label: string;
  readonly value: string | number | boolean;
}

export interface RichTextStyle {
  readonly tag: string;
  readonly label: string;
  readonly class?: string;
}

export interface AreaWidgetOptions {
  readonly toolbar?: readonly string[];
  readonly insert?: readonly string[];
  readonly styles?: readonly RichTextStyle[];
  readonly imageStyles?: readonly { readonly label: string; readonly value: string }[];
  readonly [option: string]: unknown;
}

export interface FieldSchema {
  readonly name: string;
  readonly type: string;
  readonly label: string;
  readonly help: string;
  readonly required: boolean;
  readonly def?: unknown;
  readonly textarea?: boolean;
  readonly min?: number;
  readonly max?: number;
  readonly pattern?: string;
  readonly choices?: readonly Choice[];
  /** array, object, relationship (the relationship's own fields) */
  readonly fields?: readonly FieldSchema[];
  /** relationship */
  readonly withType?: string;
  /** attachment */
  readonly fileGroups?: readonly string[];
  readonly extensions?: readonly string[];
  /** area: the accepted widgets, their count and the effective rich-text options */
  readonly options?: AreaFieldOptions;
}

export interface AreaFieldOptions {
  readonly widgets?: Readonly<Record<string, AreaWidgetOptions>>;
  readonly groups?: unknown;
  readonly min?: number;
  readonly max?: number;
  readonly toolbar?: readonly string[];
  readonly insert?: readonly string[];
  readonly styles?: readonly RichTextStyle[];
  readonly imageStyles?: readonly { readonly label: string; readonly value: string }[];
}

export interface TypePermissions {
  readonly read: boolean;
  readonly viewDrafts: boolean;
  readonly create: boolean;
  readonly edit: boolean;
  readonly publish: boolean;
  readonly delete: boolean;
}

export interface PieceTypeSchema {
  readonly label: string;
  readonly pluralLabel: string;
  readonly localized: boolean;
  readonly perPage: number;
  readonly sort: Readonly<Record<string, 1 | -1>>;
  readonly pagePath?: string;
  readonly autopublish: boolean;
  readonly publicProjection?: Readonly<Record<string, unknown>>;
  readonly fields: readonly FieldSchema[];
  readonly can: TypePermissions;
}

export interface LocaleSchema {
  readonly name: string;
  readonly label: string;
  readonly prefix: string;
  readonly default: boolean;
}

export interface WidgetSchema {
  readonly label: string;
  readonly fields: readonly FieldSchema[];
}

export interface Schema {
  readonly locales: readonly LocaleSchema[];
  readonly widgets: Readonly<Record<string, WidgetSchema>>;
  readonly types: Readonly<Record<string, PieceTypeSchema>>;
}

export type Role = 'guest' | 'contributor' | 'editor' | 'admin';

/** whoami: the signed-in user. */
export interface SignedInUser {
  readonly _id: string;
  readonly username: string;
  readonly title: string;
  readonly role: Role;
  readonly csrfToken?: string;
}

export type Mode = 'draft' | 'published';

/** One version of a document as the API answers it; fields are open-ended. */
export interface PieceDocument {
  _id: string;
  cmsDocId: string;
  cmsLocale: string;
  cmsMode: Mode;
  type: string;
  title: string;
  slug: string;
  archived: boolean;
  modified?: boolean;
  lastPublishedAt?: string | null;
  createdAt: string;
  updatedAt: string;
  updatedBy?: { _id: string; title: string; username?: string } | null;
  _edit?: boolean;
  _publish?: boolean;
  _delete?: boolean;
  [field: string]: unknown;
}

export interface ListAnswer<T = PieceDocument> {
  readonly pages: number;
  readonly currentPage: number;
  readonly results: T[];
  readonly choices?: Readonly<Record<string, readonly { value: unknown; label: string; count?: number }[]>>;
}

/** POST /api/v1/@cms/attachment/upload */
export interface Attachment {
  _id: string;
  group: string;
  name: string;
  title: string;
  extension: string;
  length: number;
  width?: number;
  height?: number;
  crops: { top: number; left: number; width: number; height: number }[];
  docIds: string[];
  archivedDocIds: string[];
  _isCroppable?: boolean;
  _url: string;
  _urls?: Record<string, string>;
  [key: string]: unknown;
}

/** The body of every error answer: { name, message, data }. */
export interface ErrorBody {
  readonly name: string;
  readonly message: string;
  readonly data?: { readonly errors?: readonly { readonly name: string; readonly path: string; readonly message: string }[]; readonly [key: string]: unknown };
}
