import type { FieldTypeLookup } from '../fields/convert-schema.js';
import type { FieldType, SearchText } from '../fields/field-type.js';
import type { SanitizedField, SanitizedPieceType } from '../types/piece-type.js';
import type { DocumentIndex, IndexEntry, SearchTexts, StoredDocument } from '../../storage/storage-adapter.js';
import { createHash } from 'node:crypto';
import { sortify } from '../../core/text.js';
import { reviewOf, reviewerKey, reviewStageKey } from '../documents/review-state.js';

// Counted up whenever what the indexer derives from the same plan changes: every store then
// indexes its documents again at the next start (reindex.ts). 2: no public texts of their own
// for types whose projection shows every text. 3: fields' own keys (`indexEntries`: image sizes).
// 4: the content layer's own keys (`ownKeys`). 5: a reviewed draft's stage (`reviewStage`).
const indexFormat = 5;

/**
 * Index keys the content layer's own queries use. No field name starts with `@`, so no list
 * filter can name them. A draft's bookkeeping, for the dashboard's "my drafts": who changed it
 * last (`editor`, `updatedBy._id`) and, as 1, whether it has changes no one published
 * (`unpublished`: `modified`, or never published). `title`: the sortified title of every current
 * version, so relationship input naming documents by title finds them all in one indexed query.
 */
export const ownKeys = { editor: '@editor', unpublished: '@unpublished', title: '@title', reviewStage: reviewStageKey, reviewer: reviewerKey } as const;

/** What the original stores on every document for its own search; kept for clients that read it. */
export interface SearchProperties {
  highSearchText: string;
  highSearchWords: string[];
  lowSearchText: string;
  searchSummary: string;
}

/** What the indexer needs of one field, looked up once per piece type. */
interface IndexedField {
  readonly field: SanitizedField;
  readonly fieldType: FieldType;
}

interface TextField extends IndexedField {
  /** The public projection shows the field: its texts go into the public texts too. */
  readonly shown: boolean;
  /** The title: a text of its own in the index, one text among the others in the search properties. */
  readonly isTitle: boolean;
}

/** Which fields of a type give filter values and which give search texts: a schema walk per type, not per document. */
interface IndexPlan {
  readonly values: readonly (IndexedField & { readonly key: string })[];
  /** Fields that index values under keys of their own too. */
  readonly entries: readonly IndexedField[];
  /** In the type's order, the title included. */
  readonly texts: readonly TextField[];
  /** Whether the type has a `title` field, and whether the public projection shows it. */
  readonly title: { readonly present: boolean; readonly shown: boolean };
  /**
   * The public projection shows every text: the public texts would repeat the others, so none
   * are stored and a public search reads all texts (`searchedTexts`).
   */
  readonly publicSeesAll: boolean;
  /** Identifies everything above and the index format: a stored index derived by another plan is stale. */
  readonly digest: string;
}

const noSearchTexts: SearchTexts = Object.freeze({ title: '', high: '', low: '', publicTitle: '', publicHigh: '', publicLow: '' });

/**
 * Derives from a stored document what the store indexes with it: each top-level field's filter
 * values (through its field type) and the search texts, in full and as the public projection
 * shows them, plus the original's search properties. Each field's texts are extracted once per
 * write, and which fields to read is worked out once per type.
 */
export class DocumentIndexer {
  readonly #registry: FieldTypeLookup;
  readonly #plans = new WeakMap<SanitizedPieceType, IndexPlan>();

  constructor(registry: FieldTypeLookup) {
    this.#registry = registry;
  }

  /** The index key of a field: its first storage key (`category`, `authorIds`). */
  indexKey(field: SanitizedField): string {
    return this.#registry.get(field.type)?.storageKeys?.(field)[0] ?? field.name;
  }

  /** The document's index and its search properties, from one reading of its texts. */
  index(type: SanitizedPieceType, doc: StoredDocument): { index: DocumentIndex; properties: SearchProperties } {
    const plan = this.#plan(type);
    const values: IndexEntry[] = [];
    for (const { field, fieldType, key } of plan.values) {
      for (const value of fieldType.indexValues!(doc, field)) values.push({ key, value });
    }
    for (const { field, fieldType } of plan.entries) values.push(...fieldType.indexEntries!(doc, field));
    if (doc.cmsMode === 'draft') values.push(...draftEntries(type, doc));
    const title = sortify(String(doc.title ?? ''));
    if (doc.cmsMode !== 'previous' && title !== '') values.push({ key: ownKeys.title, value: title });
    const texts = this.#texts(plan, doc);
    // A previous version only waits to be reverted to: no search reads it, so it has no texts.
    const search = doc.cmsMode === 'previous' ? noSearchTexts : searchTextsOf(plan, doc, texts);
    return { index: { locale: localeOf(doc), mode: doc.cmsMode ?? null, values, search }, properties: searchPropertiesOf(texts) };
  }

  /** Which texts a search by someone who sees only the public projection reads. */
  searchedTexts(type: SanitizedPieceType): 'all' | 'public' {
    return this.#plan(type).publicSeesAll ? 'all' : 'public';
  }

  /** The digest of the plan that `index` derives the type's documents by. */
  planDigest(type: SanitizedPieceType): string {
    return this.#plan(type).digest;
  }

