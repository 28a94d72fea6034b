import type { AppConfig } from '../app-config.js';
import type { Principal } from '../../core/principal.js';
import type { Mode } from '../../core/ids.js';
import type { FieldTypeLookup } from '../fields/convert-schema.js';
import type { SanitizedField, SanitizedPieceType } from '../types/piece-type.js';
import type { DocumentQuery, DocumentStore, FilterCondition, StoredDocument } from '../../storage/storage-adapter.js';
import { canAccessApi, canReadType, canViewDrafts, visibleValues } from '../access/permissions.js';
import { expandedKey, idsKey, relatedFields, relatedIds, relationshipField, relationshipTarget } from '../fields/relationship.js';
import { forwardRelationship } from '../fields/relationship-reverse.js';
import { isProjected } from '../indexing/document-indexer.js';
import { includeOnly } from '../query/projection.js';
import { schemasHold, walkFields, walkWidgets, widgetSchemasBelow } from '../fields/walk-fields.js';
import type { AnswerSources } from '../generation-keys.js';
import { noteRelatedRead } from './answer-dependencies.js';

type Output = Record<string, unknown>;

/** Presents documents of a related type for the caller, without their own relationships; notes what it reads in `sources`. */
export type PresentRelated = (docs: readonly StoredDocument[], type: SanitizedPieceType, principal: Principal, sources?: AnswerSources) => Promise<Output[]>;

/** A related document's output as one relationship shows it, given the `_fields` it stores for it (images: their crop). */
export type ThroughFields = (output: Output, field: SanitizedField, fields: Readonly<Record<string, unknown>>) => Output;

/** Who reads, from a document in which locale and mode (`null`s for non-localized ones). */
export interface RelatedReader {
  readonly principal: Principal;
  readonly locale: string | null;
  readonly mode: Mode | null;
  /** Where the versions and keys read are noted, for an answer that may be kept. */
  readonly sources?: AnswerSources;
}

/** A related document as stored (what grouping reads) and as the caller sees it. */
interface Related {
  readonly stored: StoredDocument;
  readonly output: Output;
}

/**
 * The version of a related type a caller reads from a document in `locale`/`mode`: the same
 * locale and mode, but published versions where the caller may not see drafts of that type.
 */
export function relatedVersion(
  config: AppConfig,
  type: SanitizedPieceType,
  reader: RelatedReader,
): Pick<DocumentQuery, 'locale' | 'mode'> {
  if (!type.options.localized) return { locale: null, mode: null };
  const draft = reader.mode === 'draft' && canViewDrafts(reader.principal, type);
  return { locale: reader.locale ?? config.defaultLocale, mode: draft ? 'draft' : 'published' };
}

/**
 * Expands relationships (`_author`, also inside arrays, objects and area widgets at any depth)
 * and reverse relationships for a page of presented documents: one store query per field
 * definition for the whole page, in the caller's locale, mode and permissions. Related documents
 * do not load their own relationships, except those inside their areas' widgets (as the
 * original's widget loaders do: an author's image widget shows its image), one level deep, once
 * per related document however many documents relate to it.
 */
export class RelatedLoader {
  readonly #config: AppConfig;
  readonly #store: DocumentStore;
  readonly #present: PresentRelated;
  readonly #registry: FieldTypeLookup;
  readonly #throughFields: ThroughFields;
  /** Per type: whether a widget of its areas, at any depth, holds a relationship. */
  readonly #widgetsRelate = new WeakMap<SanitizedPieceType, boolean>();

  constructor(deps: { config: AppConfig; store: DocumentStore; present: PresentRelated; registry: FieldTypeLookup; throughFields: ThroughFields }) {
    this.#config = deps.config;
    this.#store = deps.store;
    this.#present = deps.present;
    this.#registry = deps.registry;
    this.#throughFields = deps.throughFields;
  }

