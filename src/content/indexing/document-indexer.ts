import type { FieldTypeLookup } from '../fields/convert-schema.js';
import type { SearchText } from '../fields/field-type.js';
import type { SanitizedField, SanitizedPieceType } from '../types/piece-type.js';
import type { DocumentIndex, IndexEntry, StoredDocument } from '../../storage/storage-adapter.js';
import { sortify } from '../text.js';

/** What the original stores on every document for its own search; kept for clients that read it. */
export interface SearchProperties {
  highSearchText: string;
  highSearchWords: string[];
  lowSearchText: string;
  searchSummary: string;
}

/**
 * Derives from a stored document what the store indexes with it: each top-level field's filter
 * values (through its field type) and the search texts, in full and as the public projection
 * shows them.
 */
export class DocumentIndexer {
  readonly #registry: FieldTypeLookup;

  constructor(registry: FieldTypeLookup) {
    this.#registry = registry;
  }

  /** The index key of a field: its first storage key (`category`, `authorIds`). */
  indexKey(field: SanitizedField): string {
    return this.#registry.get(field.type)?.storageKeys?.(field)[0] ?? field.name;
  }

  index(type: SanitizedPieceType, doc: StoredDocument): DocumentIndex {
    const values: IndexEntry[] = [];
    for (const field of type.fields) {
      const fieldType = this.#registry.get(field.type);
      if (!fieldType?.indexValues) continue;
      const key = this.indexKey(field);
      for (const value of fieldType.indexValues(doc, field)) values.push({ key, value });
    }
    const all = this.#texts(type, doc, () => true);
    const projection = type.options.publicApiProjection;
    const shown = this.#texts(type, doc, (field) => projection !== null && isProjected(projection, field));
    return {
      values,
      search: {
        title: all.title,
        high: all.high,
        low: all.low,
        publicTitle: shown.title,
        publicHigh: shown.high,
        publicLow: shown.low,
      },
    };
  }

  /** The original's search properties, from the same texts the index gets. */
  searchProperties(type: SanitizedPieceType, doc: StoredDocument): SearchProperties {
    const texts = this.#fieldTexts(type, doc, () => true);
    const high = texts.filter((t) => t.weight === 'high').map((t) => sortify(t.text));
    const highSearchText = high.join(' ');
    return {
      highSearchText,
      highSearchWords: [...new Set(highSearchText.split(' ').filter(Boolean))],
      lowSearchText: texts.map((t) => sortify(t.text)).join(' '),
      searchSummary: texts
        .filter((t) => t.weight === 'low')
        .map((t) => t.text)
        .join('\n'),
    };
  }

  #texts(type: SanitizedPieceType, doc: StoredDocument, include: (field: SanitizedField) => boolean) {
    const titleField = type.fieldsByName.get('title');
    const title = titleField && include(titleField) ? String(doc.title ?? '') : '';
    const texts = this.#fieldTexts(type, doc, (field) => field.name !== 'title' && include(field));
    return {
      title,
      high: joinTexts(texts.filter((t) => t.weight === 'high')),
      low: joinTexts(texts.filter((t) => t.weight === 'low')),
    };
  }

  #fieldTexts(type: SanitizedPieceType, doc: StoredDocument, include: (field: SanitizedField) => boolean): SearchText[] {
    const texts: SearchText[] = [];
    for (const field of type.fields) {
      const fieldType = this.#registry.get(field.type);
      if (!fieldType?.searchTexts || !include(field) || field.options.searchable === false) continue;
      const value = fieldType.read ? fieldType.read(doc, field) : doc[field.name];
      if (value === undefined || value === null) continue;
      // A loop, not push(...): one text per widget or item, as many as the client sent.
      for (const text of fieldType.searchTexts(value, field)) if (text.text.trim() !== '') texts.push(text);
    }
    return texts;
  }
}

function joinTexts(texts: readonly SearchText[]): string {
  return texts.map((t) => t.text).join('\n');
}

/** A field the public projection shows: by its name, or a relationship by either spelling. */
export function isProjected(projection: Readonly<Record<string, unknown>>, field: SanitizedField): boolean {
  if (projection[field.name]) return true;
  if (field.type !== 'relationship' && field.type !== 'relationshipReverse') return false;
  const base = field.name.replace(/^_/, '');
  return Boolean(projection[base] || projection[`_${base}`]);
}
