import { createHash, randomBytes } from 'node:crypto';
import type { Principal, Role } from '../core/principal.js';
import { audit, type RequestOrigin } from '../core/audit.js';
import type { AccountCodePurpose, StorageAdapter, StorageSession, UserLogin } from '../storage/storage-adapter.js';
import { ConflictError, ForbiddenError, InvalidRequestError, SecondFactorError, UnauthorizedError } from '../errors/app-error.js';
import { matchTotp, newTotpSecret, otpauthUrl } from './totp.js';
import type { LoginAttempt, LoginThrottle } from './login-throttle.js';
import type { Verification } from './passwords.js';

/** How many recovery codes enabling TOTP answers, each good for one login. */
export const recoveryCodeCount = 10;

/** Recovery codes as people copy them: 10 letters and digits without look-alikes, in two groups. */
const codeAlphabet = 'abcdefghjkmnpqrstuvwxyz23456789';

function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  const chars = [...bytes].map((byte) => codeAlphabet[byte % codeAlphabet.length]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** Whatever way it was typed: case, spaces and dashes do not matter. */
function normalRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

/** Codes are kept as digests; a recovery code's includes its user, so that equal codes of two users never collide. */
export function codeDigest(purpose: AccountCodePurpose, code: string, userId = ''): string {
  return createHash('sha256').update(`${purpose}\u0000${userId}\u0000${code}`, 'utf8').digest('base64url');
}

/** A random one-time token for links and setup: 32 bytes, base64url. */
export function newOneTimeToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What a login's second step decided (`AccountSecurity.confirmLogin`). */
export type SecondStep = { readonly outcome: 'ok'; readonly recovery: boolean } | { readonly outcome: 'wrong' };

/** The second factor a login body brings, checked for its shape (`readSecondFactor`). */
export interface SecondFactor {
  readonly code?: string;
  readonly recoveryCode?: string;
}

/** `totp` and `recoveryCode` of a login body: strings of at most 64 characters, or absent. Read before any attempt is counted. */
export function readSecondFactor(body: Record<string, unknown>): SecondFactor {
  return { code: optionalString(body, 'totp'), recoveryCode: optionalString(body, 'recoveryCode') };
}

/** Who asks to set up TOTP: a signed-in user, or the holder of a setup token from a login. */
interface TotpActor {
  readonly userId: string;
  readonly setupTokenDigest: string | null;
}

/** The roles that must use TOTP and the issuer apps show (`login.totp`, checked by config). */
export interface TotpSettings {
  readonly requiredRoles: readonly string[];
  readonly issuer: string;
}

export interface AccountSecurityDeps {
  readonly storage: StorageAdapter;
  /** The password hasher (`ScryptPasswordHasher`): disabling TOTP may take the password. */
  readonly passwords: { verify(plain: string, encoded: string | null): Promise<Verification> };
  readonly throttle: LoginThrottle;
  readonly totp: TotpSettings;
  /** How long a setup token lasts (`limits.totpSetupLifetimeSeconds`). */
  readonly setupLifetimeSeconds: number;
}

const maxCodeLength = 64;

function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || value.length > maxCodeLength) throw new InvalidRequestError(`${key} must be a string of at most ${maxCodeLength} characters.`);
  return value;
}

/**
 * TOTP second factors and their recovery codes. A login whose password was right goes through
 * `confirmLogin`: an account with TOTP on needs `totp` (or `recoveryCode`); a user of a role in
 * `login.totp.requiredRoles` without TOTP gets `totp-setup-required` and a setup token good for
 * the setup and enable routes only, never a credential.
 */
export class AccountSecurity {
  readonly #deps: AccountSecurityDeps;

  constructor(deps: AccountSecurityDeps) {
    this.#deps = deps;
  }

