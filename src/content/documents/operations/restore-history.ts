import type { Caller } from '../caller.js';
import type { DocumentCollaborators, VersionOutput } from '../collaborators.js';
import type { StoredDocument } from '../../../storage/storage-adapter.js';
import { InvalidRequestError, NotFoundError } from '../../../errors/app-error.js';
import { isPlainObject } from '../patch-operation.js';
import { versionId } from '../caller.js';
import { readVersion, requireVersion } from '../version-reads.js';
import { touch } from '../new-version.js';
import { settleNames } from '../archived-names.js';
import { lockRequestOf } from '../advisory-locks.js';
import { historyEntryId, historyTarget } from '../history-target.js';
import { publishDraft } from '../publishing-steps.js';

type RestoreHistoryDeps = Pick<DocumentCollaborators, 'config' | 'transactions' | 'versions' | 'values' | 'conversion' | 'changes' | 'presenter'>;

/**
 * POST …/:_id/history/:entryId/restore: the draft takes the content the entry holds (its schema
 * values; whether it is archived stays as it is, and so do the relationships the caller may not
 * read and password hashes: Conversion.keepStoredValues), with `If-Match` and the body's `_advisoryLock`
 * checked as any write's. The restore is itself an entry (`restore-history`); nothing is
 * published (but for a type that publishes every draft save, images and files). Answers the draft.
 */
export async function restoreHistory(
  deps: RestoreHistoryDeps,
  caller: Caller,
  typeName: string,
  rawId: string,
  rawEntryId: string,
  body: unknown,
): Promise<VersionOutput> {
  const { principal } = caller;
  const { type, target, scope } = historyTarget(deps.config, caller, typeName, rawId);
  const entryId = historyEntryId(rawEntryId);
  const draftId = versionId(target, 'draft');
  const write = { caller, type, set: target, advisoryLock: { versionId: draftId, request: lockOf(body) } };
  const draft = await deps.transactions.runOnDocument(write, async (tx) => {
    const entry = await tx.history.get(scope, entryId);
    if (!entry) throw new NotFoundError();
    const draft = await requireVersion(tx, type, draftId);
    const published = await readVersion(tx, type, versionId(target, 'published'));
    const values = deps.values.schemaValues(type, entry.data as StoredDocument);
    // What the caller may not set (a relationship it may not read, a password hash) stays as stored now, as a PATCH's.
    deps.conversion.keepStoredValues({ type, principal, values, current: draft });
    Object.assign(draft, values);
    touch(draft, new Date().toISOString(), principal);
    await settleNames(tx, type, [draft]);
    draft.modified = deps.values.isModified(type, draft, published);
    await deps.versions.update(tx, draft);
    if (!type.options.autopublish) return deps.changes.recorded(tx, 'update', draft, caller, 'restore-history');
    // A type whose drafts are published by every save (images, files): the restore is such a save.
    await publishDraft(deps, tx, type, target, principal);
    return deps.changes.recorded(tx, 'update', (await readVersion(tx, type, draftId))!, caller, 'restore-history');
  });
  return deps.presenter.presentOne(draft, type, principal);
}

/** The body is optional: none, or an object whose only use is `_advisoryLock`. */
function lockOf(body: unknown) {
  if (body === undefined || body === null) return null;
  if (!isPlainObject(body)) throw new InvalidRequestError('The body must be a JSON object', { path: '' });
  return lockRequestOf(body);
}
