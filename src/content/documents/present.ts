import type { AppConfig } from '../app-config.js';
import type { Principal } from '../../core/principal.js';
import type { SanitizedField, SanitizedPieceType } from '../types/piece-type.js';
import type { DocumentStore, StoredDocument } from '../../storage/storage-adapter.js';
import type { SchemaValueReader } from './schema-value-reader.js';
import type { FieldTypeLookup } from '../fields/convert-schema.js';
import { canAccessApi, canPublish, canWrite } from '../access/permissions.js';
import { RelatedLoader } from './related-loader.js';
import { includeOnly } from '../query/projection.js';
import { reviewOf, reviewProperty } from './review-state.js';
import type { AttachmentAnnotator } from './attachment-refs.js';
import { fileTypeName, imageTypeName } from '../types/builtin-types.js';
import type { LinkBase } from '../../config/link-base.js';
import { versionValidator } from './preconditions.js';
import { shareKeyProperty } from './draft-sharing.js';
import { holdsCropFields } from '../fields/image-crop-fields.js';
import { attachmentsGenerationKey, type AnswerSources } from '../generation-keys.js';

export interface PresentOptions {
  readonly type: SanitizedPieceType;
  readonly principal: Principal;
  /** Expand relationships (`_author`); related documents themselves are shown without theirs. */
  readonly withRelationships?: boolean;
  /** Where what the answer reads is noted, for an answer that may be kept. */
  readonly sources?: AnswerSources;
}

type Output = Record<string, unknown>;

/**
 * One version as an operation answers it, with the validator of the stored state it shows
 * (`versionValidator`; the HTTP layer's ETag carries it); null for what is no stored version.
 */
export interface VersionOutput {
  readonly document: Record<string, unknown>;
  readonly validator: string | null;
  /** What the answer read (`presentOne` with `sources`): what a kept copy of it depends on. */
  readonly sources?: AnswerSources;
  /** The answer of an earlier request with the same `Idempotency-Key` (idempotency.ts), not of a write made now. */
  readonly replayed?: boolean;
}

/**
 * Turns stored versions into response documents: secrets removed, permission flags, URLs,
 * area annotations, relationships expanded in one query per relationship field for the whole
 * page, and the public projection for callers without API access.
 */
export class DocumentPresenter {
  readonly #config: AppConfig;
  readonly #links: LinkBase;
  readonly #values: SchemaValueReader;
  readonly #related: RelatedLoader;
  readonly #attachments: AttachmentAnnotator;

