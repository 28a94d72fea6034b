import { createHash } from 'node:crypto';
import { userTypeName, type Principal } from '../core/principal.js';
import { audit, type AuditedBy, type RequestOrigin } from '../core/audit.js';
import type { LoginThrottleStore, StorageAdapter, ThrottleKey } from '../storage/storage-adapter.js';
import { AppError, InvalidRequestError, RetryLaterError } from '../errors/app-error.js';
import type { Mailer } from './mailer.js';
import { codeDigest, newOneTimeToken } from './account-security.js';

/** Who changes a password through a reset link: the link stands for the user, as the first-run code for the operator. */
const resetOperator: Principal = Object.freeze({ kind: 'apiKey', role: 'admin', userId: null, title: 'Password reset', username: null });

/** The one answer of a forgot request, whether the account exists or not. */
export const forgotAnswer = Object.freeze({
  message: 'If an account with this username or email exists and has an email address, a link to reset its password is on its way.',
});

export interface PasswordResetLimits {
  readonly lifetimeSeconds: number;
  readonly perAccount: number;
  readonly perAddress: number;
  readonly periodSeconds: number;
  readonly passwordMinLength: number;
}

export interface PasswordResetDeps {
  readonly storage: StorageAdapter;
  readonly throttle: LoginThrottleStore;
  /** Null when no mail is configured: requests are refused (501), nothing can be sent. */
  readonly mailer: Mailer | null;
  readonly limits: PasswordResetLimits;
  /** The admin's reset screen for a token: `<baseUrl>/admin/reset?token=…`. */
  readonly resetLink: (token: string) => string;
  /** Sets a user's password with the user type's rules (the content layer's, passed in by the composition root); ends every credential of the user. */
  readonly setPassword: (by: AuditedBy, userId: string, password: string) => Promise<void>;
  /** A mail that could not be sent: logged, never told to the client. */
  readonly onMailFailure: (error: unknown) => void;
}

const maxNameLength = 320;

function keyOf(kind: string, value: string): string {
  return createHash('sha256').update(`reset-${kind}\u0000${value}`, 'utf8').digest('base64url');
}

/**
 * Password reset by mail. `forgot` answers the same whatever the name reaches, and sends the mail
 * after the answer, so that neither the body nor the time tells whether an account exists;
 * requests are counted per client address (429 past the limit) and per account (past it, the
 * answer is the same but no mail goes). `reset` takes a token once, within its lifetime.
 */
export class PasswordReset {
  readonly #deps: PasswordResetDeps;

  constructor(deps: PasswordResetDeps) {
    this.#deps = deps;
  }

  get available(): boolean {
    return this.#deps.mailer !== null;
  }

  async forgot(body: Record<string, unknown>, origin: RequestOrigin & { readonly address: string }): Promise<typeof forgotAnswer> {
    const { mailer, storage, limits } = this.#deps;
    if (mailer === null) throw new AppError('unimplemented', 'Password reset by mail is not configured on this server (mail.smtp, mail.from).');
    const name = body.email ?? body.username;
    if (typeof name !== 'string' || name.trim() === '' || name.length > maxNameLength) {
      throw new InvalidRequestError(`email or username is required: a string of at most ${maxNameLength} characters.`);
    }
    const periodMs = limits.periodSeconds * 1000;
    await this.#take([{ key: keyOf('address', origin.address), limit: limits.perAddress, periodMs }]);
    const login = await storage.logins.findByName(name.trim());
    const account: ThrottleKey = { key: keyOf('account', login ? `user:${login.userId}` : `name:${name.trim().toLowerCase()}`), limit: limits.perAccount, periodMs };
    const allowed = (await this.#deps.throttle.take([account], Date.now())) === null;
    // The user is read whatever the name reached, so that an unknown name costs the same reads.
    const [user] = await storage.documents.find({ type: userTypeName, ids: [login?.userId ?? 'no-such-user'], limit: 1 });
    if (!allowed || login === null || !login.email || !user || user.disabled === true || user.archived === true) return forgotAnswer;
    const token = newOneTimeToken();
    const now = Date.now();
    const principal: Principal = { kind: 'user', role: null, userId: login.userId, title: null, username: login.username };
    await storage.transaction(async (tx) => {
      await tx.accountSecurity.insertCode({
        digest: codeDigest('reset', token),
        userId: login.userId,
        purpose: 'reset',
        createdAt: new Date(now).toISOString(),
        expiresAt: new Date(now + limits.lifetimeSeconds * 1000).toISOString(),
        usedAt: null,
      });
      await audit(tx, { principal, origin }, { action: 'login.reset.request', ids: [login.userId] });
    });
    // Off the request path: the answer goes now, whatever the SMTP server takes.
    const message = resetMail(this.#deps.resetLink(token), limits.lifetimeSeconds);
    setImmediate(() => {
      mailer.send({ to: login.email!, ...message }).catch(this.#deps.onMailFailure);
    });
    return forgotAnswer;
  }

  /** A new password for the token's user; every other credential of the user ends with it. */
  async reset(body: Record<string, unknown>, origin: RequestOrigin): Promise<{ reset: true }> {
    const { token, password } = body;
    if (typeof token !== 'string' || token.length === 0 || token.length > 200) throw new InvalidRequestError('token is required: the token of the reset link.');
    if (typeof password !== 'string' || password.length > 1024) throw new InvalidRequestError('password is required: a string of at most 1024 characters.');
    if (password.length < this.#deps.limits.passwordMinLength) {
      throw new InvalidRequestError(`The password must be at least ${this.#deps.limits.passwordMinLength} characters.`, { min: this.#deps.limits.passwordMinLength });
    }
    const { storage } = this.#deps;
    const digest = codeDigest('reset', token);
    const stored = await storage.accountSecurity.findCode(digest);
    const refused = () => new InvalidRequestError('This reset link is wrong, expired or used already: ask for a new one.');
    if (stored === null || stored.purpose !== 'reset') throw refused();
    if (!(await storage.accountSecurity.takeCode(digest, new Date().toISOString()))) throw refused();
    const { userId } = stored;
    const principal: Principal = { ...resetOperator };
    try {
      await this.#deps.setPassword({ principal, origin }, userId, password);
    } catch (error) {
      // The user type refused the password: the link still works for a better one.
      await storage.accountSecurity.releaseCode(digest);
      throw error;
    }
    await storage.transaction(async (tx) => {
      await tx.accountSecurity.removeCodes(userId, 'reset');
      await audit(tx, { principal, origin }, { action: 'login.reset', ids: [userId] });
    });
    return { reset: true };
  }

  async #take(keys: readonly ThrottleKey[]): Promise<void> {
    const until = await this.#deps.throttle.take(keys, Date.now());
    if (until === null) return;
    const seconds = Math.max(1, Math.ceil((until - Date.now()) / 1000));
    throw new RetryLaterError('toomany', 'Too many password reset requests from this address; try again later.', seconds);
  }
}

function resetMail(link: string, lifetimeSeconds: number): { subject: string; text: string } {
  const minutes = Math.round(lifetimeSeconds / 60);
  return {
    subject: 'Reset your password',
    text: [
      'Someone (hopefully you) asked to reset the password of your account.',
      '',
      `Open this link within ${minutes} minutes to choose a new password:`,
      link,
      '',
      'If you did not ask for it, ignore this mail: your password stays as it is.',
    ].join('\n'),
  };
}
