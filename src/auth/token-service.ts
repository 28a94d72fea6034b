import { randomBytes, createHash } from 'node:crypto';
import type { Principal, Role } from '../core/principal.js';
import { roles } from '../core/principal.js';
import type { StorageAdapter, UserLogin } from '../storage/storage-adapter.js';
import { ForbiddenError, InvalidRequestError, NotFoundError, RetryLaterError } from '../errors/app-error.js';
import type { Verification } from './passwords.js';
import type { LoginAttempt, LoginThrottle } from './login-throttle.js';
import { userTypeName } from '../content/documents/user-logins.js';

const lifetimeMs = 14 * 24 * 3600 * 1000;

/** Tokens are stored as their SHA-256 digest, so a copy of the database holds no usable token. */
function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** What logging in needs of the password hasher (`ScryptPasswordHasher`). */
export interface PasswordVerifier {
  /** One full verification whatever `encoded` is, so that a missing hash costs what a real one does. */
  verify(plain: string, encoded: string | null): Promise<Verification>;
  hash(plain: string): Promise<string>;
}

export interface TokenServiceDeps {
  readonly storage: StorageAdapter;
  readonly passwords: PasswordVerifier;
  readonly throttle: LoginThrottle;
}

/** Bearer tokens for users: log in with username (or email) and password, log out, who am I. */
export class TokenService {
  readonly #storage: StorageAdapter;
  readonly #passwords: PasswordVerifier;
  readonly #throttle: LoginThrottle;

  constructor(deps: TokenServiceDeps) {
    this.#storage = deps.storage;
    this.#passwords = deps.passwords;
    this.#throttle = deps.throttle;
  }

  /**
   * A token for valid credentials. While the account or the client address is locked by the
   * throttle, refused (429) before any password is checked. An unknown, disabled or archived
   * user costs one password verification like any other, so the time taken tells nothing.
   */
  async login(body: Record<string, unknown>, client: { address: string }): Promise<{ token: string }> {
    const { username, password } = body;
    if (typeof username !== 'string' || typeof password !== 'string' || !username || !password) {
      throw new InvalidRequestError('Both the username and the password are required.');
    }
    const login = await this.#storage.logins.findByName(username);
    // Failures count against the user the name reached (by username or email alike), or the name.
    const attempt: LoginAttempt = { account: login ? `user:${login.userId}` : `name:${username}`, address: client.address };
    await this.#throttle.refuseIfLocked(attempt);
    const user = login ? await this.#user(login.userId) : null;
    const usable = login !== null && user !== null && user.disabled !== true && user.archived !== true;
    const { valid, outdated } = await this.#passwords.verify(password, usable ? login.passwordHash : null);
    if (!usable || !valid) {
      await this.#throttle.failed(attempt);
      throw new InvalidRequestError('Your credentials are incorrect, or there is no such user');
    }
    await this.#throttle.succeeded(attempt);
    if (outdated) await this.#upgradeHash(login, password);
    const token = randomBytes(24).toString('base64url');
    await this.#storage.transaction((tx) =>
      tx.tokens.put({ token: tokenDigest(token), userId: login.userId, expiresAt: new Date(Date.now() + lifetimeMs).toISOString() }),
    );
    return { token };
  }

  /** Stores a hash with the current parameters while the password is at hand; skipped when the hasher is busy. */
  async #upgradeHash(login: UserLogin, password: string): Promise<void> {
    let passwordHash: string;
    try {
      passwordHash = await this.#passwords.hash(password);
    } catch (error) {
      if (error instanceof RetryLaterError) return;
      throw error;
    }
    await this.#storage.transaction(async (tx) => {
      // A password changed meanwhile stays as it is.
      const current = await tx.logins.get(login.userId);
      if (current?.passwordHash === login.passwordHash) await tx.logins.put({ ...current, passwordHash });
    });
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
