import type { SanitizedPieceType } from '../types/piece-type.js';
import type { StorageSession, StoredDocument } from '../../storage/storage-adapter.js';
import { NotFoundError } from '../../errors/app-error.js';

/** The version `id` of the type: an id of another type's document reads as none (issue 20). */
export async function readVersion(session: StorageSession, type: SanitizedPieceType, id: string): Promise<StoredDocument | null> {
  const [doc] = await session.documents.find({ type: type.name, ids: [id], limit: 1 });
  return doc ?? null;
}

/** `readVersion`, or a 404 when there is none. */
export async function requireVersion(session: StorageSession, type: SanitizedPieceType, id: string): Promise<StoredDocument> {
  const doc = await readVersion(session, type, id);
  if (!doc) throw new NotFoundError();
  return doc;
}
