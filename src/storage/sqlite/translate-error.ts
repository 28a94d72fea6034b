import { ConflictError, StoreUnavailableError } from '../../errors/app-error.js';

const conflictsByColumn: ReadonlyMap<string, { constraint: string; message: string }> = new Map([
  ['documents.id', { constraint: 'id', message: 'A document with this _id already exists' }],
  ['documents.slug', { constraint: 'slug', message: 'The slug is already in use in this locale and mode' }],
  ['user_logins.username', { constraint: 'username', message: 'The username is already in use' }],
  ['user_logins.email', { constraint: 'email', message: 'The email is already in use' }],
  ['bearer_tokens.token', { constraint: 'id', message: 'The token already exists' }],
  ['attachments.id', { constraint: 'id', message: 'An attachment with this _id already exists' }],
  ['api_keys.id', { constraint: 'id', message: 'An API key with this id already exists' }],
  ['api_keys.digest', { constraint: 'id', message: 'The API key already exists' }],
]);

/**
 * Turns a SQLite unique-constraint failure into a ConflictError naming the constraint
 * (`id`, `slug`, `username` or `email`); returns any other error unchanged.
 */
export function translateSqliteError(error: unknown): unknown {
  if (!isUniqueViolation(error)) return error;
  // better-sqlite3 reports e.g. "UNIQUE constraint failed: documents.locale, documents.mode, documents.slug".
  const columns = error.message.replace(/^.*constraint failed:\s*/, '').split(/,\s*/);
  for (const column of columns) {
    const conflict = conflictsByColumn.get(column);
    if (conflict) return new ConflictError(conflict.message, { constraint: conflict.constraint });
  }
  return error;
}

// The failures that are not the request's but the file's, for now: another process holds the
// write lock past the busy timeout (SQLITE_BUSY), a table is locked (SQLITE_LOCKED), the disk is
// full (SQLITE_FULL) or a read or write of the file failed (SQLITE_IOERR_*). Each extended code
// begins with its primary one.
const unavailableCodes = ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_FULL', 'SQLITE_IOERR'];

/** `error` as a StoreUnavailableError (503) when the file failed for now, not the request; any other unchanged. */
export function unavailableIfTransient(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !unavailableCodes.some((transient) => code.startsWith(transient))) return error;
  const message = code.startsWith('SQLITE_BUSY')
    ? 'The database file is locked by another process; try again shortly.'
    : 'The database file cannot be written or read for now; try again shortly.';
  return new StoreUnavailableError(message, { cause: error });
}

function isUniqueViolation(error: unknown): error is Error & { code: string } {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
