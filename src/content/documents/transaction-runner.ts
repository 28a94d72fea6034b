import type { StorageAdapter, StorageSession, TransactionOptions } from '../../storage/storage-adapter.js';
import { PasswordsToHash, WritePasswords, type PasswordHasher } from '../fields/password-hasher.js';
import type { AttachmentFileKeeper } from './attachment-refs.js';
import type { AttachmentUsage } from './attachment-usage.js';
import type { ChangeRecorder } from './change-recorder.js';

export interface TransactionRunnerDeps {
  readonly storage: StorageAdapter;
  readonly usage: AttachmentUsage;
  readonly changes: ChangeRecorder;
  /** The attachments' files, made readable or not once a transaction changed their usage. */
  readonly files: AttachmentFileKeeper;
  readonly passwordHasher: PasswordHasher;
  readonly passwordMinLength: number;
  /** Called once a transaction that wrote change events to the webhook outbox has committed. */
  readonly onChangesCommitted?: () => void;
}

/** The one way document writes reach the store: each operation's transaction, and what follows its commit. */
export class TransactionRunner {
  readonly #deps: TransactionRunnerDeps;

  constructor(deps: TransactionRunnerDeps) {
    this.#deps = deps;
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
    const result = await this.#deps.storage.transaction(options, async (tx) => {
      usage.begin(tx);
      const value = await work(tx);
      toSettle = await usage.decideReadable(tx);
      recordedChanges = changes.wroteIn(tx);
      return value;
    });
    if (recordedChanges) this.#deps.onChangesCommitted?.();
    if (toSettle.length > 0) await this.#deps.files.settle(toSettle);
    return result;
  }
}
