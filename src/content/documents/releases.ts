import type { Principal } from '../../core/principal.js';
import type { StorageSession, StoredRelease } from '../../storage/storage-adapter.js';
import type { Caller } from './caller.js';
import type { DocumentCollaborators } from './collaborators.js';
import { AppError, ConflictError, ForbiddenError, InvalidRequestError, NotFoundError } from '../../errors/app-error.js';
import { audit } from '../../core/audit.js';
import { newId } from '../../core/ids.js';
import { canPublish } from '../access/permissions.js';
import { parseScheduledBy, scheduledByOf } from './schedules.js';
import { actingPrincipal } from './schedule-runner.js';
import { namingDocument, publishOne, revertOne } from './release-steps.js';
import { documentChanges, idMax, releaseFields, releaseOutput, type PrecheckFailure, type ReleaseDocumentOutput, type ReleaseOutput } from './release-bodies.js';
import { docIdsOf, publishedNow, states, typesOf } from './release-reads.js';

type ReleaseDeps = Pick<DocumentCollaborators, 'config' | 'store' | 'apiKeys' | 'transactions' | 'versions' | 'values' | 'changes'>;
type Body = unknown;

const pageMax = 100;
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
    return { ...releaseOutput(release), documents: await states(this.#deps, documents) };
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
    const found = await typesOf(this.#deps, caller.principal, add);
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
            await publishOne(this.#deps, tx, doc, caller);
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
      const published = await publishedNow(this.#deps, tx, current);
      const was: string[] = [];
      const first: string[] = [];
      for (const doc of current) {
        (published.has(doc.versionId) ? was : first).push(doc.versionId);
        await namingDocument(doc, () => publishOne(this.#deps, tx, doc, caller));
      }
      await tx.releases.markPublished(id, was, first);
      await audit(tx, caller, { action: 'release.publish', ids: [id], detail: { documents: current.length } });
      return releaseOutput((await tx.releases.find(id))!);
    });
  }

  /** Puts every document back to the version published before the release; one it published first is unpublished. */
  async revert(caller: Caller, id: string): Promise<ReleaseOutput> {
    this.#requireReleaser(caller.principal);
    const documents = await this.#deps.transactions.run({}, async (tx) => {
      const release = await this.#find(tx, id);
      if (release.state !== 'published') throw new ConflictError(`The release is ${release.state}: only a published release is reverted`);
      return tx.releases.documents(id);
    });
    return this.#deps.transactions.run({ lock: docIdsOf(documents) }, async (tx) => {
      const now = new Date().toISOString();
      if (!(await tx.releases.transition(id, ['published'], { state: 'reverted', updatedAt: now }))) throw new ConflictError('The release was reverted meanwhile');
      for (const doc of documents) {
        await namingDocument(doc, () => revertOne(this.#deps, tx, doc, caller));
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

}

