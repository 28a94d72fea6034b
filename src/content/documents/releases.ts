import type { Principal } from '../../core/principal.js';
import type { StorageSession, StoredDocument, StoredRelease, StoredReleaseDocument } from '../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import type { Caller } from './caller.js';
import type { DocumentCollaborators } from './collaborators.js';
import { AppError, ConflictError, ForbiddenError, InvalidRequestError, NotFoundError } from '../../errors/app-error.js';
import { audit } from '../../core/audit.js';
import { newId, parseDocumentId } from '../../core/ids.js';
import { canPublish, canWrite, requirePublish } from '../access/permissions.js';
import { versionId } from './caller.js';
import { markUnpublished, publishDraft, refreshModified } from './publishing-steps.js';
import { readVersion, requireVersion } from './version-reads.js';
import { parseScheduledBy, scheduledByOf } from './schedules.js';
import { actingPrincipal } from './schedule-runner.js';
import { revertPublishedSteps } from './operations/revert-published-to-previous.js';

type ReleaseDeps = Pick<DocumentCollaborators, 'config' | 'store' | 'apiKeys' | 'transactions' | 'versions' | 'values' | 'changes'>;
type Body = unknown;

/** A release as the API answers it. */
export interface ReleaseOutput {
  readonly _id: string;
  readonly title: string;
  readonly publishAt: string | null;
  readonly state: StoredRelease['state'];
  readonly createdAt: string;
  readonly createdBy: ByOutput | null;
  readonly updatedAt: string;
  readonly publishedAt: string | null;
  readonly publishedBy: ByOutput | null;
  readonly failure: string | null;
}

/** One draft of a release and how it stands: `modified` (the draft differs from the published version or was never published), `published`, `missing` (the draft is gone). */
export interface ReleaseDocumentOutput {
  readonly _id: string;
  readonly type: string;
  readonly title: string | null;
  readonly state: 'modified' | 'published' | 'missing';
}

interface ByOutput { readonly _id: string | null; readonly title: string; readonly username: string | null }

/** One document a precheck found would fail, with the error the publish would answer. */
export interface PrecheckFailure { readonly _id: string; readonly type: string; readonly status: string; readonly name: string; readonly message: string }

const titleMax = 200;
const idMax = 200;
const pageMax = 100;
// Ids a store lookup takes at once (SQLite's bound parameters, one statement's size).
const lookupChunk = 500;
const editable: readonly StoredRelease['state'][] = ['open', 'failed'];
// Due releases one look runs at most; more wait for the next look.
const dueLimit = 10;

/** Another process published (or changed) the release first: the run writes nothing. */
class ClaimLost extends Error {}
/** Ends a precheck's transaction: nothing it did is kept. */
class RolledBack extends Error {}

/**
 * Releases (issue 38): drafts of any types and locales published together in ONE transaction,
 * all or none, through the same per-document step as the publish route (`publishDraft`, and its
 * change record), by hand or when due; reverted together.
 */
export class Releases {
  readonly #deps: ReleaseDeps;

  constructor(deps: ReleaseDeps) {
    this.#deps = deps;
  }

  async create(caller: Caller, body: Body): Promise<ReleaseOutput> {
    this.#requireReleaser(caller.principal);
    const fields = releaseFields(body, true);
    const now = new Date().toISOString();
    const release: StoredRelease = {
      id: newId(), title: fields.title!, publishAt: fields.publishAt ?? null, state: 'open', createdAt: now,
      createdBy: JSON.stringify(scheduledByOf(caller)), updatedAt: now, publishedAt: null, publishedBy: null, failure: null,
    };
    await this.#deps.transactions.run({}, (tx) => tx.releases.insert(release));
    return releaseOutput(release);
  }

