import { ConflictError } from '../../errors/app-error.js';

interface Conflict {
  readonly constraint: 'id' | 'slug' | 'username' | 'email';
  readonly message: string;
}

/** The conflicts the stores report, by the name of the PostgreSQL constraint behind each. */
export const conflicts = {
  documents_id: { constraint: 'id', message: 'A document with this _id already exists' },
  documents_slug: { constraint: 'slug', message: 'The slug is already in use in this locale and mode' },
  user_logins_username: { constraint: 'username', message: 'The username is already in use' },
  user_logins_email: { constraint: 'email', message: 'The email is already in use' },
  bearer_tokens_token: { constraint: 'id', message: 'The token already exists' },
  attachments_id: { constraint: 'id', message: 'An attachment with this _id already exists' },
  api_keys_id: { constraint: 'id', message: 'An API key with this id already exists' },
  api_keys_digest: { constraint: 'id', message: 'The API key already exists' },
} as const satisfies Record<string, Conflict>;

/** The ConflictError for one of `conflicts`. */
export function conflictError(name: keyof typeof conflicts): ConflictError {
  const { constraint, message } = conflicts[name];
  return new ConflictError(message, { constraint });
}

/**
 * Turns a PostgreSQL unique violation (SQLSTATE 23505) into a ConflictError naming the
 * constraint (`id`, `slug`, `username` or `email`); returns any other error unchanged.
 */
export function translatePostgresError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  if (code !== '23505' || typeof constraint !== 'string' || !Object.hasOwn(conflicts, constraint)) return error;
  return conflictError(constraint as keyof typeof conflicts);
}

/** Runs a write, translating a unique violation. */
export async function translatingErrors<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw translatePostgresError(error);
  }
}
