import { createHash, randomInt } from 'node:crypto';
import { userTypeName, type Principal } from '../core/principal.js';
import type { AuditedBy, RequestOrigin } from '../core/audit.js';
import type { StorageAdapter, StorageSession } from '../storage/storage-adapter.js';
import type { LoginThrottle } from './login-throttle.js';
import { ConflictError, ForbiddenError, InvalidRequestError } from '../errors/app-error.js';

// No 0/O, 1/I/L or U: the code is read off a log and typed by hand.
const alphabet = 'ABCDEFGHJKMNPQRSTVWXYZ23456789';
const groups = 3;
const groupLength = 4;

/** Upper case, without the dashes and spaces a person may type or leave out. */
function normalized(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '');
}

/** What the store keeps of a code: its SHA-256, hex (the code has about 59 bits, and is throttled). */
function digest(code: string): string {
  return createHash('sha256').update(normalized(code), 'utf8').digest('hex');
}

/** The line the operator reads the code from, logged at warn once the server listens. */
export function setupCodeNotice(code: string): string {
  return `First run: no user exists yet. Create the first admin at /admin with the one-time setup code ${code}`;
}

/**
 * At start: a new code when the store has no user, kept (as its digest) for every process of the
 * store to accept, and to be logged once; null when there are users.
 */
export async function newSetupCode(storage: StorageAdapter): Promise<string | null> {
  if (await anyUser(storage)) return null;
  const code = newCode();
  await storage.setupCodes.add(digest(code));
  return code;
}

async function anyUser(session: Pick<StorageSession, 'documents'>): Promise<boolean> {
  const users = await session.documents.find({ type: userTypeName, limit: 1 });
  return users.length > 0;
}

const userExists = 'A user exists already: sign in instead.';

/**
 * Refuses the first admin when a user exists: checked again inside the insert's transaction,
 * which holds the name of the user type (no document id is one, `firstAdminLock`) so that
 * setups running side by side take turns.
 */
async function noUserYet(tx: StorageSession): Promise<void> {
  if (await anyUser(tx)) throw new ConflictError(userExists);
}

const firstAdminLock = [userTypeName];

/** 12 characters of 30 (about 59 bits), shown as `XXXX-XXXX-XXXX`. */
function newCode(): string {
  const characters = Array.from({ length: groups * groupLength }, () => alphabet[randomInt(alphabet.length)]);
  return Array.from({ length: groups }, (_, i) => characters.slice(i * groupLength, (i + 1) * groupLength).join('')).join('-');
}

// Who creates the first admin: nobody is signed in yet, and the code stands for the operator.
const operator: Principal = Object.freeze({ kind: 'apiKey', role: 'admin', userId: null, title: 'First-run setup', username: null });

/**
 * Users created with the user type's own rules (password length, username): the content layer's,
 * passed in by the composition root, so that auth does not import content.
 */
export interface UserDirectory {
  /**
   * Creates a user as `by` (its audit record names the request's origin); `onlyIf` runs first in
   * the insert's transaction and may refuse it, the transaction holding `lock` from its start
   * (`TransactionOptions.lock`).
   */
  create(
    by: AuditedBy,
    fields: Record<string, unknown>,
    options: { readonly onlyIf: (tx: StorageSession) => Promise<void>; readonly lock: readonly string[] },
  ): Promise<Record<string, unknown>>;
}

export interface FirstRunSetupDeps {
  readonly storage: StorageAdapter;
  readonly users: UserDirectory;
  /** Codes are counted like login attempts, per client address. */
  readonly throttle: LoginThrottle;
}

/**
 * The first admin of an empty store, created by whoever holds a one-time code a server logged at
 * start. The codes' digests are kept in the store (`newSetupCode`), so that every process of it
 * accepts every code any of them logged: the workers of one primary share the primary's, and
 * servers on other machines, each logging a code of its own, accept each other's.
 */
export class FirstRunSetup {
  readonly #deps: FirstRunSetupDeps;

  constructor(deps: FirstRunSetupDeps) {
    this.#deps = deps;
  }

  /** At start: a new code when no user exists, to be logged; null when there are users. */
  prepare(): Promise<string | null> {
    return newSetupCode(this.#deps.storage);
  }

  /** Whether the first admin may be created now: a code is kept and still no user exists. */
  async needed(): Promise<{ needed: boolean }> {
    return { needed: (await this.#deps.storage.setupCodes.any()) && !(await this.#anyUser()) };
  }

  /**
   * Creates the first admin with the user type's own rules (password length, username). Each code
   * sent counts against the client's address before it is checked (429 once locked: that address
   * only, not the operator's elsewhere). A right one is uncounted again, and used up, or given back
   * when the user could not be created, so that a too short password can be corrected. The other
   * codes stay, harmless: none creates an admin once a user exists.
   */
  async createFirstAdmin(body: Record<string, unknown>, client: RequestOrigin & { readonly address: string }): Promise<Record<string, unknown>> {
    const { code, username, password, title, email } = body;
    if (typeof code !== 'string' || typeof username !== 'string' || typeof password !== 'string') {
      throw new InvalidRequestError('The setup code, the username and the password are required.');
    }
    if (await this.#anyUser()) throw new ConflictError(userExists);
    await this.#deps.throttle.takeSetupCode(client.address);
    const setupCodes = this.#deps.storage.setupCodes;
    if (!(await setupCodes.any())) throw new ForbiddenError('No setup code is pending: restart the server to get one.');
    // Taken from the store, so that a second request with the same code, to any process, finds none.
    const taken = digest(code);
    if (!(await setupCodes.take(taken))) throw new ForbiddenError('The setup code is wrong.');
    await this.#deps.throttle.setupCodeRight(client.address);
    try {
      const fields = { username, password, title: title ?? username, ...(email === undefined ? {} : { email }), role: 'admin' };
      // Another process of this server (CMS_WORKERS) holds the same code and may be creating one now.
      const user = await this.#deps.users.create({ principal: operator, origin: client }, fields, { onlyIf: noUserYet, lock: firstAdminLock });
      return { _id: user._id, username: user.username, title: user.title, role: user.role };
    } catch (error) {
      await setupCodes.add(taken);
      throw error;
    }
  }

  #anyUser(): Promise<boolean> {
    return anyUser(this.#deps.storage);
  }
}