  async list(caller: Caller, query: Readonly<Record<string, unknown>>): Promise<{ results: ReleaseOutput[]; next: string | null }> {
    this.#requireReleaser(caller.principal);
    const limit = query.limit === undefined ? 50 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > pageMax) throw new InvalidRequestError(`limit is a whole number from 1 to ${pageMax}`);
    const before = query.before;
    if (before !== undefined && (typeof before !== 'string' || before.length > idMax)) throw new InvalidRequestError('before is a release id');
    const rows = await this.#deps.transactions.run({}, (tx) => tx.releases.list(limit + 1, (before as string | undefined) ?? null));
    const page = rows.slice(0, limit);
    return { results: page.map(releaseOutput), next: rows.length > limit ? page.at(-1)!.id : null };
  }

  async get(caller: Caller, id: string): Promise<ReleaseOutput & { documents: ReleaseDocumentOutput[] }> {
    this.#requireReleaser(caller.principal);
    const { release, documents } = await this.#deps.transactions.run({}, async (tx) => {
      const release = await this.#find(tx, id);
      return { release, documents: await tx.releases.documents(id) };
    });
    return { ...releaseOutput(release), documents: await this.#states(documents) };
  }

  async edit(caller: Caller, id: string, body: Body): Promise<ReleaseOutput> {
    this.#requireReleaser(caller.principal);
    const fields = releaseFields(body, false);
    return this.#deps.transactions.run({}, async (tx) => {
      const release = await this.#find(tx, id);
      const title = fields.title ?? release.title;
      const publishAt = fields.publishAt === undefined ? release.publishAt : fields.publishAt;
      const updatedAt = new Date().toISOString();
      // A failed release given a new time is open again: its scheduled run is tried anew.
      if (!(await tx.releases.edit(id, { title, publishAt, updatedAt }))) throw new ConflictError(`The release is ${release.state}: it can no longer be changed`);
      if (release.state === 'failed') await tx.releases.transition(id, ['failed'], { state: 'open', updatedAt, failure: null });
      return releaseOutput((await tx.releases.find(id))!);
    });
  }

  async remove(caller: Caller, id: string): Promise<{ removed: string }> {
    this.#requireReleaser(caller.principal);
    await this.#deps.transactions.run({}, async (tx) => {
      const release = await this.#find(tx, id);
      if (!(await tx.releases.remove(id))) throw new ConflictError(`The release is ${release.state}: a published release is not removed (revert it first)`);
      await audit(tx, caller, { action: 'release.delete', ids: [id], detail: { title: release.title } });
    });
    return { removed: id };
  }

  /** `{ add, remove }`: drafts' `_id`s, of types the caller may edit, each type found from the stored draft. */
  async changeDocuments(caller: Caller, id: string, body: Body): Promise<{ added: number; removed: number; count: number }> {
    this.#requireReleaser(caller.principal);
    const { add, remove } = documentChanges(body, this.#deps.config.limits.releaseDocumentsPerCall);
    const found = await this.#typesOf(caller.principal, add);
    const missing = add.filter((draftId) => !found.has(draftId));
    if (missing.length > 0) throw new NotFoundError(`${missing.length} of these drafts were not found (or are of types you may not edit)`, { missing: missing.slice(0, 20) });
    return this.#deps.transactions.run({}, async (tx) => {
      const release = await this.#find(tx, id);
      if (!editable.includes(release.state)) throw new ConflictError(`The release is ${release.state}: its documents can no longer be changed`);
      const removed = await tx.releases.removeDocuments(id, remove);
      const before = await tx.releases.countDocuments(id);
      await tx.releases.addDocuments(id, add.map((draftId) => ({ versionId: draftId, type: found.get(draftId)! })));
      const count = await tx.releases.countDocuments(id);
      const max = this.#deps.config.limits.releaseMaxDocuments;
      if (count > max) throw new ConflictError(`A release holds at most ${max} documents (limits.releaseMaxDocuments)`, { max });
      await tx.releases.edit(id, { title: release.title, publishAt: release.publishAt, updatedAt: new Date().toISOString() });
      return { added: count - before, removed, count };
    });
  }

  /** Every document whose publish would fail, found by running the publish itself in a transaction that is rolled back. */
  async precheck(caller: Caller, id: string): Promise<{ ok: boolean; failures: PrecheckFailure[] }> {
    this.#requireReleaser(caller.principal);
    const release = await this.#deps.transactions.run({}, (tx) => this.#find(tx, id));
    const documents = await this.#deps.transactions.run({}, (tx) => tx.releases.documents(release.id));
    const failures: PrecheckFailure[] = [];
    try {
      await this.#deps.transactions.run({ lock: docIdsOf(documents) }, async (tx) => {
        for (const doc of documents) {
          try {
            await this.#publishOne(tx, doc, caller);
          } catch (error) {
            if (!(error instanceof AppError)) throw error;
            failures.push({ _id: doc.versionId, type: doc.type, status: error.code, name: error.code, message: error.message });
          }
        }
        throw new RolledBack();
      });
    } catch (error) {
      if (!(error instanceof RolledBack)) throw error;
    }
    return { ok: failures.length === 0, failures };
  }

  /** Publishes every document of the release in one transaction: the first refusal aborts it all and is answered, naming its document. */
  async publish(caller: Caller, id: string): Promise<ReleaseOutput> {
    this.#requireReleaser(caller.principal);
    try {
      return await this.#publish(caller, id, ['open', 'failed']);
    } catch (error) {
      if (error instanceof ClaimLost) throw new ConflictError('The release was published meanwhile');
      throw error;
    }
  }

  async #publish(caller: Caller, id: string, from: readonly StoredRelease['state'][]): Promise<ReleaseOutput> {
    const documents = await this.#deps.transactions.run({}, async (tx) => {
      const release = await this.#find(tx, id);
      if (!from.includes(release.state)) throw new ConflictError(`The release is ${release.state}`);
      return tx.releases.documents(id);
    });
    return this.#deps.transactions.run({ lock: docIdsOf(documents) }, async (tx) => {
      const now = new Date().toISOString();
      // The claim: the first transaction to move the release wins; another waits on its row and finds it moved.
      const moved = await tx.releases.transition(id, from, { state: 'published', updatedAt: now, publishedAt: now, publishedBy: JSON.stringify(scheduledByOf(caller)), failure: null });
      if (!moved) throw new ClaimLost();
      const current = await tx.releases.documents(id);
      if (current.length !== documents.length) throw new ConflictError('The release\'s documents changed meanwhile: publish it again');
      const published = await this.#publishedNow(tx, current);
      const was: string[] = [];
      const first: string[] = [];
      for (const doc of current) {
        (published.has(doc.versionId) ? was : first).push(doc.versionId);
        try {
          await this.#publishOne(tx, doc, caller);
        } catch (error) {
          if (error instanceof AppError) throw new AppError(error.code, `${doc.versionId} (${doc.type}): ${error.message}`, { ...error.data, _id: doc.versionId, type: doc.type });
          throw error;
        }
      }
      await tx.releases.markPublished(id, was, first);
      await audit(tx, caller, { action: 'release.publish', ids: [id], detail: { documents: current.length } });
      return releaseOutput((await tx.releases.find(id))!);
    });
  }

  /** Puts every document back to the version published before the release; one it published first is unpublished. */
  async revert(caller: Caller, id: string): Promise<ReleaseOutput> {
    this.#requireReleaser(caller.principal);
    const { principal } = caller;
    const documents = await this.#deps.transactions.run({}, async (tx) => {
      const release = await this.#find(tx, id);
      if (release.state !== 'published') throw new ConflictError(`The release is ${release.state}: only a published release is reverted`);
      return tx.releases.documents(id);
    });
    return this.#deps.transactions.run({ lock: docIdsOf(documents) }, async (tx) => {
      const now = new Date().toISOString();
      if (!(await tx.releases.transition(id, ['published'], { state: 'reverted', updatedAt: now }))) throw new ConflictError('The release was reverted meanwhile');
      for (const doc of documents) {
        const type = this.#typeOf(doc);
        requirePublish(principal, type);
        const set = setOf(doc.versionId);
        try {
          if (doc.wasPublished === false) {
            const published = await requireVersion(tx, type, versionId(set, 'published'));
            await this.#deps.versions.remove(tx, type, [published._id, versionId(set, 'previous')]);
            const draft = await markUnpublished(this.#deps, tx, type, set);
            if (!draft) throw new NotFoundError();
            await this.#deps.changes.recorded(tx, 'unpublish', draft, caller);
          } else {
            await revertPublishedSteps(this.#deps, tx, type, set, caller);
          }
        } catch (error) {
          if (error instanceof AppError) throw new AppError(error.code, `${doc.versionId} (${doc.type}): ${error.message}`, { ...error.data, _id: doc.versionId, type: doc.type });
          throw error;
        }
      }
      await audit(tx, caller, { action: 'release.revert', ids: [id], detail: { documents: documents.length } });
      return releaseOutput((await tx.releases.find(id))!);
    });
  }

  /**
   * Runs the releases due now (the schedule runner's timer), each as who created it; once on any
   * number of processes (the publish's own transaction claims it). A refusal marks it failed.
   */
  async runDue(now = Date.now()): Promise<number> {
    const due = await this.#deps.transactions.run({}, (tx) => tx.releases.due(new Date(now).toISOString(), dueLimit));
    for (const id of due) {
      const release = await this.#deps.transactions.run({}, (tx) => tx.releases.find(id));
      if (!release) continue;
      const principal = await actingPrincipal(this.#deps, release.createdBy);
      try {
        if (typeof principal === 'string') throw new ForbiddenError(principal);
        const by = parseScheduledBy(release.createdBy);
        await this.#publish({ principal, ...(by?.keyId ? { keyCallerId: by.keyId } : {}) }, id, ['open']);
      } catch (error) {
        if (error instanceof ClaimLost) continue;
        if (!(error instanceof AppError)) throw error;
        await this.#deps.transactions.run({}, (tx) => tx.releases.transition(id, ['open'], { state: 'failed', updatedAt: new Date().toISOString(), failure: error.message }));
      }
    }
    return due.length;
  }

  /** The one per-document publish step: the publish route's, with its change record (webhooks, audit, history, sync). */
  async #publishOne(tx: StorageSession, doc: StoredReleaseDocument, caller: Caller): Promise<void> {
    const type = this.#typeOf(doc);
    requirePublish(caller.principal, type);
    const published = await publishDraft(this.#deps, tx, type, setOf(doc.versionId), caller.principal);
    await this.#deps.changes.recorded(tx, 'publish', published, caller);
  }

  #typeOf(doc: StoredReleaseDocument): SanitizedPieceType {
    const type = this.#deps.config.pieceTypes.get(doc.type);
    if (!type) throw new NotFoundError(`The type ${doc.type} is no longer configured`);
    return type;
  }

  async #find(tx: StorageSession, id: string): Promise<StoredRelease> {
    if (typeof id !== 'string' || id.length > idMax) throw new NotFoundError();
    const release = await tx.releases.find(id);
    if (!release) throw new NotFoundError();
    return release;
  }

  /** Releases span types: whoever may publish some type works with them. */
  #requireReleaser(principal: Principal): void {
    for (const type of this.#deps.config.pieceTypes.values()) if (type.options.localized && canPublish(principal, type)) return;
    throw new ForbiddenError('Releases are for those who may publish');
  }

  /** The type of each draft id, by a lookup of each type the caller may edit (batched). */
  async #typesOf(principal: Principal, ids: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    if (ids.length === 0) return found;
    for (const type of this.#deps.config.pieceTypes.values()) {
      if (!type.options.localized || !canWrite(principal, type, 'draft')) continue;
      for (const chunk of chunks(ids.filter((id) => !found.has(id)), lookupChunk)) {
        if (chunk.length === 0) continue;
        const docs = await this.#deps.store.find({ type: type.name, ids: chunk, mode: 'draft', limit: chunk.length });
        for (const doc of docs) found.set(doc._id, type.name);
      }
    }
    return found;
  }

  /** The drafts among `documents` that have a published version now (batched by type). */
  async #publishedNow(tx: StorageSession, documents: readonly StoredReleaseDocument[]): Promise<Set<string>> {
    const published = new Set<string>();
    for (const [typeName, docs] of byType(documents)) {
      for (const chunk of chunks(docs.map((doc) => versionId(setOf(doc.versionId), 'published')), lookupChunk)) {
        for (const doc of await tx.documents.find({ type: typeName, ids: chunk, limit: chunk.length })) published.add(versionId(setOf(doc._id), 'draft'));
      }
    }
    return published;
  }

  async #states(documents: readonly StoredReleaseDocument[]): Promise<ReleaseDocumentOutput[]> {
    const versions = new Map<string, StoredDocument>();
    for (const [typeName, docs] of byType(documents)) {
      const ids = docs.flatMap((doc) => [doc.versionId, versionId(setOf(doc.versionId), 'published')]);
      for (const chunk of chunks(ids, lookupChunk)) {
        for (const doc of await this.#deps.store.find({ type: typeName, ids: chunk, limit: chunk.length })) versions.set(doc._id, doc);
      }
    }
    return documents.map((doc) => {
      const draft = versions.get(doc.versionId);
      const published = versions.get(versionId(setOf(doc.versionId), 'published'));
      const state = !draft ? 'missing' : published && draft.modified !== true ? 'published' : 'modified';
      return { _id: doc.versionId, type: doc.type, title: draft ? String(draft.title ?? '') : null, state };
    });
  }
}