  /**
   * The second step of a login whose password was right. Throws `totp-required` when a code is
   * needed but none came, `totp-setup-required` when the role needs TOTP the user has not set
   * up; answers `wrong` for a wrong code, which the caller counts as a failed login.
   */
  async confirmLogin(login: UserLogin, role: string, factor: SecondFactor, origin: RequestOrigin): Promise<SecondStep> {
    const { code, recoveryCode } = factor;
    const { storage } = this.#deps;
    const totp = await storage.accountSecurity.getTotp(login.userId);
    if (totp === null || totp.enabledAt === null) {
      if (!this.#required(role)) return { outcome: 'ok', recovery: false };
      const setupToken = await this.#newSetupToken(login.userId);
      throw new SecondFactorError('totp-setup-required', 'Your role must sign in with a one-time code: set up TOTP with the setupToken first.', {
        setupToken,
        expiresIn: this.#deps.setupLifetimeSeconds,
      });
    }
    if (code === undefined && recoveryCode === undefined) {
      throw new SecondFactorError('totp-required', 'Enter the 6-digit code of your authenticator app (totp), or a recovery code (recoveryCode).');
    }
    if (code !== undefined) {
      const step = matchTotp(totp.secret, code, Date.now(), totp.lastStep);
      // The step moves up in the store, so that a code replayed side by side signs in once.
      const taken = step !== null && (await storage.accountSecurity.advanceTotpStep(login.userId, step));
      return taken ? { outcome: 'ok', recovery: false } : { outcome: 'wrong' };
    }
    const digest = codeDigest('recovery', normalRecoveryCode(recoveryCode!), login.userId);
    const used = await storage.transaction(async (tx) => {
      if (!(await tx.accountSecurity.takeCode(digest, new Date().toISOString()))) return false;
      await audit(tx, { principal: principalOf(login), origin }, { action: 'login.recovery', ids: [login.userId] });
      return true;
    });
    return used ? { outcome: 'ok', recovery: true } : { outcome: 'wrong' };
  }

  /** The user a request acts for: the signed-in user, or the holder of a live setup token. */
  async #actor(principal: Principal, body: Record<string, unknown>): Promise<TotpActor> {
    const setupToken = body.setupToken;
    if (setupToken !== undefined) {
      if (typeof setupToken !== 'string' || setupToken.length > 200) throw new InvalidRequestError('setupToken must be a string.');
      const digest = codeDigest('totp-setup', setupToken);
      const stored = await this.#deps.storage.accountSecurity.findCode(digest);
      const live = stored !== null && stored.purpose === 'totp-setup' && stored.usedAt === null && stored.expiresAt !== null && stored.expiresAt > new Date().toISOString();
      if (!live) throw new UnauthorizedError('The setup token is unknown, used or expired: sign in again.');
      return { userId: stored.userId, setupTokenDigest: digest };
    }
    if (principal.kind !== 'user' || principal.userId === null) throw new UnauthorizedError('Sign in first, or send the setupToken your login answered.');
    return { userId: principal.userId, setupTokenDigest: null };
  }

