/** The piece type whose documents are the users (a principal's `userId` names one): auth, content and the CLI share it. */
export const userTypeName = '@cms/user';

export const roles = ['guest', 'contributor', 'editor', 'admin'] as const;
export type Role = (typeof roles)[number];

export function isRole(value: unknown): value is Role {
  return (roles as readonly unknown[]).includes(value);
}

/** Who is asking. Anonymous callers have no role. */
export interface Principal {
  readonly kind: 'anonymous' | 'apiKey' | 'user';
  readonly role: Role | null;
  /** The user document id for a logged-in user; null for API keys and anonymous callers. */
  readonly userId: string | null;
  readonly title: string | null;
  readonly username: string | null;
  /**
   * A stored API key's id (as `cms apikey list` shows it), for the audit trail; absent for a
   * configured key, which has no id, and for every other caller.
   */
  readonly keyId?: string;
}

export const anonymous: Principal = Object.freeze({
  kind: 'anonymous',
  role: null,
  userId: null,
  title: null,
  username: null,
});

export function roleRank(role: Role | null): number {
  return role === null ? -1 : roles.indexOf(role);
}
