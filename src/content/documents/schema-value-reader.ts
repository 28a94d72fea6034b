import type { FieldTypeRegistry } from '../fields/registry.js';
import type { WidgetTypes } from '../fields/field-type.js';
import type { SanitizedField, SanitizedPieceType } from '../types/piece-type.js';
import type { StoredDocument } from '../../storage/storage-adapter.js';
import { isDeepStrictEqual } from 'node:util';
import { liveName } from './archive-prefix.js';
import { schemasBelow, schemasHold, walkFields } from '../fields/walk-fields.js';

/**
 * Reads a version's schema values through the field registry: which document properties hold
 * them (computed once per type), what publishing copies, whether a draft differs from the
 * published version (`modified`), and which fields hold secrets or related ids.
 */
export class SchemaValueReader {
  readonly #registry: FieldTypeRegistry;
  readonly #widgetTypes: WidgetTypes;
  readonly #storageKeys = new Map<string, readonly string[]>();
  /** Per type: whether a secret field sits anywhere below the top level (arrays, objects, widgets). */
  readonly #nestedSecrets = new WeakMap<SanitizedPieceType, boolean>();

  constructor(registry: FieldTypeRegistry, widgetTypes: WidgetTypes) {
    this.#registry = registry;
    this.#widgetTypes = widgetTypes;
  }

  storageKeys(type: SanitizedPieceType): readonly string[] {
    let keys = this.#storageKeys.get(type.name);
    if (!keys) {
      keys = type.fields.flatMap((field) => this.fieldKeys(field));
      this.#storageKeys.set(type.name, keys);
    }
    return keys;
  }

  fieldKeys(field: SanitizedField): readonly string[] {
    return this.#registry.get(field.type)?.storageKeys?.(field) ?? [field.name];
  }

  /** The stored value of one field (relationships: their ids). */
  read(doc: Record<string, unknown>, field: SanitizedField): unknown {
    const type = this.#registry.get(field.type);
    return type?.read ? type.read(doc, field) : doc[field.name];
  }

  /** The schema values of a version, the part publishing copies (archived stays per version). */
  schemaValues(type: SanitizedPieceType, doc: Record<string, unknown>): Record<string, unknown> {
    const values: Record<string, unknown> = {};
    for (const key of this.storageKeys(type)) {
      if (key !== 'archived' && key in doc) values[key] = doc[key];
    }
    return values;
  }

  /**
   * A draft is modified when its schema values differ from the published version's. The slug is
   * compared without the archive prefix: archiving frees the versions' slugs one after the other.
   */
  isModified(type: SanitizedPieceType, draft: StoredDocument, published: StoredDocument | null): boolean {
    if (!published) return true;
    return this.storageKeys(type).some(
      (key) => key !== 'archived' && !isDeepStrictEqual(comparable(draft, key), comparable(published, key)),
    );
  }

  /** The top-level fields whose stored value never leaves the server (passwords). */
  passwordFields(type: SanitizedPieceType): readonly SanitizedField[] {
    return type.fields.filter((field) => this.#registry.get(field.type)?.secret);
  }

  /**
   * A copy of the document without its secrets (password hashes), for an answer or a history
   * entry. Nested ones (in array items, objects, widgets) need a deep copy, so that the stored
   * document keeps them; types without any pay only for a shallow one.
   */
  withoutSecrets(type: SanitizedPieceType, doc: Readonly<Record<string, unknown>>): Record<string, unknown> {
    if (!this.#holdsNestedSecret(type)) {
      const copy = { ...doc };
      for (const field of this.passwordFields(type)) delete copy[field.name];
      return copy;
    }
    const copy = structuredClone(doc) as Record<string, unknown>;
    walkFields({ fields: type.fields, values: copy }, { registry: this.#registry, widgetTypes: this.#widgetTypes }, (field, container) => {
      if (this.#registry.get(field.type)?.secret) delete container[field.name];
    });
    return copy;
  }

  #holdsNestedSecret(type: SanitizedPieceType): boolean {
    let holds = this.#nestedSecrets.get(type);
    if (holds === undefined) {
      const widgetTypes = this.#widgetTypes;
      holds = schemasHold(type.fields.flatMap((field) => schemasBelow(field, widgetTypes)), widgetTypes, 'password');
      this.#nestedSecrets.set(type, holds);
    }
    return holds;
  }

  /** The top-level fields that store ids of related documents (relationships, not reverse ones). */
  relationshipFields(type: SanitizedPieceType): readonly SanitizedField[] {
    return type.fields.filter((field) => this.#registry.get(field.type)?.relates === 'forward');
  }
}

function comparable(doc: StoredDocument, key: string): unknown {
  const value = doc[key] ?? null;
  return key === 'slug' && typeof value === 'string' ? liveName(value, doc.cmsDocId) : value;
}
