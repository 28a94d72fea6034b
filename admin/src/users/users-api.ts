import { ApiError } from '../api/client';
import { insertPiece, listPieces, patchPiece } from '../api/pieces';
import type { ListAnswer, PieceDocument, Role } from '../api/types';

/**
 * Users are `@cms/user` pieces: not localized (bare ids, one version, so every write is final) and
 * admin-only. The password is write-only: it never comes back, and an empty one keeps the old.
 */
export const userType = '@cms/user';

export interface UserDocument extends PieceDocument {
  username: string;
  email: string;
  role: Role;
  disabled: boolean;
}

/** The roles, least to most powerful; each one's name is `users.roles.<role>` in the catalogues. */
export const roles: readonly Role[] = ['guest', 'contributor', 'editor', 'admin'];

export const usersPerPage = 50;

export async function listUsers(locale: string, options: { page: number; search: string }, signal?: AbortSignal) {
  const answer = await listPieces(userType, { locale }, { page: options.page, perPage: usersPerPage, search: options.search.trim() || undefined }, signal);
  return answer as unknown as ListAnswer<UserDocument>;
}

export interface NewUser {
  title: string;
  username: string;
  email: string;
  password: string;
  role: Role;
}

export async function createUser(locale: string, user: NewUser): Promise<UserDocument> {
  return (await insertPiece(userType, { locale }, { ...user })) as UserDocument;
}

export async function updateUser(id: string, changes: Partial<Pick<UserDocument, 'role' | 'disabled'>> | { password: string }): Promise<UserDocument> {
  return (await patchPiece(userType, id, changes)) as UserDocument;
}

/**
 * A refusal's messages by field: validation errors by path, and a taken username or email
 * (409 with `data.constraint`) beside that field.
 */
export function userFieldErrors(error: unknown): Map<string, string> {
  if (!(error instanceof ApiError)) return new Map();
  const errors = new Map(error.fieldErrors);
  const constraint = error.body.data?.constraint;
  if (error.status === 409 && typeof constraint === 'string') errors.set(constraint, error.body.message);
  return errors;
}
