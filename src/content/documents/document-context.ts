import type { AppConfig } from '../app-config.js';
import type { Principal } from '../../core/principal.js';
import type { ConvertContext } from '../fields/field-type.js';
import type { FieldTypeRegistry } from '../fields/registry.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import type { StorageAdapter, StorageSession, StoredDocument, TransactionOptions } from '../../storage/storage-adapter.js';
import { ConflictError, NotFoundError } from '../../errors/app-error.js';
import { canReadType } from '../access/permissions.js';
import { convertSchema, throwIfErrors } from '../fields/convert-schema.js';
import { sortify } from '../../core/text.js';
import { newId, type Mode } from '../../core/ids.js';
import { findReferenced } from './related-refs.js';
import { DocumentIndexer } from '../indexing/document-indexer.js';
import { DocumentPresenter } from './present.js';
import { uniqueSlug, wantedSlug } from './slugs.js';
import { checkStoredDocument } from '../stored-shape.js';
import { SchemaLayout } from './versions.js';
import { checkDocumentSize } from './document-size.js';
import { AttachmentAnnotator, AttachmentRefs, recordOf, type AttachmentFileKeeper, type AttachmentPresenter } from './attachment-refs.js';
import { PasswordsToHash, WritePasswords, type PasswordHasher } from '../fields/password-hasher.js';
import { LinkBase } from '../../config/link-base.js';
import { ChangeSubscriptions, changeOf, deliveriesOf, webhookReader, type Change } from './change-events.js';
import type { ChangeEventName } from '../../config/webhooks-config.js';

export interface DocumentServiceDeps {
  readonly config: AppConfig;
  readonly storage: StorageAdapter;
  readonly fieldTypes: FieldTypeRegistry;
  /** The response form of attachments held in documents, and their files (the media module). */
  readonly attachments: AttachmentPresenter & AttachmentFileKeeper;
  readonly passwordHasher: PasswordHasher;
  /** The media module's image sizes, for `srcset` in rendered image widgets (none: no `srcset`). */
  readonly imageSizes?: readonly { readonly name: string; readonly width: number }[];
  /** Where `_url` and `_parentUrl` start; default: the configured `baseUrl`, relative links without one. */
  readonly links?: LinkBase;
  /** Called once a transaction that wrote change events to the webhook outbox has committed. */
  readonly onChangesCommitted?: () => void;
}

/**
 * The mechanics every document operation shares: type lookup, conversion of input through the
 * field registry, building and saving versions with their bookkeeping properties, presenting.
 * The rules of each operation live in `document-service.ts` and `publishing.ts`.
 */
export class DocumentContext {
  readonly config: AppConfig;
  readonly storage: StorageAdapter;
  readonly layout: SchemaLayout;
  readonly presenter: DocumentPresenter;
  readonly indexer: DocumentIndexer;
  readonly #fieldTypes: FieldTypeRegistry;
  readonly #attachmentRefs: AttachmentRefs;
  readonly #passwordHasher: PasswordHasher;
  readonly #attachmentFiles: AttachmentFileKeeper;
  /** Per open transaction: the attachments whose usage its writes changed. */
  readonly #usageChanged = new WeakMap<StorageSession, Set<string>>();
  readonly #subscriptions: ChangeSubscriptions;
  /** The open transactions that wrote change events. */
  readonly #recordedChanges = new WeakSet<StorageSession>();
  readonly #changesCommitted: () => void;

