import type { SanitizedPieceType } from '../types/piece-type.js';
import type { StorageSession, StoredDocument } from '../../storage/storage-adapter.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../errors/app-error.js';
import { canPublish, canReadType, canViewDrafts, canWrite, visibleValues } from '../access/permissions.js';
import { DocumentContext, replayedIds, type DocumentServiceDeps } from './document-context.js';
import { newId } from './ids.js';
import { applyPatch, parsePatch } from './patch.js';
import { Publishing } from './publishing.js';
import { requestVersion, resolveTarget, versionId, type RequestScope, type Target } from './scope.js';
import { saveLogin, removeLogin } from './user-logins.js';

export const maxPerPage = 100;

export interface ListParams {
  readonly page?: number;
  readonly perPage?: number;
}

export interface ListResult {
  pages: number;
  currentPage: number;
  results: Record<string, unknown>[];
}

type Output = Record<string, unknown>;

/**
 * Every rule of the piece interface: modes, locales, permissions, the life cycle of versions.
 * The HTTP layer calls one method per endpoint and knows none of these rules.
 */
export class DocumentService extends Publishing {
  constructor(deps: DocumentServiceDeps) {
    super(new DocumentContext(deps));
  }

  async list(scope: RequestScope, typeName: string, params: ListParams): Promise<ListResult> {
    const type = this.ctx.pieceType(typeName);
    const { locale, mode } = requestVersion(this.ctx.config, type, scope);
    if (mode === 'draft' && !canViewDrafts(scope.principal, type)) throw new ForbiddenError();
    if (!canReadType(scope.principal, type)) throw new NotFoundError();
    const perPage = Math.min(params.perPage ?? type.options.perPage, maxPerPage);
    const page = params.page ?? 1;
    const query = { type: type.name, locale, mode, archived: false, visibility: visibleValues(scope.principal) };
    const [total, docs] = await Promise.all([
      this.ctx.storage.documents.count(query),
      this.ctx.storage.documents.find({ ...query, sort: sortOf(type), skip: (page - 1) * perPage, limit: perPage }),
    ]);
    const results = await this.ctx.presenter.present(docs, { type, principal: scope.principal });
    return { pages: Math.ceil(total / perPage), currentPage: page, results };
  }

  async getOne(scope: RequestScope, typeName: string, rawId: string): Promise<Output> {
    const type = this.ctx.pieceType(typeName);
    const target = resolveTarget(this.ctx.config, type, rawId, scope);
    if (!canReadType(scope.principal, type)) throw new NotFoundError();
    const [doc] = await this.ctx.storage.documents.find({
      ids: [target.id],
      type: type.name,
      archived: false,
      visibility: visibleValues(scope.principal),
      limit: 1,
    });
    if (!doc) throw new NotFoundError();
    return this.ctx.presentOne(doc, type, scope.principal);
  }

  /** Published insert (the default) also creates the draft; a draft insert creates only the draft. */
  async insert(scope: RequestScope, typeName: string, body: Record<string, unknown>): Promise<Output> {
    const { principal } = scope;
    const type = this.ctx.pieceType(typeName);
    const { locale, mode } = requestVersion(this.ctx.config, type, scope);
    if (!canWrite(principal, type, mode)) throw new ForbiddenError();
    const saved = await this.ctx.storage.transaction(async (tx) => {
      const values = await this.ctx.convert({ type, input: body, locale, mode, principal, session: tx });
      const now = new Date().toISOString();
      const docId = newId();
      const version = (m: typeof mode) => this.ctx.newVersion({ type, docId, locale, mode: m, values, now, principal });
      if (mode === null) {
        const doc = version(null);
        await this.ctx.assignSlug(tx, type, [doc]);
        await saveLogin(tx, type, doc);
        await tx.documents.insert(doc);
        return doc;
      }
      const draft = version('draft');
      if (mode === 'draft' && !type.options.autopublish) {
        draft.modified = true;
        await this.ctx.assignSlug(tx, type, [draft]);
        await tx.documents.insert(draft);
        return draft;
      }
      const published = version('published');
      published.lastPublishedAt = draft.lastPublishedAt = now;
      draft.modified = false;
      await this.ctx.assignSlug(tx, type, [draft, published]);
      await tx.documents.insert(draft);
      await tx.documents.insert(published);
      return mode === 'draft' ? draft : published;
    });
    return this.ctx.presentOne(saved, type, principal);
  }

