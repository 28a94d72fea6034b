import { randomBytes, createHash } from 'node:crypto';
import type { Principal, Role } from '../core/principal.js';
import { anonymous, roles, userTypeName } from '../core/principal.js';
import { audit, type RequestOrigin } from '../core/audit.js';
import type { StorageAdapter, UserLogin } from '../storage/storage-adapter.js';
import { ForbiddenError, InvalidRequestError, NotFoundError, RetryLaterError, SecondFactorError } from '../errors/app-error.js';
import type { Verification } from './passwords.js';
import type { LoginAttempt, LoginThrottle } from './login-throttle.js';
import { readSecondFactor, type AccountSecurity, type SecondFactor } from './account-security.js';

/** How long a bearer token or a session lasts: 14 days, like the original's. */
export const credentialLifetimeSeconds = 14 * 24 * 3600;
const lifetimeMs = credentialLifetimeSeconds * 1000;

/**
 * A session used after half its life is extended to a whole one again, so someone who works in
 * the admin every week stays signed in, while a session left alone still ends 14 days after its
 * last renewal. Half a life between renewals makes it one write a week, not one per request.
 */
const renewalDueMs = lifetimeMs / 2;

function expiryFromNow(): string {
  return new Date(Date.now() + lifetimeMs).toISOString();
}

function isExpired(expiresAt: string): boolean {
  return expiresAt < new Date().toISOString();
}

function isRenewalDue(expiresAt: string): boolean {
  return Date.parse(expiresAt) - Date.now() < lifetimeMs - renewalDueMs;
}

/** How a user proves who they are after logging in: a bearer token, or a session id in a cookie. */
export type CredentialKind = 'bearer' | 'session';

/** A credential presented with a request: its kind and the secret itself. */
export interface Credential {
  readonly kind: CredentialKind;
  readonly secret: string;
}

/**
 * Credentials are stored as their SHA-256 digest, so a copy of the database holds no usable one.
 * Session ids share the token table under a separate digest, so that a session id never works
 * as a bearer token (which would skip the CSRF check) nor a bearer token as a session cookie.
 */
function credentialDigest({ kind, secret }: Credential): string {
  const input = kind === 'bearer' ? secret : `session\u0000${secret}`;
  return createHash('sha256').update(input, 'utf8').digest('hex');
}

/**
 * The CSRF token of a session: derived from the session id, so it needs no storage and dies with
 * the session, and one-way, so a script that reads it (it sits in a readable cookie) cannot
 * recover the session id.
 */
export function csrfTokenFor(sessionId: string): string {
  return createHash('sha256').update(`csrf\u0000${sessionId}`, 'utf8').digest('base64url');
}

/** A new session: the id goes into the HttpOnly cookie, the CSRF token to the page. */
export interface StartedSession {
  readonly sessionId: string;
  readonly csrfToken: string;
}

/** A session a request came with that is still valid. */
export interface ResumedSession {
  readonly principal: Principal;
  /** More than half of its life is over: `renewSession` extends it. */
  readonly renewalDue: boolean;
}

/** Where a login comes from: the client's address (the throttle counts by it) and the request's id. */
export interface LoginClient {
  readonly address: string;
  readonly requestId?: string | null;
}

function originOfClient(client: LoginClient): RequestOrigin {
  return { address: client.address, requestId: client.requestId ?? null };
}

/** Who a successful login is, for its audit record (the role is read later, with each request). */
function loginPrincipal(login: UserLogin): Principal {
  return { kind: 'user', role: null, userId: login.userId, title: null, username: login.username };
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
  /** User fields `whoami` adds to the original's four (`login.whoamiFields`, checked at start). */
  readonly whoamiFields?: readonly string[];
  /** Second factors: TOTP codes and recovery codes at login. */
  readonly accountSecurity?: AccountSecurity;
}

/** What the original's `whoami` answers of a user, when the user has them. */
const whoamiBaseFields = ['_id', 'username', 'title', 'email'];

/** Bearer tokens and sessions for users: log in with username (or email) and password, log out, who am I. */
export class TokenService {
  readonly #storage: StorageAdapter;
  readonly #passwords: PasswordVerifier;
  readonly #throttle: LoginThrottle;
  readonly #whoamiFields: readonly string[];
  readonly #accountSecurity: AccountSecurity | undefined;

  constructor(deps: TokenServiceDeps) {
    this.#storage = deps.storage;
    this.#passwords = deps.passwords;
    this.#throttle = deps.throttle;
    this.#whoamiFields = [...new Set([...whoamiBaseFields, ...(deps.whoamiFields ?? [])])];
    this.#accountSecurity = deps.accountSecurity;
  }