  constructor(deps: {
    config: AppConfig;
    links: LinkBase;
    values: SchemaValueReader;
    store: DocumentStore;
    attachments: AttachmentAnnotator;
    registry: FieldTypeLookup;
  }) {
    this.#config = deps.config;
    this.#links = deps.links;
    this.#values = deps.values;
    this.#attachments = deps.attachments;
    this.#related = new RelatedLoader({
      config: deps.config,
      store: deps.store,
      registry: deps.registry,
      present: (docs, type, principal, sources) => this.present(docs, { type, principal, withRelationships: false, sources }),
      throughFields: (output, field, fields) => this.#throughCropFields(output, field, fields),
    });
  }

  async present(docs: readonly StoredDocument[], options: PresentOptions): Promise<Output[]> {
    const { type, principal } = options;
    const fullAccess = canAccessApi(principal, type);
    const projection = fullAccess ? null : type.options.publicApiProjection;
    const outputs = docs.map((doc) => this.#shape(doc, type, principal));
    if (await this.#attachments.annotate(outputs, type, { usage: fullAccess })) options.sources?.keys.add(attachmentsGenerationKey);
    // A file piece's URL is its file's (the original's file module).
    if (type.name === fileTypeName) for (const output of outputs) setFileUrl(output);
    if (type.name === imageTypeName) for (const output of outputs) setPrevAttachmentId(output);
    if (options.withRelationships !== false) await this.#related.expand(outputs, { type, principal, projection, sources: options.sources });
    return projection ? outputs.map((output) => publicOutput(output, projection)) : outputs;
  }

  /** A related image reached through a relationship with crop fields shows its attachment through them. */
  #throughCropFields(output: Output, field: SanitizedField, fields: Readonly<Record<string, unknown>>): Output {
    const attachment = output.attachment;
    if (!holdsCropFields(field) || typeof attachment !== 'object' || attachment === null) return output;
    return { ...output, attachment: this.#attachments.throughCropFields(attachment as Output, fields) };
  }

  /**
   * One version as `present` shows it with its relationships, and the validator of its stored
   * state; with `sources`, what it read besides the version itself, and the version.
   */
  async presentOne(doc: StoredDocument, type: SanitizedPieceType, principal: Principal, sources?: AnswerSources): Promise<VersionOutput> {
    sources?.versions.add(doc._id);
    const [output] = await this.present([doc], { type, principal, sources });
    return { document: output!, validator: versionValidator(doc), ...(sources && { sources }) };
  }

  #shape(doc: StoredDocument, type: SanitizedPieceType, principal: Principal): Output {
    const output: Output = this.#values.withoutSecrets(type, doc);
    // Versions stored before the bookkeeping was kept were last invalidated when last updated.
    output.cacheInvalidatedAt ??= doc.updatedAt;
    const mode = doc.cmsMode === 'draft' ? 'draft' : type.options.localized ? 'published' : null;
    const editable = canWrite(principal, type, mode);
    annotateAreas(output, doc._id, editable);
    // A share key opens its draft to anyone: only those who may edit the draft see it.
    if (!editable) delete output[shareKeyProperty];
    // A draft's review is its editors' alone (never an anonymous or shared read's); a draft without one is in the first stage.
    if (!editable || mode !== 'draft' || !type.options.review) delete output[reviewProperty];
    else output[reviewProperty] = reviewOf(type.options.review, doc);
    if (editable) {
      output._create = true;
      output._edit = true;
      if (canPublish(principal, type)) output._publish = true;
      output._delete = true;
    }
    Object.assign(output, this.#urls(doc, type));
    return output;
  }

  /** The original's piece page: its URL (`_parentUrl`) and its slug (`_parentSlug`, the path without locale prefix). */
  #urls(doc: StoredDocument, type: SanitizedPieceType): { _url?: string; _parentUrl?: string; _parentSlug?: string } {
    const pagePath = type.options.pagePath;
    if (pagePath === null) return {};
    const locale = doc.cmsLocale?.split(':')[0];
    const prefix = locale ? (this.#config.locales.get(locale)?.prefix ?? '') : '';
    const parentUrl = `${this.#links.url}${prefix}${pagePath}`;
    return { _url: `${parentUrl}/${doc.slug}`, _parentUrl: parentUrl, _parentSlug: pagePath };
  }
}

function setFileUrl(output: Output): void {
  const attachment = output.attachment as { _url?: unknown } | null | undefined;
  if (typeof attachment?._url === 'string') output._url = attachment._url;
}

/**
 * An image read answers the attachment it holds as `_prevAttachmentId`, as the original's image
 * query does: its editor sends it back with a new attachment to say which file is replaced.
 * Here the server compares the stored file itself; the property is read-only.
 */
function setPrevAttachmentId(output: Output): void {
  const attachment = output.attachment as { _id?: unknown } | null | undefined;
  if (typeof attachment?._id === 'string') output._prevAttachmentId = attachment._id;
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

/**
 * What a caller without API access sees of a document: the type's public projection, and, as
 * the original's, `cacheInvalidatedAt` (when anything it shows last changed) and, when the
 * projection shows `_url`, the `slug` it is made of (the original's projection fetches it).
 */
function publicOutput(output: Output, projection: Readonly<Record<string, unknown>>): Output {
  const kept = includeOnly(output, projection);
  if (output.cacheInvalidatedAt !== undefined) kept.cacheInvalidatedAt = output.cacheInvalidatedAt;
  if (projection._url && output.slug !== undefined) kept.slug = output.slug;
  return kept;
}
