import type { StorageAdapter } from '../../storage/storage-adapter.js';
import { audit, type AuditedBy, type AuditEntry } from '../../core/audit.js';

/**
 * Records a call that is not itself a change (an MCP tool call, a read among them) in a
 * transaction of its own. A write the call made has already recorded itself in its own
 * transaction (`document.insert`…); this record says who asked for it, through what, and how it ended.
 */
export class CallAudit {
  readonly #storage: Pick<StorageAdapter, 'transaction'>;

  constructor(storage: Pick<StorageAdapter, 'transaction'>) {
    this.#storage = storage;
  }

  record(by: AuditedBy, entry: AuditEntry): Promise<void> {
    return this.#storage.transaction((tx) => audit(tx, by, entry));
  }
}
