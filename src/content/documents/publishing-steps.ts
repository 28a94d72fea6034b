import type { Principal } from '../../core/principal.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import type { StorageSession, StoredDocument } from '../../storage/storage-adapter.js';
import type { SchemaValueReader } from './schema-value-reader.js';
import type { VersionWriter } from './version-writer.js';
import { versionId, type SetTarget } from './caller.js';
import { newVersion, touch } from './new-version.js';
import { readVersion, requireVersion } from './version-reads.js';
import { assignSlug } from './slugs.js';
import { settleNames } from './archived-names.js';
import { assertReviewed } from './review-state.js';

/**
 * The steps several operations share when content moves between the versions of a document set.
 * Each runs in the caller's transaction, which has locked the document.
 */
export interface PublishingDeps {
  readonly versions: VersionWriter;
  readonly values: SchemaValueReader;
}

/**
 * Publishes the draft (the publish route, and inserts and updates of autopublishing types): the
 * current published version is kept as `previous`, the draft's schema values overwrite it.
 * Answers the published version.
 */
export async function publishDraft(
  deps: PublishingDeps,
  tx: StorageSession,
  type: SanitizedPieceType,
  set: SetTarget,
  principal: Principal,
): Promise<StoredDocument> {
  const draft = await requireVersion(tx, type, versionId(set, 'draft'));
  // A type with review stages publishes only a draft that reached publishFrom (review-state.ts).
  assertReviewed(type, draft);
  const current = await readVersion(tx, type, versionId(set, 'published'));
  const now = new Date().toISOString();
  if (current) await keepAsPrevious(deps, tx, type, current);
  const values = { ...deps.values.schemaValues(type, draft), archived: draft.archived };
  const published = current ?? newVersion({ type, docId: set.docId, locale: set.locale, mode: 'published', values, now, principal });
  Object.assign(published, values, { lastPublishedAt: now });
  delete published.modified;
  touch(published, now, principal);
  await settleNames(tx, type, [published]);
  await (current ? deps.versions.update(tx, published) : deps.versions.insert(tx, published));
  Object.assign(draft, { modified: false, lastPublishedAt: now });
  await deps.versions.updateBookkeeping(tx, draft);
  return published;
}

async function keepAsPrevious(deps: PublishingDeps, tx: StorageSession, type: SanitizedPieceType, published: StoredDocument): Promise<void> {
  const locale = published.cmsLocale!.split(':')[0]!;
  const previous: StoredDocument = {
    ...structuredClone(published),
    _id: versionId({ docId: published.cmsDocId, locale }, 'previous'),
    cmsLocale: `${locale}:previous`,
    cmsMode: 'previous',
  };
  await deps.versions.remove(tx, type, [previous._id]);
  await assignSlug(tx, type, [previous]);
  await deps.versions.insert(tx, previous);
}

/** After the published version is gone, the draft is the only version: modified, never published. */
export async function markUnpublished(
  deps: Pick<PublishingDeps, 'versions'>,
  tx: StorageSession,
  type: SanitizedPieceType,
  set: { docId: string; locale: string | null },
): Promise<StoredDocument | null> {
  const draft = await readVersion(tx, type, versionId(set, 'draft'));
  if (!draft) return null;
  Object.assign(draft, { modified: true, lastPublishedAt: null });
  await deps.versions.updateBookkeeping(tx, draft);
  return draft;
}

/** Recomputes the draft's `modified` flag against the published version. */
export async function refreshModified(deps: PublishingDeps, tx: StorageSession, type: SanitizedPieceType, set: SetTarget): Promise<void> {
  const draft = await readVersion(tx, type, versionId(set, 'draft'));
  if (!draft) return;
  const published = await readVersion(tx, type, versionId(set, 'published'));
  const modified = deps.values.isModified(type, draft, published);
  if (draft.modified !== modified) {
    draft.modified = modified;
    await deps.versions.updateBookkeeping(tx, draft);
  }
}
