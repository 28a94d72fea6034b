import type { Principal } from '../../core/principal.js';
import type { StorageSession } from '../../storage/storage-adapter.js';
import { InvalidRequestError, LockedError } from '../../errors/app-error.js';
import { isPlainObject } from './patch-operation.js';

/** A write body's `_advisoryLock`: take (or refresh) the version's lock, or release it after the write. */
export interface LockRequest {
  readonly tabId: string;
  readonly lock: boolean;
  readonly force: boolean;
}

const maxTabIdLength = 200;

/** The `_advisoryLock` of a PUT or PATCH body, validated; null when there is none. */
export function lockRequestOf(body: Readonly<Record<string, unknown>>): LockRequest | null {
  if (!Object.hasOwn(body, '_advisoryLock')) return null;
  const value = body._advisoryLock;
  if (!isPlainObject(value)) throw invalid('_advisoryLock must be an object { tabId, lock, force? }');
  const { tabId, lock, force } = value;
  if (typeof tabId !== 'string' || tabId === '' || tabId.length > maxTabIdLength) {
    throw invalid(`_advisoryLock.tabId must be a string of 1 to ${maxTabIdLength} characters`, '_advisoryLock.tabId');
  }
  if (typeof lock !== 'boolean') throw invalid('_advisoryLock.lock must be true or false', '_advisoryLock.lock');
  if (force !== undefined && typeof force !== 'boolean') throw invalid('_advisoryLock.force must be true or false', '_advisoryLock.force');
  return { tabId, lock, force: force === true };
}

function invalid(message: string, path = '_advisoryLock'): InvalidRequestError {
  return new InvalidRequestError(message, { path });
}

/**
 * Takes or refreshes the advisory lock of a version for the caller's tab, in the transaction
 * that holds its document. A lock another tab refreshed less than `timeoutSeconds` ago is
 * refused (409 `locked`), unless `force` takes it over: the original's `lock`.
 */
export async function takeLock(
  tx: StorageSession,
  versionId: string,
  request: LockRequest,
  principal: Principal,
  timeoutSeconds: number,
): Promise<void> {
  const now = Date.now();
  const held = await tx.advisoryLocks.get(versionId);
  const free = !held || held.tabId === request.tabId || held.refreshedAt <= now - timeoutSeconds * 1000;
  if (held && !free && !request.force) {
    if (held.userId === principal.userId) throw new LockedError('You are editing this document in another tab', { me: true });
    throw new LockedError(`${held.title || held.username || 'Someone'} is editing this document`, {
      username: held.username,
      title: held.title,
    });
  }
  await tx.advisoryLocks.put({
    versionId,
    tabId: request.tabId,
    userId: principal.userId,
    username: principal.username,
    title: principal.title ?? (principal.kind === 'user' ? '' : 'System Task'),
    refreshedAt: now,
  });
}