  /** A new pending secret, replacing any pending one; 409 while TOTP is on (disable it first). */
  async setup(principal: Principal, body: Record<string, unknown>): Promise<{ secret: string; otpauthUrl: string }> {
    const actor = await this.#actor(principal, body);
    const { storage } = this.#deps;
    const login = await storage.logins.get(actor.userId);
    if (login === null) throw new UnauthorizedError('This account cannot sign in.');
    const secret = newTotpSecret();
    await storage.transaction({ lock: [actor.userId] }, async (tx) => {
      const current = await tx.accountSecurity.getTotp(actor.userId);
      if (current?.enabledAt != null) throw new ConflictError('TOTP is already on for this account: disable it first to set up a new secret.');
      await tx.accountSecurity.putTotp({ userId: actor.userId, secret, enabledAt: null, lastStep: -1 });
    });
    const account = login.email ?? login.username;
    return { secret, otpauthUrl: otpauthUrl({ issuer: this.#deps.totp.issuer, account, secret }) };
  }

  /** Confirms the pending secret with a code from it: TOTP on, and 10 new recovery codes answered once. */
  async enable(principal: Principal, body: Record<string, unknown>, origin: RequestOrigin): Promise<{ recoveryCodes: string[] }> {
    const actor = await this.#actor(principal, body);
    const code = optionalString(body, 'code');
    if (code === undefined) throw new InvalidRequestError('code (the 6-digit code of your authenticator app) is required.');
    const recoveryCodes = Array.from({ length: recoveryCodeCount }, newRecoveryCode);
    const now = new Date().toISOString();
    await this.#deps.storage.transaction({ lock: [actor.userId] }, async (tx) => {
      const pending = await tx.accountSecurity.getTotp(actor.userId);
      if (pending === null) throw new ConflictError('Set TOTP up first (POST /api/v1/@cms/login/totp/setup).');
      if (pending.enabledAt !== null) throw new ConflictError('TOTP is already on for this account.');
      const step = matchTotp(pending.secret, code, Date.now());
      if (step === null) throw new InvalidRequestError('The code is incorrect: check the time of your device, and enter the current code.');
      if (actor.setupTokenDigest !== null && !(await tx.accountSecurity.takeCode(actor.setupTokenDigest, now))) {
        throw new UnauthorizedError('The setup token is unknown, used or expired: sign in again.');
      }
      await tx.accountSecurity.putTotp({ ...pending, enabledAt: now, lastStep: step });
      await replaceRecoveryCodes(tx, actor.userId, recoveryCodes, now);
      await audit(tx, { principal: await actorPrincipal(tx, principal, actor.userId), origin }, { action: 'login.totp.enable', ids: [actor.userId] });
    });
    return { recoveryCodes };
  }

  /**
   * Turns TOTP off with a current code or the password; counted by the login throttle like a
   * login, so that a stolen session cannot guess either. Refused for a role that must use TOTP.
   */
  async disable(principal: Principal, body: Record<string, unknown>, origin: RequestOrigin & { readonly address: string }): Promise<void> {
    if (principal.kind !== 'user' || principal.userId === null) throw new UnauthorizedError('Sign in first.');
    const { userId } = principal;
    if (this.#required(principal.role)) throw new ForbiddenError('Your role must sign in with TOTP: it cannot be turned off.');
    const code = optionalString(body, 'code');
    const password = body.password;
    if (password !== undefined && (typeof password !== 'string' || password.length > 1024)) throw new InvalidRequestError('password must be a string.');
    if (code === undefined && !password) throw new InvalidRequestError('Send the current code (code) or your password (password).');
    const { storage, throttle, passwords } = this.#deps;
    const totp = await storage.accountSecurity.getTotp(userId);
    if (totp?.enabledAt == null) throw new ConflictError('TOTP is not on for this account.');
    const attempt: LoginAttempt = { account: `user:${userId}`, address: origin.address };
    await throttle.takeLogin(attempt);
    let right: boolean;
    if (code !== undefined) {
      const step = matchTotp(totp.secret, code, Date.now(), totp.lastStep);
      right = step !== null && (await storage.accountSecurity.advanceTotpStep(userId, step));
    } else {
      const login = await storage.logins.get(userId);
      right = (await passwords.verify(password as string, login?.passwordHash ?? null)).valid;
    }
    if (!right) {
      await storage.transaction((tx) => audit(tx, { principal, origin }, { action: 'login.failed', ids: [userId] }));
      throw new InvalidRequestError('The code or password is incorrect.');
    }
    await throttle.loginSucceeded(attempt);
    await storage.transaction({ lock: [userId] }, async (tx) => {
      await tx.accountSecurity.removeTotp(userId);
      await tx.accountSecurity.removeCodes(userId, 'recovery');
      await audit(tx, { principal, origin }, { action: 'login.totp.disable', ids: [userId] });
    });
  }

  /** What the account page shows: TOTP on, pending, and the recovery codes left. */
  async status(principal: Principal): Promise<{ enabled: boolean; pending: boolean; required: boolean; recoveryCodesLeft: number }> {
    if (principal.kind !== 'user' || principal.userId === null) throw new UnauthorizedError('Sign in first.');
    const { accountSecurity } = this.#deps.storage;
    const totp = await accountSecurity.getTotp(principal.userId);
    const left = totp?.enabledAt != null ? await accountSecurity.countLiveCodes(principal.userId, 'recovery', new Date().toISOString()) : 0;
    return { enabled: totp?.enabledAt != null, pending: totp != null && totp.enabledAt === null, required: this.#required(principal.role), recoveryCodesLeft: left };
  }

  #required(role: string | null): boolean {
    return role !== null && (this.#deps.totp.requiredRoles as readonly string[]).includes(role);
  }

  async #newSetupToken(userId: string): Promise<string> {
    const token = newOneTimeToken();
    const now = Date.now();
    await this.#deps.storage.accountSecurity.insertCode({
      digest: codeDigest('totp-setup', token),
      userId,
      purpose: 'totp-setup',
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.#deps.setupLifetimeSeconds * 1000).toISOString(),
      usedAt: null,
    });
    return token;
  }
}

async function replaceRecoveryCodes(tx: StorageSession, userId: string, codes: readonly string[], now: string): Promise<void> {
  await tx.accountSecurity.removeCodes(userId, 'recovery');
  for (const code of codes) {
    await tx.accountSecurity.insertCode({ digest: codeDigest('recovery', normalRecoveryCode(code), userId), userId, purpose: 'recovery', createdAt: now, expiresAt: null, usedAt: null });
  }
}

function principalOf(login: UserLogin): Principal {
  return { kind: 'user', role: null, userId: login.userId, title: null, username: login.username };
}

/** The audit actor of an enable: the signed-in user, or the setup token's user. */
async function actorPrincipal(tx: StorageSession, principal: Principal, userId: string): Promise<Principal> {
  if (principal.kind === 'user' && principal.userId === userId) return principal;
  const login = await tx.logins.get(userId);
  return { kind: 'user', role: null as Role | null, userId, title: null, username: login?.username ?? null };
}
