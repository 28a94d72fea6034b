import type { Principal } from '../../core/principal.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import type { StorageSession, StoredDocument } from '../../storage/storage-adapter.js';
import { ConflictError, InvalidRequestError, NotFoundError } from '../../errors/app-error.js';
import { canAccessApi, canReadType, canViewDrafts, requirePublish, requireWrite, visibleValues } from '../access/permissions.js';
import type { DocumentContext } from './document-context.js';
import { parseDocumentId } from '../../core/ids.js';
import { splitLocale, versionId, type RequestScope, type Target } from './scope.js';

type Output = Record<string, unknown>;

/** The document set and locale a publishing route acts on: the id's docId, the id's or cmsLocale's locale. */
interface SetTarget {
  readonly docId: string;
  readonly locale: string;
}

/**
 * Moving content between the versions of a document set: publish, unpublish, the two reverts,
 * localize, and the list of a set's versions. Every operation is one transaction, which locks
 * the document before it reads it.
 */
export class Publishing {
  protected readonly ctx: DocumentContext;

  constructor(ctx: DocumentContext) {
    this.ctx = ctx;
  }

  /** Publishes the draft; the response is the newly published version. */
  async publish(scope: RequestScope, typeName: string, rawId: string): Promise<Output> {
    const { type, target } = this.#localizedTarget(scope, typeName, rawId);
    requirePublish(scope.principal, type);
    const published = await this.ctx.transaction({ lock: [target.docId] }, async (tx) => {
      return this.ctx.recorded(tx, 'publish', await this.publishVersion(tx, type, target.docId, target.locale, scope.principal), scope.principal);
    });
    return this.ctx.presentOne(published, type, scope.principal);
  }

  /** Removes the published version (and its previous copy); the draft stays, marked modified. */
  async unpublish(scope: RequestScope, typeName: string, rawId: string): Promise<Output> {
    const { type, target } = this.#localizedTarget(scope, typeName, rawId);
    requirePublish(scope.principal, type);
    const draft = await this.ctx.transaction({ lock: [target.docId] }, async (tx) => {
      const published = await this.ctx.requireVersion(tx, type, versionId(target, 'published'));
      await this.ctx.removeVersions(tx, type, [published._id, versionId(target, 'previous')]);
      const draft = await this.markUnpublished(tx, type, target);
      // Throwing inside the transaction rolls the removal back: never a published-only set half undone.
      if (!draft) throw new NotFoundError();
      return this.ctx.recorded(tx, 'unpublish', draft, scope.principal);
    });
    return this.ctx.presentOne(draft, type, scope.principal);
  }

  /** Discards the draft's changes; answers `false` when there is nothing to revert. */
  async revertDraftToPublished(scope: RequestScope, typeName: string, rawId: string): Promise<Output | false> {
    const { type, target } = this.#localizedTarget(scope, typeName, rawId);
    requireWrite(scope.principal, type, 'draft');
    const draft = await this.ctx.transaction({ lock: [target.docId] }, async (tx) => {
      const draft = await this.ctx.requireVersion(tx, type, versionId(target, 'draft'));
      const published = await this.ctx.readVersion(tx, type, versionId(target, 'published'));
      if (!published || draft.modified === false) return false;
      Object.assign(draft, this.ctx.layout.schemaValues(type, published), { modified: false });
      this.ctx.touch(draft, new Date().toISOString(), scope.principal);
      await this.ctx.updateVersion(tx, draft);
      return this.ctx.recorded(tx, 'update', draft, scope.principal);
    });
    return draft && this.ctx.presentOne(draft, type, scope.principal);
  }

  /** Undoes the last publish: the previous copy becomes the published version again. */
  async revertPublishedToPrevious(scope: RequestScope, typeName: string, rawId: string): Promise<Output> {
    const { type, target } = this.#localizedTarget(scope, typeName, rawId);
    requirePublish(scope.principal, type);
    const published = await this.ctx.transaction({ lock: [target.docId] }, async (tx) => {
      const published = await this.ctx.requireVersion(tx, type, versionId(target, 'published'));
      const previous = await this.ctx.readVersion(tx, type, versionId(target, 'previous'));
      if (!previous) throw new InvalidRequestError('There is no previously published version to revert to');
      Object.assign(published, this.ctx.layout.schemaValues(type, previous));
      this.ctx.touch(published, new Date().toISOString(), scope.principal);
      await this.ctx.assignSlug(tx, type, [published]);
      await this.ctx.removeVersions(tx, type, [previous._id]);
      await this.ctx.updateVersion(tx, published);
      await this.refreshModified(tx, type, { ...target, id: published._id, mode: 'published' });
      return this.ctx.recorded(tx, 'update', published, scope.principal);
    });
    return this.ctx.presentOne(published, type, scope.principal);
  }