  constructor(deps: DocumentServiceDeps) {
    this.config = deps.config;
    this.#attachmentFiles = deps.attachments;
    this.storage = deps.storage;
    this.#passwordHasher = deps.passwordHasher;
    this.#fieldTypes = deps.fieldTypes;
    this.layout = new SchemaLayout(deps.fieldTypes);
    this.indexer = new DocumentIndexer(deps.fieldTypes);
    this.#subscriptions = new ChangeSubscriptions(deps.config.webhooks);
    this.#changesCommitted = deps.onChangesCommitted ?? (() => undefined);
    this.#attachmentRefs = new AttachmentRefs({ registry: deps.fieldTypes, widgetTypes: deps.config.widgetTypes });
    const attachments = new AttachmentAnnotator({ refs: this.#attachmentRefs, store: deps.storage.attachments, presenter: deps.attachments });
    this.presenter = new DocumentPresenter({
      config: deps.config,
      links: deps.links ?? new LinkBase(deps.config.baseUrl),
      layout: this.layout,
      store: deps.storage.documents,
      attachments,
      registry: deps.fieldTypes,
    });
  }

  pieceType(name: string): SanitizedPieceType {
    const type = this.config.pieceTypes.get(name);
    if (!type) throw new NotFoundError();
    return type;
  }

  /**
   * Runs a write in one transaction. Password hashing is slow on purpose and never runs inside
   * it, where it would hold the store's write lock: a conversion that meets a password not
   * hashed yet ends the transaction (nothing written), the passwords are hashed, and the write
   * runs again with them. Writes without passwords run once.
   */
  async write<T>(options: TransactionOptions, work: (tx: StorageSession, passwords: WritePasswords) => Promise<T>): Promise<T> {
    const passwords = new WritePasswords(this.config.limits.passwordMinLength);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transaction(options, (tx) => work(tx, passwords));
      } catch (error) {
        // Another attempt meets the same passwords; a third would mean the input keeps changing.
        if (!(error instanceof PasswordsToHash) || attempt === 3) throw error;
      }
      await passwords.hashPending(this.#passwordHasher);
    }
  }

  /**
   * Runs document writes in one transaction. The attachments whose usage they changed are told
   * in it whether their files are to be readable; once it commits, the files are made so.
   */
  async transaction<T>(options: TransactionOptions, work: (tx: StorageSession) => Promise<T>): Promise<T> {
    let toSettle: string[] = [];
    let recordedChanges = false;
    const result = await this.storage.transaction(options, async (tx) => {
      const changed = new Set<string>();
      this.#usageChanged.set(tx, changed);
      const value = await work(tx);
      toSettle = await this.#decideReadable(tx, [...changed]);
      recordedChanges = this.#recordedChanges.has(tx);
      return value;
    });
    if (recordedChanges) this.#changesCommitted();
    if (toSettle.length > 0) await this.#attachmentFiles.settle(toSettle);
    return result;
  }

  /**
   * Writes the event of one change into the webhook outbox, in the change's own transaction, for
   * each endpoint told of it; writes nothing at all when none is. `doc` is the version as the
   * change left it (null after a delete); its body is built now, as an admin API key would read it.
   */
  async recordChange(session: StorageSession, change: Change, doc: StoredDocument | null): Promise<void> {
    const endpoints = this.#subscriptions.endpointsFor(change.type, change.event);
    if (endpoints.length === 0) return;
    const type = this.pieceType(change.type);
    const document = doc && (await this.presenter.present([doc], { type, principal: webhookReader, withRelationships: false }))[0]!;
    await session.webhooks.enqueue(deliveriesOf(change, endpoints, document), Date.now());
    this.#recordedChanges.add(session);
  }

  /** `recordChange` for a change that left `doc` as it is now; answers `doc`. */
  async recorded(session: StorageSession, event: ChangeEventName, doc: StoredDocument, principal: Principal): Promise<StoredDocument> {
    await this.recordChange(session, changeOf(event, doc, principal), doc);
    return doc;
  }

  /**
   * The files of an attachment are served while a version that is not archived holds it
   * (original 11.3): one that only archived versions hold, or none any more, is not served,
   * and is again once a live version holds it. Answers the attachments that changed.
   */
  async #decideReadable(tx: StorageSession, ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    // Writers of other documents may change the same attachments' usage side by side (PostgreSQL):
    // each decides after the one before it committed, reading what it left.
    const records = await tx.attachments.findHeld(ids);
    const live = records.filter((record) => record.docIds.length > 0).map((record) => record._id);
    const dormant = records.filter((record) => record.docIds.length === 0).map((record) => record._id);
    return [...(await tx.attachments.setReadable(live, true)), ...(await tx.attachments.setReadable(dormant, false))];
  }

  /**
   * Converts input through the type's schema. Without `only`, every field is converted and
   * absent ones take their defaults (insert, replace); with it, only those fields (patch).
   */
  async convert(args: {
    type: SanitizedPieceType;
    input: Record<string, unknown>;
    existing?: Record<string, unknown>;
    only?: ReadonlySet<string>;
    locale: string | null;
    mode: Mode | null;
    principal: Principal;
    session: StorageSession;
    /** The hashes of this write's passwords; see `write`. */
    passwords: WritePasswords;
    /** Id source for new areas, widgets and items; see `replayedIds`. */
    ids?: () => string;
  }): Promise<Record<string, unknown>> {
    const ctx = this.#convertContext(args, args.ids ?? newId);
    const { values, errors } = await convertSchema({
      fields: args.type.fields,
      input: args.input,
      existing: args.existing,
      ctx,
      registry: this.#fieldTypes,
      only: args.only,
    });
    throwIfErrors(errors);
    args.passwords.throwIfPending();
    return values;
  }

