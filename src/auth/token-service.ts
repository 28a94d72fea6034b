import { randomBytes, createHash } from 'node:crypto';
import type { Principal, Role } from '../core/principal.js';
import { roles } from '../core/principal.js';
import type { StorageAdapter } from '../storage/storage-adapter.js';
import { ForbiddenError, InvalidRequestError, NotFoundError } from '../errors/app-error.js';
import { verifyPassword } from './passwords.js';
import { userTypeName } from '../content/documents/user-logins.js';

const lifetimeMs = 14 * 24 * 3600 * 1000;

/** Tokens are stored as their SHA-256 digest, so a copy of the database holds no usable token. */
function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Bearer tokens for users: log in with username (or email) and password, log out, who am I. */
export class TokenService {
  readonly #storage: StorageAdapter;

  constructor(storage: StorageAdapter) {
    this.#storage = storage;
  }

  async login(body: Record<string, unknown>): Promise<{ token: string }> {
    const { username, password } = body;
    if (typeof username !== 'string' || typeof password !== 'string' || !username || !password) {
      throw new InvalidRequestError('Both the username and the password are required.');
    }
    const login = await this.#storage.logins.findByName(username);
    const user = login ? await this.#user(login.userId) : null;
    const valid = login ? await verifyPassword(password, login.passwordHash) : false;
    if (!login || !user || !valid || user.disabled === true || user.archived === true) {
      throw new InvalidRequestError('Your credentials are incorrect, or there is no such user');
    }
    const token = randomBytes(24).toString('base64url');
    await this.#storage.transaction((tx) =>
      tx.tokens.put({ token: tokenDigest(token), userId: login.userId, expiresAt: new Date(Date.now() + lifetimeMs).toISOString() }),
    );
    return { token };
  }

  async logout(principal: Principal, token: string | null): Promise<void> {
    if (principal.kind !== 'user' || token === null) throw new ForbiddenError('You were not logged in.');
    await this.#storage.transaction((tx) => tx.tokens.remove(tokenDigest(token)));
  }

  whoami(principal: Principal): Record<string, unknown> {
    if (principal.kind !== 'user') throw new NotFoundError();
    return { _id: principal.userId, username: principal.username, title: principal.title, role: principal.role };
  }

  /** The principal a bearer token stands for, or null when it is unknown, expired or its user is gone. */
  async principalFor(token: string): Promise<Principal | null> {
    const stored = await this.#storage.tokens.get(tokenDigest(token));
    if (!stored || stored.expiresAt < new Date().toISOString()) return null;
    const user = await this.#user(stored.userId);
    if (!user || user.disabled === true || user.archived === true) return null;
    const role = (roles as readonly string[]).includes(String(user.role)) ? (user.role as Role) : 'guest';
    return { kind: 'user', role, userId: user._id, title: String(user.title ?? ''), username: String(user.username ?? '') };
  }

  async #user(userId: string) {
    const [user] = await this.#storage.documents.find({ type: userTypeName, ids: [userId], limit: 1 });
    return user ?? null;
  }
}