  /** Full replacement: every field not in the body is reset, except `archived`. */
  async replace(scope: RequestScope, typeName: string, rawId: string, body: Record<string, unknown>): Promise<Output> {
    return this.#update(scope, typeName, rawId, async (tx, type, version, target, ids) => {
      const values = await this.ctx.convert({
        type,
        input: body,
        existing: version,
        locale: target.locale,
        mode: target.mode,
        principal: scope.principal,
        session: tx,
        ids,
      });
      if (!Object.hasOwn(body, 'archived')) delete values.archived;
      return values;
    });
  }

  /** Partial update; in published mode the same patch also reaches the draft. */
  async patch(scope: RequestScope, typeName: string, rawId: string, body: Record<string, unknown>): Promise<Output> {
    const operations = parsePatch(body);
    return this.#update(scope, typeName, rawId, async (tx, type, version, target, ids) => {
      const input = applyPatch(operations, {
        fields: type.fields,
        fieldFor: (key) => fieldFor(type, key),
        current: (field) => this.ctx.layout.read(version, field),
        defaultValue: (field) => this.ctx.defaultValue(type, field.name),
      });
      return this.ctx.convert({
        type,
        input,
        existing: version,
        only: new Set(Object.keys(input)),
        locale: target.locale,
        mode: target.mode,
        principal: scope.principal,
        session: tx,
        ids,
      });
    });
  }

  /**
   * The shared PUT/PATCH script: find the version (and, in published mode, the draft), compute
   * each one's new values, save them with bookkeeping, spread `archived` to every version of
   * the locale, recompute the draft's `modified`.
   */
  async #update(
    scope: RequestScope,
    typeName: string,
    rawId: string,
    valuesFor: (
      tx: StorageSession,
      type: SanitizedPieceType,
      version: StoredDocument,
      target: Target,
      ids: () => string,
    ) => Promise<Record<string, unknown>>,
  ): Promise<Output> {
    const { principal } = scope;
    const type = this.ctx.pieceType(typeName);
    const target = resolveTarget(this.ctx.config, type, rawId, scope);
    if (!canWrite(principal, type, target.mode)) throw new ForbiddenError();
    const saved = await this.ctx.storage.transaction(async (tx) => {
      const now = new Date().toISOString();
      const version = await this.ctx.requireVersion(tx, target.id);
      const draft = target.mode === 'published' ? await this.ctx.readVersion(tx, versionId(target, 'draft')) : null;
      const changed = [version, ...(draft ? [draft] : [])];
      const archivedBefore = version.archived;
      const idSource = replayedIds();
      for (const doc of changed) {
        const versionTarget = { ...target, mode: (doc.cmsMode ?? null) as Target['mode'] };
        Object.assign(doc, await valuesFor(tx, type, doc, versionTarget, idSource()));
        this.ctx.touch(doc, now, principal);
      }
      // Each version keeps its own slug: a draft's unpublished slug change stays in the draft.
      for (const doc of changed) await this.ctx.assignSlug(tx, type, [doc]);
      if (target.mode === null) await saveLogin(tx, type, version);
      for (const doc of changed) await tx.documents.update(doc);
      if (version.archived !== archivedBefore) await this.#spreadArchived(tx, target, version.archived, changed);
      if (target.mode !== null) await this.refreshModified(tx, type, target);
      if (target.mode === 'draft' && type.options.autopublish) {
        await this.publishVersion(tx, type, target.docId, target.locale!, principal);
      }
      return (await this.ctx.readVersion(tx, target.id))!;
    });
    return this.ctx.presentOne(saved, type, principal);
  }

  /** Archiving any version archives every version of that locale; restoring restores them all. */
  async #spreadArchived(tx: StorageSession, target: Target, archived: boolean, done: readonly StoredDocument[]): Promise<void> {
    if (target.locale === null) return;
    const siblings = await tx.documents.find({ docIds: [target.docId], locale: target.locale });
    for (const sibling of siblings) {
      if (done.some((doc) => doc._id === sibling._id) || sibling.archived === archived) continue;
      sibling.archived = archived;
      await tx.documents.update(sibling);
    }
  }

  /**
   * Permanent delete. A draft whose document is published is refused (unpublish or delete the
   * published version first); a published version takes its `previous` copy with it and leaves
   * the draft, now unpublished.
   */
  async remove(scope: RequestScope, typeName: string, rawId: string): Promise<void> {
    const { principal } = scope;
    const type = this.ctx.pieceType(typeName);
    const target = resolveTarget(this.ctx.config, type, rawId, scope);
    if (!canWrite(principal, type, 'draft')) throw new ForbiddenError();
    await this.ctx.storage.transaction(async (tx) => {
      const doc = await this.ctx.requireVersion(tx, target.id);
      if (target.mode === null) {
        if (!canWrite(principal, type, null)) throw new ForbiddenError();
        await removeLogin(tx, type, doc);
        await tx.documents.remove([doc._id]);
        return;
      }
      if (target.mode === 'draft') {
        if (await this.ctx.readVersion(tx, versionId(target, 'published'))) {
          throw new ConflictError('This draft has a published version: unpublish it or delete the published version first');
        }
      } else if (!canPublish(principal, type)) {
        throw new ForbiddenError();
      }
      await tx.documents.remove([doc._id, versionId(target, 'previous')]);
      if (target.mode === 'published') await this.markUnpublished(tx, target);
    });
  }
}

function sortOf(type: SanitizedPieceType) {
  return Object.entries(type.options.sort).map(([field, direction]) => ({ field, direction }));
}

/** The field a top-level input key names: its own name, or a relationship's other spelling. */
function fieldFor(type: SanitizedPieceType, key: string) {
  const direct = type.fieldsByName.get(key);
  if (direct) return direct;
  const other = type.fieldsByName.get(key.startsWith('_') ? key.slice(1) : `_${key}`);
  return other?.type === 'relationship' ? other : undefined;
}