  defaultValue(type: SanitizedPieceType, fieldName: string): unknown {
    const field = type.fieldsByName.get(fieldName);
    return field ? this.#fieldTypes.get(field.type)?.defaultValue(field, newId) : null;
  }

  #convertContext(
    args: { locale: string | null; mode: Mode | null; principal: Principal; session: StorageSession; passwords: WritePasswords },
    ids: () => string,
  ): ConvertContext {
    const { locale, mode, principal, session } = args;
    const ctx: ConvertContext = {
      locale,
      mode,
      principal,
      newId: ids,
      widgetTypes: this.config.widgetTypes,
      passwords: args.passwords,
      limits: this.config.limits,
      sanitizedCharacters: { count: 0 },
      relationships: {
        resolve: (type, refs) => this.#resolveRelated(session, type, refs, locale, mode, principal),
        canRead: (type) => {
          const pieceType = this.config.pieceTypes.get(type);
          return pieceType !== undefined && canReadType(principal, pieceType);
        },
      },
      attachments: {
        find: async (id) => {
          const [found] = await session.attachments.find([id]);
          return found ? recordOf(found) : null;
        },
      },
      convertSchema: async (fields, input, existing) => {
        const { values, errors } = await convertSchema({ fields, input, existing, ctx, registry: this.#fieldTypes });
        throwIfErrors(errors);
        return values;
      },
    };
    return ctx;
  }

  /** Related documents the caller can see in the same locale and mode, by id or title, in the order asked for. */
  async #resolveRelated(
    session: StorageSession,
    typeName: string,
    refs: readonly string[],
    locale: string | null,
    mode: Mode | null,
    principal: Principal,
  ): Promise<{ cmsDocId: string }[]> {
    const type = this.config.pieceTypes.get(typeName);
    if (!type || !canReadType(principal, type)) return [];
    return findReferenced(refs, { store: session.documents, config: this.config, type, principal, locale, mode });
  }

  /** A new version with the bookkeeping properties every stored document has. */
  newVersion(args: {
    type: SanitizedPieceType;
    docId: string;
    locale: string | null;
    mode: Mode | null;
    values: Record<string, unknown>;
    now: string;
    principal: Principal;
  }): StoredDocument {
    const { type, docId, locale, mode, now } = args;
    const localized = locale !== null && mode !== null;
    const doc: StoredDocument = {
      _id: localized ? `${docId}:${locale}:${mode}` : docId,
      cmsDocId: docId,
      ...(localized ? { cmsLocale: `${locale}:${mode}`, cmsMode: mode } : {}),
      type: type.name,
      metaType: 'doc',
      title: '',
      slug: '',
      titleSortified: '',
      visibility: 'public',
      archived: false,
      createdAt: now,
      updatedAt: now,
    };
    Object.assign(doc, args.values, { createdAt: now, updatedAt: now, updatedBy: updatedBy(args.principal) });
    doc.titleSortified = sortify(String(doc.title ?? ''));
    return doc;
  }

  /** Marks a version as changed now by the principal. */
  touch(doc: StoredDocument, now: string, principal: Principal): void {
    doc.updatedAt = now;
    doc.updatedBy = updatedBy(principal);
    doc.titleSortified = sortify(String(doc.title ?? ''));
  }

  /** Gives the versions one slug, free in each of their modes, made from the title when empty. */
  async assignSlug(session: StorageSession, type: SanitizedPieceType, versions: readonly StoredDocument[]): Promise<void> {
    const first = versions[0];
    if (!first) return;
    const base = wantedSlug(first.slug, first.title, type.options.slugPrefix);
    const locale = first.cmsLocale ? first.cmsLocale.split(':')[0]! : null;
    const modes = versions.map((version) => (version.cmsMode ?? null) as Mode | null);
    const slug = await uniqueSlug(session.documents, { base, locale, modes, docId: first.cmsDocId });
    for (const version of versions) version.slug = slug;
  }

  /*
   * Every document write goes through insertVersion, updateVersion or removeVersions, in a
   * session of `transaction`: they keep the filter index, the search texts and the attachments'
   * usage in step with the document, in the session's transaction.
   */

  /** Stores a new version with its filter values and search texts. */
  async insertVersion(session: StorageSession, doc: StoredDocument): Promise<void> {
    await session.documents.insert(doc, this.#storable(doc));
    await this.#trackAttachments(session, doc);
  }

  /** Replaces a stored version, its filter values and search texts with it. */
  async updateVersion(session: StorageSession, doc: StoredDocument): Promise<boolean> {
    const updated = await session.documents.update(doc, this.#storable(doc));
    if (updated) await this.#trackAttachments(session, doc);
    return updated;
  }

  /**
   * Saves a version whose fields did not change, only its bookkeeping (`modified`,
   * `lastPublishedAt`): its filter values, search texts and attachments' usage stay as stored.
   */
  async updateBookkeeping(session: StorageSession, doc: StoredDocument): Promise<boolean> {
    return session.documents.update(doc);
  }

  /** Removes versions of the type (missing ones are skipped); returns how many there were. */
  async removeVersions(session: StorageSession, type: SanitizedPieceType, ids: readonly string[]): Promise<number> {
    const removed = await session.documents.remove(type.name, ids);
    // Only the usage of versions removed: another type's version under one of these ids keeps its own.
    if (removed > 0) for (const id of ids) this.#noteUsageChanged(session, await session.attachments.setUsage(id, [], false));
    return removed;
  }

  /** The attachments a version holds now are recorded as used by it, live or archived (original 11.3). */
  async #trackAttachments(session: StorageSession, doc: StoredDocument): Promise<void> {
    const ids = this.#attachmentRefs.ids(this.pieceType(doc.type), doc);
    if (ids.length > 0) {
      // The sweep removes an attachment unused for its grace period under the same lock: one this
      // write takes up is then either still there, and kept, or gone, and the write refused.
      const found = await session.attachments.findHeld(ids);
      if (found.length < new Set(ids).size) throw new ConflictError('An attachment of this document was removed meanwhile: upload it again.');
    }
    this.#noteUsageChanged(session, await session.attachments.setUsage(doc._id, ids, doc.archived));
  }

  #noteUsageChanged(session: StorageSession, attachmentIds: readonly string[]): void {
    const changed = this.#usageChanged.get(session);
    // A write outside `transaction` would leave the attachments' files as they were.
    if (!changed) throw new Error('Document versions are written in DocumentContext.transaction');
    for (const id of attachmentIds) changed.add(id);
  }

  /**
   * Adds the derived properties to a version about to be stored and answers its filter index;
   * refuses it (400) when it breaks a bound `cms import` checks, so every store can be restored.
   */
  #storable(doc: StoredDocument) {
    const { index, properties } = this.indexer.index(this.pieceType(doc.type), doc);
    Object.assign(doc, properties);
    checkStoredDocument(doc, this.config.limits.archiveRecordBytes);
    checkDocumentSize(doc, this.config.limits.documentBytes);
    return index;
  }

  /** The version `id` of the type: an id of another type's document reads as none (issue 20). */
  async readVersion(session: StorageSession, type: SanitizedPieceType, id: string): Promise<StoredDocument | null> {
    const [doc] = await session.documents.find({ type: type.name, ids: [id], limit: 1 });
    return doc ?? null;
  }

  async requireVersion(session: StorageSession, type: SanitizedPieceType, id: string): Promise<StoredDocument> {
    const doc = await this.readVersion(session, type, id);
    if (!doc) throw new NotFoundError();
    return doc;
  }

  async presentOne(doc: StoredDocument, type: SanitizedPieceType, principal: Principal): Promise<Record<string, unknown>> {
    const [output] = await this.presenter.present([doc], { type, principal });
    return output!;
  }
}

/**
 * An id source for converting the same input into several versions: each new converter replays
 * the ids the first one generated, in order, so a published-mode write gives the new widgets and
 * items of the draft and the published version the same ids (and the draft stays unmodified).
 */
export function replayedIds(): () => () => string {
  const generated: string[] = [];
  return () => {
    let next = 0;
    return () => {
      if (next < generated.length) return generated[next++]!;
      const id = newId();
      generated.push(id);
      next++;
      return id;
    };
  };
}

/** Who last changed a document: the user, or the original's "System Task" for API keys. */
export function updatedBy(principal: Principal): { _id: string | null; title: string; username: string | null } {
  if (principal.kind === 'user') {
    return { _id: principal.userId, title: principal.title ?? '', username: principal.username };
  }
  return { _id: null, title: 'System Task', username: null };
}