  /**
   * `outputs` share one locale and mode (a page, or one document): the first one's is used.
   * `projection`: the owner type's public projection when the caller sees only that.
   */
  async expand(
    outputs: Output[],
    args: { type: SanitizedPieceType; principal: Principal; projection: Readonly<Record<string, unknown>> | null; sources?: AnswerSources | undefined },
  ): Promise<void> {
    const first = outputs[0];
    if (!first) return;
    const [locale, mode] = typeof first.cmsLocale === 'string' ? first.cmsLocale.split(':') : [];
    const reader: RelatedReader = { principal: args.principal, locale: locale ?? null, mode: (mode ?? null) as Mode | null, sources: args.sources };
    const shown = args.type.fields.filter((field) => !args.projection || isProjected(args.projection, field, this.#registry));
    const holders = relationshipHolders(shown, outputs, { registry: this.#registry, widgetTypes: this.#config.widgetTypes });
    for (const [field, held] of holders) await this.#expandForward(field, held, reader);
    for (const field of shown.filter((f) => this.#registry.get(f.type)?.relates === 'reverse')) {
      await this.#expandReverse(args.type, field, outputs, reader);
    }
  }

  /** `nested`: the holders are related documents' widgets, whose related documents load nothing more. */
  async #expandForward(field: SanitizedField, holders: readonly Output[], reader: RelatedReader, nested = false): Promise<void> {
    const ids = [...new Set(holders.flatMap((holder) => relatedIds(holder, field)))];
    const typeName = relationshipTarget(field.name, field.options.withType);
    const related = ids.length === 0 ? [] : await this.#load(field, typeName, { docIds: ids }, reader, nested);
    const byId = new Map(related.map((doc) => [doc.stored.cmsDocId, doc.output]));
    for (const holder of holders) {
      const fields = relatedFields(holder, field);
      holder[expandedKey(field)] = relatedIds(holder, field).flatMap((id) => {
        const output = byId.get(id);
        return output ? [{ ...this.#throughFields(output, field, fields[id] ?? {}), _fields: fields[id] ?? {} }] : [];
      });
    }
  }

  /**
   * Documents of the forward type whose ids hold the owner, grouped in memory per owner, each
   * with the `_fields` its forward relationship stores for the owner. Those are the related
   * document's data: shown only when the caller sees its forward field (full access to its
   * type, or a projection that shows the field), as reading it directly would show them.
   */
  async #expandReverse(owner: SanitizedPieceType, field: SanitizedField, outputs: readonly Output[], reader: RelatedReader): Promise<void> {
    const forward = forwardRelationship(this.#config.pieceTypes, owner, field);
    const ownerIds = outputs.map((output) => String(output.cmsDocId));
    const conditions: FilterCondition[] = [{ key: idsKey(forward.field), op: 'in', values: ownerIds }];
    const related = await this.#load(field, forward.type.name, { conditions }, reader);
    const withFields = seesField(reader.principal, forward, this.#registry);
    for (const output of outputs) {
      const ownerId = String(output.cmsDocId);
      output[expandedKey(field)] = related
        .filter((doc) => relatedIds(doc.stored, forward.field).includes(ownerId))
        .map((doc) => ({
          ...doc.output,
          ...(withFields && { _fields: relatedFields(doc.stored, forward.field)[ownerId] ?? {} }),
        }));
    }
  }

  /**
   * One query for the related documents the caller may see, in the related type's default
   * order (the order reverse relationships show), presented, limited by `builders.project`,
   * with the relationships of their widgets expanded unless they are `nested` themselves.
   */
  async #load(
    field: SanitizedField,
    typeName: string,
    criteria: Pick<DocumentQuery, 'docIds' | 'conditions'>,
    reader: RelatedReader,
    nested = false,
  ): Promise<Related[]> {
    const type = this.#config.pieceTypes.get(typeName);
    if (!type || !canReadType(reader.principal, type)) return [];
    const version = relatedVersion(this.#config, type, reader);
    if (reader.sources) noteRelatedRead(reader.sources, type.name, version, criteria.docIds);
    const stored = await this.#store.find({
      type: type.name,
      ...version,
      ...criteria,
      archived: false,
      visibility: visibleValues(reader.principal),
      sort: Object.entries(type.options.sort).map(([name, direction]) => ({ field: name, direction })),
      // A project decision (docs: "Response documents"): a related document is shown without its
      // `relatedReverseIds`, the ids of every document naming it, which grow with the store (an
      // author of 4,000 articles made each article's answer carry them all).
      reverseIds: false,
    });
    const outputs = await this.#present(stored, type, reader.principal, reader.sources);
    for (const output of outputs) delete output.relatedReverseIds;
    const project = (field.options.builders as { project?: Record<string, unknown> } | undefined)?.project;
    const related = stored.map((doc, i) => ({ stored: doc, output: project ? includeOnly(outputs[i]!, project) : outputs[i]! }));
    if (!nested && this.#widgetsOfTypeRelate(type)) await this.#expandWidgets(type, related.map((doc) => doc.output), reader);
    return related;
  }

  /** The relationships inside the widgets of related documents (as presented: what the caller sees). */
  async #expandWidgets(type: SanitizedPieceType, outputs: readonly Output[], reader: RelatedReader): Promise<void> {
    const deps = { registry: this.#registry, widgetTypes: this.#config.widgetTypes };
    for (const [field, held] of widgetRelationshipHolders(type.fields, outputs, deps)) {
      await this.#expandForward(field, [...held], reader, true);
    }
  }

  #widgetsOfTypeRelate(type: SanitizedPieceType): boolean {
    let relate = this.#widgetsRelate.get(type);
    if (relate === undefined) {
      const { widgetTypes } = this.#config;
      relate = schemasHold(widgetSchemasBelow([type.fields], widgetTypes), widgetTypes, relationshipField.name);
      this.#widgetsRelate.set(type, relate);
    }
    return relate;
  }
}

/** Whether the caller sees `field` on documents of `type`: all of them, or its projection's. */
function seesField(
  principal: Principal,
  { type, field }: { type: SanitizedPieceType; field: SanitizedField },
  fieldTypes: FieldTypeLookup,
): boolean {
  const projection = type.options.publicApiProjection;
  return canAccessApi(principal, type) || (projection !== null && isProjected(projection, field, fieldTypes));
}

/**
 * The relationship field definitions inside the area widgets of `outputs` (at any depth below a
 * widget), each with the widgets, items and objects that hold it. A set per field: an area nested
 * in a widget is reached from each area above it, and must be counted once.
 */
function widgetRelationshipHolders(
  fields: readonly SanitizedField[],
  outputs: readonly Output[],
  deps: Parameters<typeof walkFields>[1],
): Map<SanitizedField, Set<Output>> {
  const found = new Map<SanitizedField, Set<Output>>();
  for (const output of outputs) {
    walkWidgets({ fields, values: output }, deps, (widget) => {
      for (const [held, holders] of relationshipHolders(widget.fields, [widget.values], deps)) {
        const all = found.get(held) ?? new Set<Output>();
        for (const holder of holders) all.add(holder);
        found.set(held, all);
      }
    });
  }
  return found;
}

/**
 * Every relationship field definition reachable through arrays, objects and area widgets
 * (nested areas too), with the documents, items, objects and widgets that hold it: ids are
 * collected across all of them before any query.
 */
function relationshipHolders(
  fields: readonly SanitizedField[],
  outputs: readonly Output[],
  deps: Parameters<typeof walkFields>[1],
): Map<SanitizedField, Output[]> {
  const found = new Map<SanitizedField, Output[]>();
  for (const output of outputs) {
    walkFields({ fields, values: output }, deps, (field, container) => {
      if (deps.registry.get(field.type)?.relates !== 'forward') return;
      const holders = found.get(field);
      if (holders) holders.push(container);
      else found.set(field, [container]);
    });
  }
  return found;
}