function setOf(draftId: string): { docId: string; locale: string } {
  const { docId, locale } = parseDocumentId(draftId);
  return { docId, locale: locale! };
}

function docIdsOf(documents: readonly StoredReleaseDocument[]): string[] {
  return [...new Set(documents.map((doc) => setOf(doc.versionId).docId))].sort();
}

function byType(documents: readonly StoredReleaseDocument[]): Map<string, StoredReleaseDocument[]> {
  const map = new Map<string, StoredReleaseDocument[]>();
  for (const doc of documents) map.set(doc.type, [...(map.get(doc.type) ?? []), doc]);
  return map;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function plainObject(body: Body): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidRequestError('The body is a JSON object');
  return body as Record<string, unknown>;
}

/** `{ title, publishAt }` checked: a title of 1 to 200 characters, a publishAt ISO time or null; nothing else. */
function releaseFields(body: Body, creating: boolean): { title?: string; publishAt?: string | null } {
  const object = plainObject(body);
  const unknown = Object.keys(object).filter((key) => key !== 'title' && key !== 'publishAt');
  if (unknown.length > 0) throw new InvalidRequestError(`Unknown properties: ${unknown.slice(0, 5).join(', ')}`, { allowed: ['title', 'publishAt'] });
  const out: { title?: string; publishAt?: string | null } = {};
  if (object.title !== undefined || creating) {
    const title = object.title;
    if (typeof title !== 'string' || title.trim() === '' || title.length > titleMax) throw new InvalidRequestError(`title is text of 1 to ${titleMax} characters`);
    out.title = title.trim();
  }
  if (object.publishAt !== undefined) {
    const at = object.publishAt;
    if (at === null) out.publishAt = null;
    else if (typeof at !== 'string' || at.length > 40 || Number.isNaN(Date.parse(at))) throw new InvalidRequestError('publishAt is an ISO 8601 time, or null');
    else out.publishAt = new Date(at).toISOString();
  }
  return out;
}

