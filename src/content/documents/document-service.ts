import type { Principal, Role } from '../../core/principal.js';
import { answerScopes } from './answer-scopes.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import type { DocumentQuery, StorageSession, StoredDocument } from '../../storage/storage-adapter.js';
import type { Choice } from '../fields/field-type.js';
import { defaultsFor, type FieldTypeLookup } from '../fields/convert-schema.js';
import { NotFoundError } from '../../errors/app-error.js';
import { canAccessApi, canPublish, canReadType, readableArchived, requireDrafts, requirePublish, requireWrite, visibleValues } from '../access/permissions.js';
import { DocumentContext, replayedIds, type DocumentServiceDeps } from './document-context.js';
import { changeOf } from './change-events.js';
import { newId } from '../../core/ids.js';
import { applyPatch, parsePatch } from './patch.js';
import { Publishing } from './publishing.js';
import { requestVersion, resolveTarget, versionId, type RequestScope, type Target } from './scope.js';
import { saveLogin, removeLogin } from './user-logins.js';
import type { WritePasswords } from '../fields/password-hasher.js';
import { ListQueries } from '../query/list-query.js';
import { parseArchived, parseListParams, renderingOf, type ListParams } from '../query/list-params.js';
import { AreaRenderer } from '../rendering/area-renderer.js';
import { builtInWidgetRenderers } from '../rendering/widget-renderers.js';
import { applyProjection } from '../query/projection.js';
import { toTextSearch } from '../query/text-search.js';

export const maxPerPage = 100;

export interface ListResult {
  pages: number;
  currentPage: number;
  results: Record<string, unknown>[];
  choices?: Record<string, Choice[]>;
  counts?: Record<string, Choice[]>;
}

type Output = Record<string, unknown>;

/**
 * Every rule of the piece interface: modes, locales, permissions, the life cycle of versions.
 * The HTTP layer calls one method per endpoint and knows none of these rules.
 */
export class DocumentService extends Publishing {
  readonly #queries: ListQueries;
  readonly #areas: AreaRenderer;
  readonly #fieldTypes: FieldTypeLookup;
  /** `readableTypeNames` by role: what a caller may read depends on its role alone. */
  readonly #readableTypes = new Map<Role | null, readonly string[]>();

  constructor(deps: DocumentServiceDeps) {
    super(new DocumentContext(deps));
    this.#fieldTypes = deps.fieldTypes;
    this.#queries = new ListQueries({ config: deps.config, registry: deps.fieldTypes });
    this.#areas = new AreaRenderer(deps.config.widgetTypes, deps.fieldTypes, builtInWidgetRenderers(deps.imageSizes));
  }

