import type { AppConfig } from '../app-config.js';
import type { FieldTypeLookup } from '../fields/convert-schema.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import type { StorageSession, StoredDocument, TypeQuery } from '../../storage/storage-adapter.js';
import type { Mode } from '../../core/ids.js';
import { versionId } from './caller.js';
import { relatedIds, relationshipTarget } from '../fields/relationship.js';
import { walkFieldDefinitions, walkFields } from '../fields/walk-fields.js';

/**
 * The bookkeeping a document's relationships leave on the documents they name (original:
 * `relatedReverseIds`, `cacheInvalidatedAt`). When a version is written with relationships (or
 * rich text showing image pieces inline, `FieldType.inlineReferences`: the original's `imageIds`), each
 * related document's version in the same locale and mode (or its only version, for a type that
 * is not localized) gets the writer's `cmsDocId` in `relatedReverseIds`, and its
 * `cacheInvalidatedAt` set to the writer's `updatedAt`; a relationship an update drops, or the
 * removal of the version, takes the id away again (the related version's `cacheInvalidatedAt`
 * moves too). The related versions' `updatedAt` stays: it names their content's state for their
 * own editors' `If-Match`, and their content did not change.
 *
 * The `previous` copy a publish keeps is not live content: it leaves no bookkeeping.
 * All of it runs in the transaction of the write that causes it, and costs an indexed insert or
 * delete and a write of its own fields per related version (`DocumentStore.relateBack`): not
 * a read or rewrite of the ids other documents left there, so no more as more documents relate.
 */

/** Related `cmsDocId`s of one version, per related type. */
type RelatedByType = Map<string, Set<string>>;

/** How the related versions of one type change: which ids gain or lose the writer's id. */
interface Change {
  readonly added: ReadonlySet<string>;
  readonly removed: ReadonlySet<string>;
  readonly kept: ReadonlySet<string>;
}

export class ReverseBookkeeping {
  readonly #config: AppConfig;
  readonly #deps: { readonly registry: FieldTypeLookup; readonly widgetTypes: AppConfig['widgetTypes'] };
  /** Per type: whether its schema has a relationship at any depth (else no walk is needed). */
  readonly #relates = new WeakMap<SanitizedPieceType, boolean>();
  /** Per type name: the types with a relationship to it at any depth (built once, on first use). */
  #relatingTypes: Map<string, SanitizedPieceType[]> | undefined;

  constructor(deps: { config: AppConfig; registry: FieldTypeLookup }) {
    this.#config = deps.config;
    this.#deps = { registry: deps.registry, widgetTypes: deps.config.widgetTypes };
  }

  /** Whether versions of `type` can relate to anything (top level, arrays, objects, widgets, rich text's inline images). */
  relates(type: SanitizedPieceType): boolean {
    let relates = this.#relates.get(type);
    if (relates === undefined) {
      relates = this.#targetsOf(type).size > 0;
      this.#relates.set(type, relates);
    }
    return relates;
  }

