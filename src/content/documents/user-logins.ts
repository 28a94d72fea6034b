import type { SanitizedPieceType } from '../types/piece-type.js';
import type { StorageSession, StoredDocument } from '../../storage/storage-adapter.js';
import { checkLogin } from '../stored-shape.js';
import { userTypeName } from '../../core/principal.js';

// No hash matches it: a user created without a password can log in once an admin sets one.
const noPassword = '';

/**
 * Users keep their login (username, email, password hash) apart from the user document, so no
 * response can ever carry the hash. The document keeps username and email for display; the
 * password is taken out of it before it is stored. A new password, disabling or archiving ends
 * every bearer token and session of the user in the same transaction: the lookup refuses a
 * disabled or archived user's tokens anyway, but only removing them keeps re-enabling or
 * restoring the user from reviving them.
 */
export async function saveLogin(tx: StorageSession, type: SanitizedPieceType, doc: StoredDocument): Promise<void> {
  if (type.name !== userTypeName) return;
  const newHash = typeof doc.password === 'string' ? doc.password : undefined;
  delete doc.password;
  const existing = await tx.logins.get(doc._id);
  const passwordHash = newHash ?? existing?.passwordHash ?? noPassword;
  const login = {
    userId: doc._id,
    username: String(doc.username ?? ''),
    email: typeof doc.email === 'string' && doc.email !== '' ? doc.email : null,
    passwordHash,
  };
  checkLogin(login);
  await tx.logins.put(login);
  const passwordChanged = newHash !== undefined && existing !== null && newHash !== existing.passwordHash;
  if (passwordChanged || doc.disabled === true || doc.archived === true) await tx.tokens.removeForUser(doc._id);
}

export async function removeLogin(tx: StorageSession, type: SanitizedPieceType, doc: StoredDocument): Promise<void> {
  if (type.name !== userTypeName) return;
  await tx.logins.remove(doc._id);
  await tx.tokens.removeForUser(doc._id);
  await tx.preferences.remove(doc._id);
}