  /**
   * The storage scopes the answers about a type are read from (list, get-one, locales): a cache
   * of those answers holds while `StorageAdapter.generation` of these scopes stands.
   */
  answerScopes(typeName: string): readonly string[] {
    return answerScopes(this.ctx.config, this.#fieldTypes, this.ctx.pieceType(typeName).name);
  }

  /**
   * The piece types a caller may read, as the URL names them: what the 404 of an unknown type
   * lists, so that it never reveals a type the caller could not use.
   */
  readableTypeNames(principal: Principal): readonly string[] {
    let names = this.#readableTypes.get(principal.role);
    if (names === undefined) {
      names = [...this.ctx.config.pieceTypes.values()].filter((type) => canReadType(principal, type)).map((type) => type.name);
      this.#readableTypes.set(principal.role, names);
    }
    return names;
  }

  /**
   * The list endpoint: `query` is the whole query string. A caller without API access filters,
   * sorts, searches and counts only on what the public projection shows.
   */
  async list(scope: RequestScope, typeName: string, query: Readonly<Record<string, unknown>>): Promise<ListResult | { count: number }> {
    const { principal } = scope;
    const type = this.ctx.pieceType(typeName);
    const { locale, mode } = requestVersion(this.ctx.config, type, scope);
    if (mode === 'draft') requireDrafts(principal, type);
    if (!canReadType(principal, type)) throw new NotFoundError();
    const params = parseListParams(query);
    const fullAccess = canAccessApi(principal, type);
    const store = this.ctx.storage.documents;
    const filterContext = this.#queries.filterContext({ store, principal, locale, mode, fullAccess });
    const offered = this.#queries.filtersFor(type, principal);
    const conditions = await this.#queries.conditions(params.filters, offered, filterContext);
    const base: DocumentQuery = {
      type: type.name,
      locale,
      mode,
      archived: readableArchived(principal, type, params.archived),
      visibility: visibleValues(principal),
      docIds: params.ids,
      search: params.search && toTextSearch(params.search.text, { prefix: params.search.prefix, publicOnly: !fullAccess && this.ctx.indexer.searchedTexts(type) === 'public' }),
    };
    const filtered = { ...base, conditions: [...conditions.values()] };
    if (params.count) return { count: await store.count(filtered) };
    const perPage = Math.min(params.perPage ?? type.options.perPage, maxPerPage);
    const [total, docs] = await Promise.all([
      store.count(filtered),
      store.find({ ...filtered, ...this.#order(type, params, fullAccess), skip: (params.page - 1) * perPage, limit: perPage }),
    ]);
    const presented = await this.ctx.presenter.present(docs, { type, principal });
    const results = presented.map((output) => this.#shape(output, params));
    const result: ListResult = { pages: Math.ceil(total / perPage), currentPage: params.page, results };
    const choiceArgs = { offered, query: base, conditions, store, ctx: filterContext };
    const choices = await this.#queries.choices({ ...choiceArgs, names: params.choices, withCounts: false });
    if (Object.keys(choices).length > 0) result.choices = choices;
    if (params.counts.length > 0) result.counts = await this.#queries.choices({ ...choiceArgs, names: params.counts, withCounts: true });
    return result;
  }

  /** `_ids` keep their order; a search ranks by relevance unless a sort is given. */
  #order(type: SanitizedPieceType, params: ListParams, fullAccess: boolean): Pick<DocumentQuery, 'order' | 'sort'> {
    const explicit = Array.isArray(params.sort) ? this.#queries.sortFor(type, params.sort, fullAccess) : undefined;
    const sort = explicit ?? sortOf(type);
    if (params.ids) return { order: 'ids', sort };
    if (params.search && (params.sort === 'relevance' || !explicit)) return { order: 'relevance', sort };
    return { order: 'sort', sort };
  }

  /** The client's `project` and `renderAreas`, applied to a presented document. */
  #shape(output: Output, params: Pick<ListParams, 'project' | 'render'>): Output {
    const projected = params.project ? applyProjection(output, params.project) : output;
    return params.render ? this.#areas.renderDocument(projected, params.render) : projected;
  }

  /**
   * One version; `archived=any|1` reaches archived documents for callers with API access,
   * `renderAreas` renders areas.
   */
  async getOne(scope: RequestScope, typeName: string, rawId: string, query: Readonly<Record<string, unknown>> = {}): Promise<Output> {
    const type = this.ctx.pieceType(typeName);
    const target = resolveTarget(this.ctx.config, type, rawId, scope);
    if (!canReadType(scope.principal, type)) throw new NotFoundError();
    const [doc] = await this.ctx.storage.documents.find({
      ids: [target.id],
      type: type.name,
      archived: readableArchived(scope.principal, type, parseArchived(query.archived)),
      visibility: visibleValues(scope.principal),
      limit: 1,
    });
    if (!doc) throw new NotFoundError();
    return this.#shape(await this.ctx.presentOne(doc, type, scope.principal), { render: renderingOf(query) });
  }

  /**
   * Published insert (the default) also creates the draft; a draft insert creates only the draft.
   * `_newInstance` saves nothing and answers what a new document starts as.
   */
  async insert(
    scope: RequestScope,
    typeName: string,
    body: Record<string, unknown>,
    options: { readonly onlyIf?: (tx: StorageSession) => Promise<void>; readonly lock?: readonly string[] } = {},
  ): Promise<Output> {
    const { principal } = scope;
    const type = this.ctx.pieceType(typeName);
    const { locale, mode } = requestVersion(this.ctx.config, type, scope);
    requireWrite(principal, type, mode);
    if (body._newInstance) return this.#newInstance(type, body);
    // `lock`: what `onlyIf` reads, held from the transaction's start.
    const saved = await this.ctx.write({ lock: options.lock }, async (tx, passwords) => {
      // A condition on the store, checked in the write's own transaction: no other write, from
      // this process or another, can come between it and the insert.
      await options.onlyIf?.(tx);
      const values = await this.ctx.convert({ type, input: body, locale, mode, principal, session: tx, passwords });
      const now = new Date().toISOString();
      const docId = newId();
      const version = (m: typeof mode) => this.ctx.newVersion({ type, docId, locale, mode: m, values, now, principal });
      if (mode === null) {
        const doc = version(null);
        await this.ctx.assignSlug(tx, type, [doc]);
        await saveLogin(tx, type, doc);
        await this.ctx.insertVersion(tx, doc);
        return this.ctx.recorded(tx, 'insert', doc, principal);
      }
      const draft = version('draft');
      if (mode === 'draft' && !type.options.autopublish) {
        draft.modified = true;
        await this.ctx.assignSlug(tx, type, [draft]);
        await this.ctx.insertVersion(tx, draft);
        return this.ctx.recorded(tx, 'insert', draft, principal);
      }
      const published = version('published');
      published.lastPublishedAt = draft.lastPublishedAt = now;
      draft.modified = false;
      await this.ctx.assignSlug(tx, type, [draft, published]);
      await this.ctx.insertVersion(tx, draft);
      await this.ctx.insertVersion(tx, published);
      return this.ctx.recorded(tx, 'insert', mode === 'draft' ? draft : published, principal);
    });
    return this.ctx.presentOne(saved, type, principal);
  }

  /**
   * The original's `_newInstance` (facts 4.1): the schema defaults with the rest of the body
   * over them, as sent, and whether the type has a page to preview; never a `_url`.
   */
  #newInstance(type: SanitizedPieceType, body: Record<string, unknown>): Output {
    const { _newInstance: _flag, ...rest } = body;
    const instance: Output = { ...defaultsFor(type.fields, this.#fieldTypes, newId), type: type.name, ...rest };
    delete instance._url;
    return { ...instance, _previewable: type.options.pagePath !== null };
  }

  /** Full replacement: every field not in the body is reset, except `archived`. */
  async replace(scope: RequestScope, typeName: string, rawId: string, body: Record<string, unknown>): Promise<Output> {
    return this.#update(scope, typeName, rawId, async (tx, type, version, target, ids, passwords) => {
      const values = await this.ctx.convert({
        type,
        input: body,
        existing: version,
        locale: target.locale,
        mode: target.mode,
        principal: scope.principal,
        session: tx,
        ids,
        passwords,
      });
      if (!Object.hasOwn(body, 'archived')) delete values.archived;
      return values;
    });
  }

  /** Partial update; in published mode the same patch also reaches the draft. */
  async patch(scope: RequestScope, typeName: string, rawId: string, body: Record<string, unknown>): Promise<Output> {
    const operations = parsePatch(body, this.ctx.config.limits.patchOperations);
    return this.#update(scope, typeName, rawId, async (tx, type, version, target, ids, passwords) => {
      const input = applyPatch(operations, {
        fields: type.fields,
        fieldFor: (key) => fieldFor(type, this.#fieldTypes, key),
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
        passwords,
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
      passwords: WritePasswords,
    ) => Promise<Record<string, unknown>>,
  ): Promise<Output> {
    const { principal } = scope;
    const type = this.ctx.pieceType(typeName);
    const target = resolveTarget(this.ctx.config, type, rawId, scope);
    requireWrite(principal, type, target.mode);
    const saved = await this.ctx.write({ lock: [target.docId] }, async (tx, passwords) => {
      const now = new Date().toISOString();
      const version = await this.ctx.requireVersion(tx, type, target.id);
      const other = target.mode === null ? null : await this.ctx.readVersion(tx, type, versionId(target, target.mode === 'draft' ? 'published' : 'draft'));
      const draft = target.mode === 'draft' ? version : other;
      const published = target.mode === 'published' ? version : other;
      const changed = [version, ...(target.mode === 'published' && draft ? [draft] : [])];
      const archivedBefore = version.archived;
      const idSource = replayedIds();
      for (const doc of changed) {
        const versionTarget = { ...target, mode: (doc.cmsMode ?? null) as Target['mode'] };
        Object.assign(doc, await valuesFor(tx, type, doc, versionTarget, idSource(), passwords));
        this.ctx.touch(doc, now, principal);
      }
      // Each version keeps its own slug: a draft's unpublished slug change stays in the draft.
      for (const doc of changed) await this.ctx.assignSlug(tx, type, [doc]);
      // Known (slugs included) before the versions are saved, so the draft is written once
      // (`archived`, which #spreadArchived may change below, is not compared).
      if (draft) draft.modified = this.ctx.layout.isModified(type, draft, published);
      if (target.mode === null) await saveLogin(tx, type, version);
      for (const doc of changed) await this.ctx.updateVersion(tx, doc);
      if (version.archived !== archivedBefore) {
        await this.#spreadArchived(tx, { type, target, archived: version.archived, done: changed, now, principal });
      }
      // One event for the request: archiving or restoring says so, any other change is an update.
      const event = version.archived === archivedBefore ? 'update' : version.archived ? 'archive' : 'restore';
      if (target.mode === 'draft' && type.options.autopublish) {
        await this.publishVersion(tx, type, target.docId, target.locale!, principal);
        // Publishing changed the draft through a copy of its own.
        return this.ctx.recorded(tx, event, (await this.ctx.readVersion(tx, type, target.id))!, principal);
      }
      return this.ctx.recorded(tx, event, version, principal);
    });
    return this.ctx.presentOne(saved, type, principal);
  }

  /**
   * Archiving any version archives every version of that locale; restoring restores them all.
   * Taking the published version offline (or back) through its draft needs publish permission:
   * the caller's transaction fails with a 403 and nothing changes. Each version changed records
   * who changed it.
   */
  async #spreadArchived(
    tx: StorageSession,
    args: { type: SanitizedPieceType; target: Target; archived: boolean; done: readonly StoredDocument[]; now: string; principal: Principal },
  ): Promise<void> {
    const { type, target, archived, principal } = args;
    if (target.locale === null) return;
    const siblings = (await tx.documents.find({ type: type.name, docIds: [target.docId], locale: target.locale })).filter(
      (sibling) => sibling.archived !== archived && !args.done.some((doc) => doc._id === sibling._id),
    );
    if (siblings.some((sibling) => sibling.cmsMode !== 'draft')) {
      requirePublish(principal, type, `${archived ? 'Archiving' : 'Restoring'} the published version of ${type.name}`);
    }
    for (const sibling of siblings) {
      sibling.archived = archived;
      this.ctx.touch(sibling, args.now, principal);
      await this.ctx.updateVersion(tx, sibling);
    }
  }

  /**
   * Permanent delete, cascading as the original's `deleteOtherModes`: a draft takes every
   * version of its locale with it (published, previous), a published version only its
   * `previous` copy, leaving the draft unpublished. Removing a published version, either way,
   * needs publish permission.
   */
  async remove(scope: RequestScope, typeName: string, rawId: string): Promise<void> {
    const { principal } = scope;
    const type = this.ctx.pieceType(typeName);
    const target = resolveTarget(this.ctx.config, type, rawId, scope);
    requireWrite(principal, type, target.mode);
    await this.ctx.transaction({ lock: [target.docId] }, async (tx) => {
      const doc = await this.ctx.requireVersion(tx, type, target.id);
      // Written first: a refusal below rolls it back with the rest.
      await this.ctx.recordChange(tx, changeOf('delete', doc, principal), null);
      if (target.mode === null) {
        await removeLogin(tx, type, doc);
        await this.ctx.removeVersions(tx, type, [doc._id]);
        return;
      }
      const published = versionId(target, 'published');
      const previous = versionId(target, 'previous');
      if (target.mode === 'published') {
        await this.ctx.removeVersions(tx, type, [published, previous]);
        await this.markUnpublished(tx, type, target);
        return;
      }
      if (!canPublish(principal, type) && (await this.ctx.readVersion(tx, type, published))) {
        requirePublish(principal, type, `Deleting the published version of ${type.name}`);
      }
      await this.ctx.removeVersions(tx, type, [doc._id, published, previous]);
    });
  }
}

function sortOf(type: SanitizedPieceType) {
  return Object.entries(type.options.sort).map(([field, direction]) => ({ field, direction }));
}

/** The field a top-level input key names: its own name, or a relationship's other spelling. */
function fieldFor(type: SanitizedPieceType, fieldTypes: FieldTypeLookup, key: string) {
  const direct = type.fieldsByName.get(key);
  if (direct) return direct;
  const other = type.fieldsByName.get(key.startsWith('_') ? key.slice(1) : `_${key}`);
  return other !== undefined && fieldTypes.get(other.type)?.relates === 'forward' ? other : undefined;
}
