import type { Principal } from '../../core/principal.js';
import type { AuditActor, AuditRecord, StorageSession } from '../../storage/storage-adapter.js';
import { newId } from '../../core/ids.js';

/** Where a request came from, as the HTTP layer hands it down with the caller (none: the command line). */
export interface RequestOrigin {
  /** The client's address (Fastify's `request.ip`, after the trusted proxies). */
  readonly address: string | null;
  /** Fastify's `request.id`, as in the server's log lines. */
  readonly requestId: string | null;
}

/** Who acts, and from where: a document operation's `Caller` is one. */
export interface AuditedBy {
  readonly principal: Principal;
  readonly origin?: RequestOrigin;
}

/** What happened: the action, and what it was done to. */
export interface AuditEntry {
  /** `<subject>.<verb>`: `document.publish`, `login.failed`, `apikey.revoke`… */
  readonly action: string;
  readonly type?: string | null;
  readonly ids?: readonly string[];
  readonly detail?: Readonly<Record<string, unknown>> | null;
}

/** The command line acting for the operator (`cms import`, `cms apikey …`): no request, no address. */
export const commandLine: AuditedBy = Object.freeze({
  principal: Object.freeze({ kind: 'apiKey', role: 'admin', userId: null, title: 'Command line', username: null }),
});

/** Who a principal is, as a record keeps it: names and ids, never how they proved it. */
export function actorOf(by: AuditedBy): AuditActor {
  const { principal } = by;
  const kind = by === commandLine ? 'cli' : principal.kind;
  return { kind, _id: principal.userId, username: principal.username, title: principal.title, role: principal.role };
}

/** The record of an entry, made now. */
export function auditRecord(by: AuditedBy, entry: AuditEntry): AuditRecord {
  return {
    id: newId(),
    at: new Date().toISOString(),
    actor: actorOf(by),
    address: by.origin?.address ?? null,
    requestId: by.origin?.requestId ?? null,
    action: entry.action,
    type: entry.type ?? null,
    ids: entry.ids ?? [],
    detail: entry.detail ?? null,
  };
}

/** Appends the record of an entry in the transaction of `tx`: it commits with the change it tells of, or not at all. */
export async function audit(tx: StorageSession, by: AuditedBy, entry: AuditEntry): Promise<void> {
  await tx.audit.append([auditRecord(by, entry)]);
}
