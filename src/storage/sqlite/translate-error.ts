import { ConflictError } from '../../errors/app-error.js';

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

function isUniqueViolation(error: unknown): error is Error & { code: string } {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
