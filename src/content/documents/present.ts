import type { AppConfig } from '../../config/config-types.js';
import type { Principal } from '../access/principal.js';
import type { SanitizedField, SanitizedPieceType } from '../types/piece-type.js';
import type { DocumentStore, StoredDocument } from '../../storage/storage-adapter.js';
import type { SchemaLayout } from './versions.js';
import { canAccessApi, canPublish, canReadType, canWrite, visibleValues } from '../access/permissions.js';

export interface PresentOptions {
  readonly type: SanitizedPieceType;
  readonly principal: Principal;
  /** Expand relationships (`_author`); related documents themselves are shown without theirs. */
  readonly withRelationships?: boolean;
}

type Output = Record<string, unknown>;

/**
 * Turns stored versions into response documents: secrets removed, permission flags, URLs,
 * area annotations, relationships expanded in one query per relationship field for the whole
 * page, and the public projection for callers without API access.
 */
export class DocumentPresenter {
  readonly #config: AppConfig;
  readonly #layout: SchemaLayout;
  readonly #store: DocumentStore;

  constructor(deps: { config: AppConfig; layout: SchemaLayout; store: DocumentStore }) {
    this.#config = deps.config;
    this.#layout = deps.layout;
    this.#store = deps.store;
  }

  async present(docs: readonly StoredDocument[], options: PresentOptions): Promise<Output[]> {
    const { type, principal } = options;
    const projection = canAccessApi(principal, type) ? null : type.options.publicApiProjection;
    const outputs = docs.map((doc) => this.#shape(doc, type, principal));
    if (options.withRelationships !== false) {
      for (const field of this.#layout.relationshipFields(type)) {
        if (projection && !projects(projection, field)) continue;
        await this.#expand(outputs, field, principal);
      }
    }
    return projection ? outputs.map((output) => project(output, projection)) : outputs;
  }

  #shape(doc: StoredDocument, type: SanitizedPieceType, principal: Principal): Output {
    const output: Output = { ...doc };
    for (const field of this.#layout.passwordFields(type)) delete output[field.name];
    const mode = doc.cmsMode === 'draft' ? 'draft' : type.options.localized ? 'published' : null;
    const editable = canWrite(principal, type, mode);
    annotateAreas(output, doc._id, editable);
    if (editable) {
      output._create = true;
      output._edit = true;
      if (canPublish(principal, type)) output._publish = true;
      output._delete = true;
    }
    Object.assign(output, this.#urls(doc, type));
    return output;
  }

  #urls(doc: StoredDocument, type: SanitizedPieceType): { _url?: string; _parentUrl?: string } {
    const pagePath = type.options.pagePath;
    if (pagePath === null) return {};
    const locale = doc.cmsLocale?.split(':')[0];
    const prefix = locale ? (this.#config.locales.get(locale)?.prefix ?? '') : '';
    const parentUrl = `${this.#config.baseUrl}${prefix}${pagePath}`;
    return { _url: `${parentUrl}/${doc.slug}`, _parentUrl: parentUrl };
  }

  async #expand(outputs: Output[], field: SanitizedField, principal: Principal): Promise<void> {
    const base = field.name.replace(/^_/, '');
    const idsKey = `${base}Ids`;
    const fieldsKey = `${base}Fields`;
    const wanted = new Set<string>();
    for (const output of outputs) for (const id of idList(output[idsKey])) wanted.add(id);
    const related = await this.#loadRelated(field, [...wanted], outputs[0], principal);
    for (const output of outputs) {
      const fields = (output[fieldsKey] ?? {}) as Record<string, unknown>;
      output[`_${base}`] = idList(output[idsKey])
        .filter((id) => related.has(id))
        .map((id) => ({ ...related.get(id), _fields: fields[id] ?? {} }));
    }
  }

  async #loadRelated(
    field: SanitizedField,
    docIds: string[],
    sample: Output | undefined,
    principal: Principal,
  ): Promise<Map<string, Output>> {
    const targetType = this.#config.pieceTypes.get(String(field.options.withType));
    if (!targetType || docIds.length === 0 || !sample || !canReadType(principal, targetType)) return new Map();
    const [locale, mode] = String(sample.cmsLocale ?? '').split(':');
    const docs = await this.#store.find({
      type: targetType.name,
      docIds,
      locale: targetType.options.localized ? (locale ?? this.#config.defaultLocale) : null,
      mode: targetType.options.localized ? (mode === 'draft' ? 'draft' : 'published') : null,
      archived: false,
      visibility: visibleValues(principal),
    });
    const presented = await this.present(docs, { type: targetType, principal, withRelationships: false });
    const builderProjection = (field.options.builders as { project?: Record<string, unknown> } | undefined)?.project;
    return new Map(
      presented.map((doc) => [String(doc.cmsDocId ?? doc._id), builderProjection ? project(doc, builderProjection) : doc]),
    );
  }
}

function idList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
}

function projects(projection: Readonly<Record<string, unknown>>, field: SanitizedField): boolean {
  const base = field.name.replace(/^_/, '');
  return Boolean(projection[`_${base}`] || projection[base]);
}

const alwaysProjected = new Set(['_id', 'type', 'metaType']);

/** Inclusion projection; `_id`, `type` and `metaType` always stay, `_url` brings `_parentUrl`. */
function project(output: Output, projection: Readonly<Record<string, unknown>>): Output {
  const kept: Output = {};
  for (const key of Object.keys(output)) {
    // A relationship may be projected by its field name with or without the underscore.
    const alias = key.startsWith('_') ? key.slice(1) : undefined;
    if (projection[key] || (alias && projection[alias]) || alwaysProjected.has(key)) kept[key] = output[key];
  }
  if (projection._url && output._parentUrl !== undefined) kept._parentUrl = output._parentUrl;
  return kept;
}

/** Areas and widgets carry the id of their document, and `_edit` when the caller may edit it. */
function annotateAreas(value: unknown, docId: string, editable: boolean): void {
  if (Array.isArray(value)) {
    for (const item of value) annotateAreas(item, docId, editable);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  for (const [key, child] of Object.entries(record)) {
    if (!key.startsWith('_') && typeof child === 'object' && child !== null) annotateAreas(child, docId, editable);
  }
  if (record.metaType === 'area' || record.metaType === 'widget') {
    if (editable) record._edit = true;
    record._docId = docId;
  }
}
