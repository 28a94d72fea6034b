import type { StorageAdapter, StorageSession, TransactionOptions } from '../../storage/storage-adapter.js';
import { PasswordsToHash, WritePasswords, type PasswordHasher } from '../fields/password-hasher.js';
import type { AttachmentFileKeeper } from './attachment-refs.js';
import type { AttachmentUsage } from './attachment-usage.js';
import type { ChangeRecorder } from './change-recorder.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import type { Caller } from './caller.js';
import { requireUnchanged } from './preconditions.js';
import { takeLock, type LockRequest } from './advisory-locks.js';

export interface TransactionRunnerDeps {
  readonly storage: StorageAdapter;
  readonly usage: AttachmentUsage;
  readonly changes: ChangeRecorder;
  /** The attachments' files, made readable or not once a transaction changed their usage. */
  readonly files: AttachmentFileKeeper;
  readonly passwordHasher: PasswordHasher;
  readonly passwordMinLength: number;
  /** Seconds an advisory lock lasts without a refresh. */
  readonly advisoryLockTimeout: number;
  /** Called once a transaction that wrote change events to the webhook outbox has committed. */
  readonly onChangesCommitted?: () => void;
  /** Called once a transaction that logged changes (every change) has committed: the change stream reads them. */
  readonly onChangesLogged?: () => void;
}

/** A write to one document set, in one locale: what `runOnDocument` holds and checks before the work. */
export interface DocumentWrite {
  readonly caller: Caller;
  readonly type: SanitizedPieceType;
  /** `version`: the one version the write's path names (PUT, PATCH, DELETE), which `If-Match` must name. */
  readonly set: { readonly docId: string; readonly locale: string | null; readonly version?: string };
  /** The body's `_advisoryLock` and the version it is for (PUT, PATCH). */
  readonly advisoryLock?: { readonly versionId: string; readonly request: LockRequest | null };
}

/** The one way document writes reach the store: each operation's transaction, and what follows its commit. */
export class TransactionRunner {
  readonly #deps: TransactionRunnerDeps;

  constructor(deps: TransactionRunnerDeps) {
    this.#deps = deps;
  }

  /**
   * Runs a write to an existing document: holds it, takes the advisory lock the body asks for
   * (409 when another tab holds it), refuses the write (412) when the caller's `If-Match` names
   * no current version, then runs `work`; a lock the body releases is released after it. Every
   * operation on one stored document goes through here, so none can skip the checks.
   */
  runOnDocument<T>(write: DocumentWrite, work: (tx: StorageSession, passwords: WritePasswords) => Promise<T>): Promise<T> {
    const { caller, type, set, advisoryLock } = write;
    const request = advisoryLock?.request ?? null;
    return this.runWithPasswords({ lock: [set.docId] }, async (tx, passwords) => {
      if (request?.lock) await takeLock(tx, advisoryLock!.versionId, request, caller.principal, this.#deps.advisoryLockTimeout);
      await requireUnchanged(tx, type, set, caller.unchangedSince);
      const result = await work(tx, passwords);
      if (request && !request.lock) await tx.advisoryLocks.release(advisoryLock!.versionId, request.tabId);
      return result;
    });
  }

  /**
   * Runs a write that may convert passwords. Password hashing is slow on purpose and never runs
   * inside the transaction, where it would hold the store's write lock: a conversion that meets a
   * password not hashed yet ends the transaction (nothing written), the passwords are hashed, and
   * the write runs again with them. Writes without passwords run once.
   */
  async runWithPasswords<T>(options: TransactionOptions, work: (tx: StorageSession, passwords: WritePasswords) => Promise<T>): Promise<T> {
    const passwords = new WritePasswords(this.#deps.passwordMinLength);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.run(options, (tx) => work(tx, passwords));
      } catch (error) {
        // Another attempt meets the same passwords; a third would mean the input keeps changing.
        if (!(error instanceof PasswordsToHash) || attempt === 3) throw error;
      }
      await passwords.hashPending(this.#deps.passwordHasher);
    }
  }

  /**
   * Runs document writes in one transaction. The attachments whose usage they changed are told
   * in it whether their files are to be readable; once it commits, the files are made so, and
   * the webhook sender is woken when it wrote change events.
   */
  async run<T>(options: TransactionOptions, work: (tx: StorageSession) => Promise<T>): Promise<T> {
    const { usage, changes } = this.#deps;
    let toSettle: string[] = [];
    let recordedChanges = false;
    let loggedChanges = false;
    const result = await this.#deps.storage.transaction(options, async (tx) => {
      usage.begin(tx);
      const value = await work(tx);
      toSettle = await usage.decideReadable(tx);
      recordedChanges = changes.wroteIn(tx);
      loggedChanges = changes.loggedIn(tx);
      return value;
    });
    if (recordedChanges) this.#deps.onChangesCommitted?.();
    if (loggedChanges) this.#deps.onChangesLogged?.();
    if (toSettle.length > 0) await this.#deps.files.settle(toSettle);
    return result;
  }
}
