import type { StorageSession, StoredReleaseDocument } from '../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import type { Caller } from './caller.js';
import type { DocumentCollaborators } from './collaborators.js';
import { AppError, NotFoundError } from '../../errors/app-error.js';
import { requirePublish } from '../access/permissions.js';
import { versionId } from './caller.js';
import { markUnpublished, publishDraft } from './publishing-steps.js';
import { requireVersion } from './version-reads.js';
import { revertPublishedSteps } from './operations/revert-published-to-previous.js';
import { setOf } from './release-reads.js';

/* A release's per-document steps: the publish route's and the revert's own, in the release's one transaction. */

type StepDeps = Pick<DocumentCollaborators, 'config' | 'versions' | 'values' | 'changes'>;

function typeOf(deps: StepDeps, doc: StoredReleaseDocument): SanitizedPieceType {
  const type = deps.config.pieceTypes.get(doc.type);
  if (!type) throw new NotFoundError(`The type ${doc.type} is no longer configured`);
  return type;
}

/** The one per-document publish step: the publish route's, with its change record (webhooks, audit, history, sync). */
export async function publishOne(deps: StepDeps, tx: StorageSession, doc: StoredReleaseDocument, caller: Caller): Promise<void> {
  const type = typeOf(deps, doc);
  requirePublish(caller.principal, type);
  const published = await publishDraft(deps, tx, type, setOf(doc.versionId), caller.principal);
  await deps.changes.recorded(tx, 'publish', published, caller);
}

/** Back to the version published before the release; one the release published first is unpublished (the unpublish route's steps). */
export async function revertOne(deps: StepDeps, tx: StorageSession, doc: StoredReleaseDocument, caller: Caller): Promise<void> {
  const type = typeOf(deps, doc);
  requirePublish(caller.principal, type);
  const set = setOf(doc.versionId);
  if (doc.wasPublished !== false) {
    await revertPublishedSteps(deps, tx, type, set, caller);
    return;
  }
  const published = await requireVersion(tx, type, versionId(set, 'published'));
  await deps.versions.remove(tx, type, [published._id, versionId(set, 'previous')]);
  const draft = await markUnpublished(deps, tx, type, set);
  if (!draft) throw new NotFoundError();
  await deps.changes.recorded(tx, 'unpublish', draft, caller);
}

/** Runs one document's step; its refusal, answered for the whole release, names the document (`data._id`, `data.type`). */
export async function namingDocument(doc: StoredReleaseDocument, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    throw new AppError(error.code, `${doc.versionId} (${doc.type}): ${error.message}`, { ...error.data, _id: doc.versionId, type: doc.type }, { cause: error });
  }
}