/** `{ add, remove }`: arrays of draft `_id`s (`<cmsDocId>:<locale>:draft`), together at most `perCall`. */
function documentChanges(body: Body, perCall: number): { add: string[]; remove: string[] } {
  const object = plainObject(body);
  const unknown = Object.keys(object).filter((key) => key !== 'add' && key !== 'remove');
  if (unknown.length > 0) throw new InvalidRequestError(`Unknown properties: ${unknown.slice(0, 5).join(', ')}`, { allowed: ['add', 'remove'] });
  const list = (name: 'add' | 'remove'): string[] => {
    const value = object[name] ?? [];
    if (!Array.isArray(value)) throw new InvalidRequestError(`${name} is an array of draft ids`);
    if (value.length > perCall) throw new InvalidRequestError(`At most ${perCall} ids per call (limits.releaseDocumentsPerCall)`, { max: perCall });
    for (const id of value) {
      if (typeof id !== 'string' || id.length > idMax || !/^[^:]+:[^:]+:draft$/.test(id)) throw new InvalidRequestError(`${name}: each id is a draft's _id (<cmsDocId>:<locale>:draft)`);
    }
    return [...new Set(value as string[])];
  };
  const add = list('add');
  const remove = list('remove');
  if (add.length + remove.length > perCall) throw new InvalidRequestError(`At most ${perCall} ids per call (limits.releaseDocumentsPerCall)`, { max: perCall });
  return { add, remove };
}

function byOutput(text: string | null): ByOutput | null {
  const by = text === null ? null : parseScheduledBy(text);
  return by ? { _id: by.userId, title: by.title, username: by.username } : null;
}

function releaseOutput(release: StoredRelease): ReleaseOutput {
  return {
    _id: release.id, title: release.title, publishAt: release.publishAt, state: release.state, createdAt: release.createdAt,
    createdBy: byOutput(release.createdBy), updatedAt: release.updatedAt, publishedAt: release.publishedAt,
    publishedBy: byOutput(release.publishedBy), failure: release.failure,
  };
}