  /** A bearer token for valid credentials (`#verifiedLogin`). */
  async login(body: Record<string, unknown>, client: LoginClient): Promise<{ token: string }> {
    const login = await this.#verifiedLogin(body, client);
    const token = randomBytes(24).toString('base64url');
    await this.#store({ kind: 'bearer', secret: token }, login, client);
    return { token };
  }

  /** A session for valid credentials (`#verifiedLogin`). */
  async startSession(body: Record<string, unknown>, client: LoginClient): Promise<StartedSession> {
    const login = await this.#verifiedLogin(body, client);
    const sessionId = randomBytes(32).toString('base64url');
    await this.#store({ kind: 'session', secret: sessionId }, login, client);
    return { sessionId, csrfToken: csrfTokenFor(sessionId) };
  }

  /** Stores the credential of a login, and its audit record with it. */
  async #store(credential: Credential, login: UserLogin, client: LoginClient): Promise<void> {
    const { userId } = login;
    const by = { principal: loginPrincipal(login), origin: originOfClient(client) };
    await this.#storage.transaction(async (tx) => {
      await tx.tokens.put({ token: credentialDigest(credential), userId, expiresAt: expiryFromNow() });
      await audit(tx, by, { action: 'login', ids: [userId], detail: { credential: credential.kind } });
    });
  }

  /**
   * The login of valid credentials. The attempt is counted by the throttle before any password
   * is checked, and refused (429) while the account or the client address is locked. An unknown,
   * disabled or archived user costs one password verification like any other, so the time taken
   * tells nothing.
   */
  async #verifiedLogin(body: Record<string, unknown>, client: LoginClient): Promise<UserLogin> {
    const { username, password } = body;
    if (typeof username !== 'string' || typeof password !== 'string' || !username || !password) {
      throw new InvalidRequestError('Both the username and the password are required.');
    }
    // A malformed code is refused before anything is counted or checked.
    const factor = readSecondFactor(body);
    const login = await this.#storage.logins.findByName(username);
    // Attempts count against the user the name reached (by username or email alike), or the name.
    const attempt: LoginAttempt = { account: login ? `user:${login.userId}` : `name:${username}`, address: client.address };
    await this.#throttle.takeLogin(attempt);
    let verdict: Verification;
    let role: string | null = null;
    try {
      ({ verdict, role } = await this.#check(login, password));
    } catch (error) {
      await this.#throttle.loginUnchecked(attempt);
      throw error;
    }
    if (login === null || !verdict.valid) {
      await this.#recordFailure(login, client);
      throw new InvalidRequestError('Your credentials are incorrect, or there is no such user');
    }
    await this.#confirmSecondStep(login, role, factor, client, attempt);
    await this.#throttle.loginSucceeded(attempt);
    if (verdict.outdated) await this.#upgradeHash(login, password);
    return login;
  }

  /**
   * The second step of a login whose password was right (`AccountSecurity.confirmLogin`): a
   * wrong code is a failed login like a wrong password, counted and recorded; a login that was
   * only told a code is needed is uncounted, as no code was guessed.
   */
  async #confirmSecondStep(login: UserLogin, role: string | null, factor: SecondFactor, client: LoginClient, attempt: LoginAttempt): Promise<void> {
    if (this.#accountSecurity === undefined) return;
    let step;
    try {
      step = await this.#accountSecurity.confirmLogin(login, role ?? 'guest', factor, originOfClient(client));
    } catch (error) {
      if (error instanceof SecondFactorError) await (error.code === 'totp-required' ? this.#throttle.loginUnchecked(attempt) : this.#throttle.loginSucceeded(attempt));
      throw error;
    }
    if (step.outcome === 'wrong') {
      await this.#recordFailure(login, client);
      throw new InvalidRequestError('The one-time code is incorrect, or it was used already');
    }
  }

  /**
   * A failed login has no transaction of its own to join: its record gets a small one. It names
   * the user the name reached, never the name typed (it may be a password typed in the wrong field).
   */
  async #recordFailure(login: UserLogin | null, client: LoginClient): Promise<void> {
    const by = { principal: anonymous, origin: originOfClient(client) };
    await this.#storage.transaction((tx) => audit(tx, by, { action: 'login.failed', ids: login ? [login.userId] : [] }));
  }

  /** The password checked against the login's hash, or against none (never valid) when its user may not log in. */
  async #check(login: UserLogin | null, password: string): Promise<{ verdict: Verification; role: string | null }> {
    const user = login ? await this.#user(login.userId) : null;
    const usable = login !== null && user !== null && user.disabled !== true && user.archived !== true;
    const verdict = await this.#passwords.verify(password, usable ? login.passwordHash : null);
    return { verdict, role: typeof user?.role === 'string' ? user.role : null };
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
    // A password changed meanwhile stays as it is; the login is part of its user's document,
    // which every write to it locks.
    await this.#storage.transaction({ lock: [login.userId] }, async (tx) => {
      const current = await tx.logins.get(login.userId);
      if (current?.passwordHash === login.passwordHash) await tx.logins.put({ ...current, passwordHash });
    });
  }

  /** Ends the bearer token or session the request came with. */
  async logout(principal: Principal, credential: Credential | null, origin?: RequestOrigin): Promise<void> {
    if (principal.kind !== 'user' || credential === null) throw new ForbiddenError('You were not logged in.');
    await this.#storage.transaction(async (tx) => {
      await tx.tokens.remove(credentialDigest(credential));
      await audit(tx, { principal, origin }, { action: 'logout', ids: principal.userId ? [principal.userId] : [] });
    });
  }

  /**
   * Who is asking, as the original answers it: of the user document, `_id`, `username`, `title`,
   * `email` and the `whoamiFields`, those it has. An API key stands for the original's synthetic
   * `{ title: "System Task", role }` user. A session user also gets the CSRF token its writes
   * must carry. Anonymous callers (and users gone since the request was authenticated): 404.
   */
  async whoami(principal: Principal, credential: Credential | null): Promise<Record<string, unknown>> {
    const who = await this.#whoamiSource(principal);
    if (who === null) throw new NotFoundError();
    const fields = Object.fromEntries(this.#whoamiFields.filter((name) => who[name] !== undefined).map((name) => [name, who[name]]));
    // The original's shape: whether TOTP is on is GET /login/totp's to tell.
    return credential?.kind === 'session' ? { ...fields, csrfToken: csrfTokenFor(credential.secret) } : fields;
  }

  async #whoamiSource(principal: Principal): Promise<Readonly<Record<string, unknown>> | null> {
    if (principal.kind === 'apiKey') return { title: principal.title, role: principal.role };
    if (principal.kind !== 'user' || principal.userId === null) return null;
    return this.#user(principal.userId);
  }

  /** The principal a credential stands for, or null when it is unknown, expired or its user is gone. */
  async principalFor(credential: Credential): Promise<Principal | null> {
    return (await this.#lookup(credential))?.principal ?? null;
  }

  /** The session of a session id, or null as for `principalFor`; says whether it is due for renewal. */
  async resumeSession(sessionId: string): Promise<ResumedSession | null> {
    const found = await this.#lookup({ kind: 'session', secret: sessionId });
    return found && { principal: found.principal, renewalDue: isRenewalDue(found.expiresAt) };
  }

  /**
   * Extends a session due for renewal to a whole life from now. Null when it has ended, or when
   * a request that came at the same time renewed it first: the check and the write are one
   * transaction, so that is one write whatever arrives at once.
   */
  async renewSession(sessionId: string): Promise<StartedSession | null> {
    const token = credentialDigest({ kind: 'session', secret: sessionId });
    const renewed = await this.#storage.transaction(async (tx) => {
      const stored = await tx.tokens.get(token);
      if (!stored || isExpired(stored.expiresAt) || !isRenewalDue(stored.expiresAt)) return false;
      await tx.tokens.put({ ...stored, expiresAt: expiryFromNow() });
      return true;
    });
    return renewed ? { sessionId, csrfToken: csrfTokenFor(sessionId) } : null;
  }

  async #lookup(credential: Credential): Promise<{ principal: Principal; expiresAt: string } | null> {
    const stored = await this.#storage.tokens.get(credentialDigest(credential));
    if (!stored || isExpired(stored.expiresAt)) return null;
    const user = await this.#user(stored.userId);
    if (!user || user.disabled === true || user.archived === true) return null;
    const role = (roles as readonly string[]).includes(String(user.role)) ? (user.role as Role) : 'guest';
    const principal: Principal = { kind: 'user', role, userId: user._id, title: String(user.title ?? ''), username: String(user.username ?? '') };
    return { principal, expiresAt: stored.expiresAt };
  }

  async #user(userId: string) {
    const [user] = await this.#storage.documents.find({ type: userTypeName, ids: [userId], limit: 1 });
    return user ?? null;
  }
}