  /** Copies the draft into another locale's draft; 409 when it exists and `update` is not set. */
  async localize(scope: RequestScope, typeName: string, rawId: string, body: Record<string, unknown>): Promise<Output> {
    const { type, target } = this.#localizedTarget(scope, typeName, rawId);
    const toLocale = body.toLocale;
    if (typeof toLocale !== 'string' || !this.ctx.config.locales.has(toLocale) || toLocale === target.locale) {
      throw new InvalidRequestError('toLocale must name another configured locale', { path: 'toLocale' });
    }
    requireWrite(scope.principal, type, 'draft');
    const localized = await this.ctx.transaction({ lock: [target.docId] }, async (tx) => {
      const source = await this.ctx.requireVersion(tx, type, versionId(target, 'draft'));
      const destination = { docId: target.docId, locale: toLocale };
      const existing = await this.ctx.readVersion(tx, type, versionId(destination, 'draft'));
      if (existing && !body.update) throw new ConflictError('The document already exists in that locale');
      const now = new Date().toISOString();
      const values = this.ctx.layout.schemaValues(type, source);
      const draft =
        existing ??
        this.ctx.newVersion({ type, docId: target.docId, locale: toLocale, mode: 'draft', values, now, principal: scope.principal });
      Object.assign(draft, values, { localizedAt: now });
      this.ctx.touch(draft, now, scope.principal);
      await this.ctx.assignSlug(tx, type, [draft]);
      await (existing ? this.ctx.updateVersion(tx, draft) : this.ctx.insertVersion(tx, draft));
      await this.refreshModified(tx, type, { id: draft._id, docId: target.docId, locale: toLocale, mode: 'draft' });
      return this.ctx.recorded(tx, existing ? 'update' : 'insert', (await this.ctx.readVersion(tx, type, draft._id))!, scope.principal);
    });
    return this.ctx.presentOne(localized, type, scope.principal);
  }

  /**
   * Every version of the document set, all locales and modes (`previous` too, as the original
   * lists them); only published ones for callers without draft access.
   */
  async locales(scope: RequestScope, typeName: string, rawId: string): Promise<{ results: { _id: string; cmsLocale: string }[] }> {
    const type = this.ctx.pieceType(typeName);
    if (!canReadType(scope.principal, type)) throw new NotFoundError();
    const docId = parseDocumentId(rawId).docId;
    const drafts = canViewDrafts(scope.principal, type);
    // Callers without API access learn only of versions they could GET.
    const docs = await this.ctx.storage.documents.find({
      type: type.name,
      docIds: [docId],
      ...(canAccessApi(scope.principal, type) ? {} : { archived: false, visibility: visibleValues(scope.principal) }),
      sort: [{ field: '_id', direction: 1 }],
    });
    const results = docs
      .filter((doc) => doc.cmsMode === 'published' || drafts)
      .map((doc) => ({ _id: doc._id, cmsLocale: doc.cmsLocale! }));
    return { results };
  }

  /**
   * The publish step shared by the publish route and autopublishing types: the current
   * published version is kept as `previous`, the draft's schema values overwrite it. The caller
   * has locked the document.
   */
  protected async publishVersion(
    tx: StorageSession,
    type: SanitizedPieceType,
    docId: string,
    locale: string,
    principal: Principal,
  ): Promise<StoredDocument> {
    const set = { docId, locale };
    const draft = await this.ctx.requireVersion(tx, type, versionId(set, 'draft'));
    const current = await this.ctx.readVersion(tx, type, versionId(set, 'published'));
    const now = new Date().toISOString();
    if (current) await this.#keepAsPrevious(tx, type, current);
    const values = { ...this.ctx.layout.schemaValues(type, draft), archived: draft.archived };
    const published =
      current ?? this.ctx.newVersion({ type, docId, locale, mode: 'published', values, now, principal });
    Object.assign(published, values, { lastPublishedAt: now });
    delete published.modified;
    this.ctx.touch(published, now, principal);
    await this.ctx.assignSlug(tx, type, [published]);
    await (current ? this.ctx.updateVersion(tx, published) : this.ctx.insertVersion(tx, published));
    Object.assign(draft, { modified: false, lastPublishedAt: now });
    await this.ctx.updateBookkeeping(tx, draft);
    return published;
  }

  async #keepAsPrevious(tx: StorageSession, type: SanitizedPieceType, published: StoredDocument): Promise<void> {
    const locale = published.cmsLocale!.split(':')[0]!;
    const previous: StoredDocument = {
      ...structuredClone(published),
      _id: versionId({ docId: published.cmsDocId, locale }, 'previous'),
      cmsLocale: `${locale}:previous`,
      cmsMode: 'previous',
    };
    await this.ctx.removeVersions(tx, type, [previous._id]);
    await this.ctx.assignSlug(tx, type, [previous]);
    await this.ctx.insertVersion(tx, previous);
  }

  /** After the published version is gone, the draft is the only version: modified, never published. */
  protected async markUnpublished(
    tx: StorageSession,
    type: SanitizedPieceType,
    target: { docId: string; locale: string | null },
  ): Promise<StoredDocument | null> {
    const draft = await this.ctx.readVersion(tx, type, versionId(target, 'draft'));
    if (!draft) return null;
    Object.assign(draft, { modified: true, lastPublishedAt: null });
    await this.ctx.updateBookkeeping(tx, draft);
    return draft;
  }

  /** Recomputes the draft's `modified` flag against the published version. */
  protected async refreshModified(tx: StorageSession, type: SanitizedPieceType, target: Target): Promise<void> {
    const draft = await this.ctx.readVersion(tx, type, versionId(target, 'draft'));
    if (!draft) return;
    const published = await this.ctx.readVersion(tx, type, versionId(target, 'published'));
    const modified = this.ctx.layout.isModified(type, draft, published);
    if (draft.modified !== modified) {
      draft.modified = modified;
      await this.ctx.updateBookkeeping(tx, draft);
    }
  }

  #localizedTarget(scope: RequestScope, typeName: string, rawId: string): { type: SanitizedPieceType; target: SetTarget } {
    const type = this.ctx.pieceType(typeName);
    if (!type.options.localized) throw new InvalidRequestError(`${type.name} has no draft and published versions`);
    const parsed = parseDocumentId(rawId);
    const locale = splitLocale(this.ctx.config, scope.locale).locale ?? parsed.locale ?? this.ctx.config.defaultLocale;
    if (!this.ctx.config.locales.has(locale)) throw new NotFoundError();
    return { type, target: { docId: parsed.docId, locale } };
  }
}
