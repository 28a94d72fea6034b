import type { Role } from '../../core/principal.js';
import type { PreviewOption } from './preview-option.js';
import type { ReviewOption } from './review-option.js';
import type { LocalizedText } from './localized-text.js';

/**
 * A field after boot-time sanitization. `options` holds the type-specific keys of the definition
 * (`min`, `choices`, `fields`, `withType`, ...) exactly as configured, already checked by the field
 * type's `validateDefinition`.
 */
export interface SanitizedField {
  /** The key of the field in `fields.add` (for relationships possibly with a leading `_`). */
  readonly name: string;
  readonly type: string;
  /** `defaultText` of `labelText`, for everything on the server that needs one string. */
  readonly label: string;
  readonly help?: string;
  /** As configured, per language or not: what the schema the admin reads carries (`label` when absent). */
  readonly labelText?: LocalizedText;
  readonly helpText?: LocalizedText;
  readonly required: boolean;
  readonly def?: unknown;
  readonly options: Readonly<Record<string, unknown>>;
  /** Nested schema of `array` and `object` fields (sanitized recursively); empty otherwise. */
  readonly fields: readonly SanitizedField[];
  /**
   * Of an `array` or `object` field: `<owner>.<name>` (`doc.article.links`), stored as each item's
   * `scopedArrayName` and the object's `scopedObjectName`, as the original's.
   */
  readonly scopedName?: string;
}

/** One column of the admin's list (`options.columns`, list-columns.ts). */
export interface ListColumn {
  readonly name: string;
  /** As configured: one string or one per language (the admin reads it in the editor's). */
  readonly label: LocalizedText;
}

export interface PieceTypeOptions {
  /** `defaultText` of `labelText` and `pluralLabelText`, for everything on the server that needs one string. */
  readonly label: string;
  readonly pluralLabel: string;
  /** As configured, per language or not: what the schema the admin reads carries. */
  readonly labelText: LocalizedText;
  readonly pluralLabelText: LocalizedText;
  readonly perPage: number;
  /** Inclusion projection for callers without API access; null means no public API. */
  readonly publicApiProjection: Readonly<Record<string, 1 | true>> | null;
  readonly pagePath: string | null;
  readonly localized: boolean;
  readonly slugPrefix: string;
  readonly sort: Readonly<Record<string, 1 | -1>>;
  /** Roles below these cannot view (null: anyone), edit drafts, or publish. */
  readonly viewRole: Role | null;
  readonly editRole: Role;
  readonly publishRole: Role;
  /** Drafts of this type are published on every save (images and files). */
  readonly autopublish: boolean;
  /** The type's own history retention; null: the global `limits.historyMaxEntries` / `historyMaxPublishEntries` / `historyMaxAgeDays`. */
  readonly history: { readonly maxEntries: number | null; readonly maxPublishEntries: number | null; readonly maxAgeDays: number | null };
  /**
   * Top-level fields a published read fills from the locale fallback chain when empty here
   * (`fallbackFields: true`: every field but `slug`, `visibility` and `archived`); empty: none.
   */
  readonly fallbackFields: readonly string[];
  /** Where the type's front end shows a document (`options.preview`, live preview); null: no preview. */
  readonly preview: PreviewOption | null;
  /** The admin list's columns (`options.columns`), the title first. */
  readonly columns: readonly ListColumn[];
  /** Review stages a draft passes before it may be published (`options.review`); null: none. */
  readonly review: ReviewOption | null;
}

export interface SanitizedPieceType {
  readonly name: string;
  readonly options: PieceTypeOptions;
  /** Every field, the built-in ones (title, slug, visibility, archived) included, in order. */
  readonly fields: readonly SanitizedField[];
  readonly fieldsByName: ReadonlyMap<string, SanitizedField>;
}