  /** Every non-empty text of the document's searchable fields, in the type's order, each read once. */
  #texts(plan: IndexPlan, doc: StoredDocument): { readonly text: SearchText; readonly from: TextField }[] {
    const texts: { text: SearchText; from: TextField }[] = [];
    for (const from of plan.texts) {
      const { field, fieldType } = from;
      const value = fieldType.read ? fieldType.read(doc, field) : doc[field.name];
      if (value === undefined || value === null) continue;
      // A loop, not push(...): one text per widget or item, as many as the client sent.
      for (const text of fieldType.searchTexts!(value, field)) if (text.text.trim() !== '') texts.push({ text, from });
    }
    return texts;
  }

  #plan(type: SanitizedPieceType): IndexPlan {
    let plan = this.#plans.get(type);
    if (plan) return plan;
    const projection = type.options.publicApiProjection;
    const isShown = (field: SanitizedField) => projection !== null && isProjected(projection, field, this.#registry);
    const values: (IndexedField & { key: string })[] = [];
    const entries: IndexedField[] = [];
    const texts: TextField[] = [];
    for (const field of type.fields) {
      const fieldType = this.#registry.get(field.type);
      if (!fieldType) continue;
      if (fieldType.indexValues) values.push({ field, fieldType, key: this.indexKey(field) });
      if (fieldType.indexEntries) entries.push({ field, fieldType });
      if (fieldType.searchTexts && field.options.searchable !== false) {
        texts.push({ field, fieldType, shown: isShown(field), isTitle: field.name === 'title' });
      }
    }
    const titleField = type.fieldsByName.get('title');
    const title = { present: titleField !== undefined, shown: titleField !== undefined && isShown(titleField) };
    const publicSeesAll = projection !== null && texts.every((text) => text.shown) && (title.shown || !title.present);
    const digest = createHash('sha256')
      .update(JSON.stringify({
        indexFormat,
        values: values.map(({ field, key }) => [key, field.name, field.type, field.options]),
        entries: entries.map(({ field }) => [field.name, field.type, field.options]),
        texts: texts.map(({ field, shown }) => [field.name, field.type, shown, field.options]),
        title,
        publicSeesAll,
      }))
      .digest('base64url');
    plan = { values, entries, texts, title, publicSeesAll, digest };
    this.#plans.set(type, plan);
    return plan;
  }
}

function draftEntries(type: SanitizedPieceType, doc: StoredDocument): IndexEntry[] {
  const entries: IndexEntry[] = [];
  if (type.options.review) {
    const review = reviewOf(type.options.review, doc);
    entries.push({ key: ownKeys.reviewStage, value: review.stage });
    for (const reviewer of review.reviewers) entries.push({ key: ownKeys.reviewer, value: reviewer });
  }
  const editor = (doc.updatedBy as { _id?: unknown } | undefined)?._id;
  if (typeof editor === 'string') entries.push({ key: ownKeys.editor, value: editor });
  if (doc.modified === true || !doc.lastPublishedAt) entries.push({ key: ownKeys.unpublished, value: 1 });
  return entries;
}

/** The index's texts: the title apart (searchable whatever its options say), the others by weight. */
function searchTextsOf(plan: IndexPlan, doc: StoredDocument, texts: readonly { text: SearchText; from: TextField }[]): SearchTexts {
  const title = plan.title.present ? String(doc.title ?? '') : '';
  const high: string[] = [];
  const low: string[] = [];
  const publicHigh: string[] = [];
  const publicLow: string[] = [];
  for (const { text, from } of texts) {
    if (from.isTitle) continue;
    (text.weight === 'high' ? high : low).push(text.text);
    if (from.shown) (text.weight === 'high' ? publicHigh : publicLow).push(text.text);
  }
  return {
    title,
    high: high.join('\n'),
    low: low.join('\n'),
    publicTitle: plan.title.shown && !plan.publicSeesAll ? title : '',
    publicHigh: plan.publicSeesAll ? '' : publicHigh.join('\n'),
    publicLow: plan.publicSeesAll ? '' : publicLow.join('\n'),
  };
}

/** The original's search properties (facts 2.6), the title among the texts. */
function searchPropertiesOf(texts: readonly { text: SearchText }[]): SearchProperties {
  const highSearchText = texts
    .filter(({ text }) => text.weight === 'high')
    .map(({ text }) => sortify(text.text))
    .join(' ');
  return {
    highSearchText,
    highSearchWords: [...new Set(highSearchText.split(' ').filter(Boolean))],
    lowSearchText: texts.map(({ text }) => sortify(text.text)).join(' '),
    searchSummary: texts
      .filter(({ text }) => text.weight === 'low')
      .map(({ text }) => text.text)
      .join('\n'),
  };
}

/** A field the public projection shows: by its name, or a relationship (forward or reverse) by either spelling. */
export function isProjected(projection: Readonly<Record<string, unknown>>, field: SanitizedField, fieldTypes: FieldTypeLookup): boolean {
  if (projection[field.name]) return true;
  if (!fieldTypes.get(field.type)?.relates) return false;
  const base = field.name.replace(/^_/, '');
  return Boolean(projection[base] || projection[`_${base}`]);
}

/** The locale the version is stored under: `en` of `en:draft`; null for a non-localized type's. */
function localeOf(doc: StoredDocument): string | null {
  if (doc.cmsLocale === undefined) return null;
  const separator = doc.cmsLocale.lastIndexOf(':');
  return separator < 0 ? doc.cmsLocale : doc.cmsLocale.slice(0, separator);
}
