import type { IdempotencyKeyStore } from '../../storage/storage-adapter.js';
import { ConflictError, IdempotencyKeyReusedError } from '../../errors/app-error.js';
import type { Caller, IdempotentRequest } from './caller.js';
import { KeyTaken } from './idempotency-claim.js';
import type { VersionOutput } from './present.js';
import type { FollowUpFailure } from './image-recrop.js';
import type { TransactionRunner } from './transaction-runner.js';


/** Expired records removed after each keyed write: more than one write makes, so the table never grows past its live records. */
const pruneBatch = 100;


export interface IdempotentWritesDeps {
  /** Read outside the write's transaction: what committed. */
  readonly store: IdempotencyKeyStore;
  /** A read after the writes queued before it (the one that took the key) have ended. */
  readonly transactions: Pick<TransactionRunner, 'run'>;
  /** The version a record names, as a GET of it by the caller answers now. */
  readonly readVersion: (caller: Caller, typeName: string, id: string) => Promise<VersionOutput>;
  /** Told when keeping an answer or pruning fails after the write committed (the caller still gets its answer). */
  readonly onFailure?: FollowUpFailure;
}

/**
 * Runs a write at most once per `Idempotency-Key` of a caller. A write without a key just runs.
 * With one, a live record of the key answers instead of the write: 422 when it was sent with
 * another request; else the answer kept after its commit, or, when the process stopped between
 * the commit and keeping it, the version it wrote as a GET reads it now. Both are marked
 * `replayed`. A write that meets the key claimed by another request sent at the same time rolls
 * back and answers as a retry. A refused write (4xx) stores no record: a retry runs again.
 */
export class IdempotentWrites {
  readonly #deps: IdempotentWritesDeps;

  constructor(deps: IdempotentWritesDeps) {
    this.#deps = deps;
  }

  async run(caller: Caller, typeName: string, write: () => Promise<VersionOutput>): Promise<VersionOutput> {
    const request = caller.idempotency;
    if (!request) return write();
    const earlier = await this.#replay(caller, typeName, request);
    if (earlier) return earlier;
    let output: VersionOutput;
    try {
      output = await write();
    } catch (error) {
      if (!(error instanceof KeyTaken)) throw error;
      // Read in a transaction of its own, the record that took the key is committed by then: on
      // PostgreSQL the claim waited for it, and SQLite runs it after the write group that holds it.
      const replay = await this.#replay(caller, typeName, request, true);
      if (!replay) throw new ConflictError('Another request with this Idempotency-Key was answered at the same time; send it again');
      return replay;
    }
    await this.#keep(request, output);
    return output;
  }

  async #replay(caller: Caller, typeName: string, request: IdempotentRequest, afterWrites = false): Promise<VersionOutput | null> {
    const { scope, key } = request;
    const now = new Date().toISOString();
    const record = afterWrites
      ? await this.#deps.transactions.run({}, (tx) => tx.idempotencyKeys.find(scope, key, now))
      : await this.#deps.store.find(scope, key, now);
    if (!record) return null;
    if (record.fingerprint !== request.fingerprint) throw new IdempotencyKeyReusedError();
    if (record.answer !== null) return { ...(JSON.parse(record.answer) as VersionOutput), replayed: true };
    // The id alone says which version: the request's cmsLocale and cmsMode do not move it.
    const reader: Caller = { principal: caller.principal, origin: caller.origin };
    return { ...(await this.#deps.readVersion(reader, typeName, record.resultId)), replayed: true };
  }

  /** The answer on the record, for retries; best effort, as the write has committed already. */
  async #keep(request: IdempotentRequest, output: VersionOutput): Promise<void> {
    const { store, onFailure } = this.#deps;
    const answer = JSON.stringify({ document: output.document, validator: output.validator });
    try {
      await store.keepAnswer(request.scope, request.key, request.fingerprint, answer);
      await store.prune(new Date().toISOString(), pruneBatch);
    } catch (error) {
      onFailure?.(error, 'keeping the answer of a write sent with an Idempotency-Key');
    }
  }
}