  /** The types the versions of `type` may relate to, at any depth. */
  #targetsOf(type: SanitizedPieceType): Set<string> {
    const targets = new Set<string>();
    walkFieldDefinitions([type.fields], this.#deps.widgetTypes, (field) => {
      const fieldType = this.#deps.registry.get(field.type);
      if (fieldType?.relates === 'forward') targets.add(relationshipTarget(field.name, field.options.withType));
      for (const target of fieldType?.inlineReferenceTypes?.(field) ?? []) targets.add(target);
    });
    return targets;
  }

  /** Whether versions of `type` relate to anything or anything relates to them: their writes keep bookkeeping. */
  keepsBooks(type: SanitizedPieceType): boolean {
    return this.relates(type) || this.relatingTo(type.name).length > 0;
  }

  /** The `cmsDocId`s a version relates to, per related type, at any depth. */
  related(type: SanitizedPieceType, doc: Readonly<Record<string, unknown>> | null): RelatedByType {
    const found: RelatedByType = new Map();
    if (!doc || !this.relates(type)) return found;
    const add = (target: string, ids: Iterable<string>) => {
      const all = found.get(target) ?? new Set<string>();
      for (const id of ids) all.add(id);
      found.set(target, all);
    };
    walkFields({ fields: type.fields, values: doc as Record<string, unknown> }, this.#deps, (field, container) => {
      const fieldType = this.#deps.registry.get(field.type);
      if (fieldType?.relates === 'forward') add(relationshipTarget(field.name, field.options.withType), relatedIds(container, field));
      for (const [target, ids] of fieldType?.inlineReferences?.(container[field.name]) ?? []) add(target, ids);
    });
    return found;
  }

  /**
   * Brings the related versions up to date after `before` became `after` (null: inserted, or
   * removed). `stamp` is the time their `cacheInvalidatedAt` takes.
   */
  async afterWrite(
    session: StorageSession,
    type: SanitizedPieceType,
    versions: { readonly before: StoredDocument | null; readonly after: StoredDocument | null },
    stamp: string,
  ): Promise<void> {
    const doc = versions.after ?? versions.before;
    if (!doc || doc.cmsMode === 'previous') return;
    await this.#invalidateRelating(session, type, doc, stamp);
    if (!this.relates(type)) return;
    const before = this.related(type, versions.before);
    const after = this.related(type, versions.after);
    for (const target of new Set([...before.keys(), ...after.keys()])) {
      const relatedType = this.#config.pieceTypes.get(target);
      if (!relatedType) continue;
      const change = changeOf(before.get(target), after.get(target));
      await this.#apply(session, relatedType, doc, change, stamp);
    }
  }

  /**
   * The versions that relate to `doc` (its `relatedReverseIds`) show it expanded: as the
   * original's, their `cacheInvalidatedAt` moves when it is written or removed.
   */
  async #invalidateRelating(session: StorageSession, type: SanitizedPieceType, doc: StoredDocument, stamp: string): Promise<void> {
    const ids = reverseIdsOf(doc).filter((id) => id !== doc.cmsDocId);
    if (ids.length === 0) return;
    await session.documents.hold(ids);
    for (const relating of this.relatingTo(type.name)) {
      const place = placeFor(relating, doc);
      if (!place) continue;
      for (const version of await session.documents.find({ type: relating.name, docIds: ids, ...place })) {
        version.cacheInvalidatedAt = later(version.cacheInvalidatedAt, stamp);
        await session.documents.update(version);
      }
    }
  }

  /** The types whose versions may relate to documents of `typeName`, at any depth. */
  relatingTo(typeName: string): readonly SanitizedPieceType[] {
    if (!this.#relatingTypes) {
      const relating = new Map<string, SanitizedPieceType[]>();
      for (const type of this.#config.pieceTypes.values()) {
        for (const target of this.#targetsOf(type)) relating.set(target, [...(relating.get(target) ?? []), type]);
      }
      this.#relatingTypes = relating;
    }
    return this.#relatingTypes.get(typeName) ?? [];
  }

  async #apply(session: StorageSession, relatedType: SanitizedPieceType, doc: StoredDocument, change: Change, stamp: string): Promise<void> {
    const ids = [...change.added, ...change.removed, ...change.kept];
    if (ids.length === 0) return;
    // Held before they are written: a write of one of them, in this process or another, either
    // comes first, or waits for this transaction and reads what it wrote.
    await session.documents.hold(ids);
    const place = placeFor(relatedType, doc);
    if (!place) return;
    const localized = relatedType.options.localized;
    const stale = change.removed.size > 0 && !localized ? await this.#stillRelated(session, doc, relatedType.name) : new Set<string>();
    // Neither read nor rewritten with their other reverse ids: each is an indexed insert or
    // delete, and a write of the version's own fields (cacheInvalidatedAt), however many relate to it.
    const changes = ids.map((id) => ({
      versionId: versionId({ docId: id, locale: place.locale ?? null }, place.mode ?? 'draft'),
      present: change.added.has(id) || change.kept.has(id) || stale.has(id),
    }));
    await session.documents.relateBack(relatedType.name, doc.cmsDocId, changes, stamp);
  }

  /**
   * The documents of `target` that other live versions of `doc`'s document (other locales and
   * modes) still relate to: a document of a type that is not localized has one version for all
   * of them, which keeps the id while any of them relates to it.
   */
  async #stillRelated(session: StorageSession, doc: StoredDocument, target: string): Promise<Set<string>> {
    const type = this.#config.pieceTypes.get(doc.type);
    if (!type) return new Set();
    const others = await session.documents.find({ type: type.name, docIds: [doc.cmsDocId] });
    const ids = new Set<string>();
    for (const other of others) {
      if (other._id === doc._id || other.cmsMode === 'previous') continue;
      for (const id of this.related(type, other).get(target) ?? []) ids.add(id);
    }
    return ids;
  }
}

/**
 * Where the versions of `type` that `doc`'s version meets live: its own locale and mode, or
 * nowhere in particular for a type that is not localized. A document that is not localized meets
 * the localized versions of no locale in particular: as the original, it records nothing on them.
 */
function placeFor(type: SanitizedPieceType, doc: StoredDocument): Pick<TypeQuery, 'locale' | 'mode'> | null {
  if (!type.options.localized) return { locale: null, mode: null };
  const [locale, mode] = String(doc.cmsLocale ?? '').split(':');
  return locale && mode ? { locale, mode: mode as Mode } : null;
}

function changeOf(before: ReadonlySet<string> = new Set(), after: ReadonlySet<string> = new Set()): Change {
  return {
    added: new Set([...after].filter((id) => !before.has(id))),
    removed: new Set([...before].filter((id) => !after.has(id))),
    kept: new Set([...after].filter((id) => before.has(id))),
  };
}

/** The stored `relatedReverseIds` (absent on versions no relationship ever named). */
export function reverseIdsOf(doc: Readonly<Record<string, unknown>>): string[] {
  const ids = doc.relatedReverseIds;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}

/** The later of two ISO times (the first may be missing). */
export function later(current: unknown, stamp: string): string {
  return typeof current === 'string' && current > stamp ? current : stamp;
}
