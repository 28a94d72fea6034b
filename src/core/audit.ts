import type { Principal } from './principal.js';
import { newId } from './ids.js';

/**
 * The audit trail's records, and how one is made from who acted and what they did: here in the
 * leaf, since the content layer, auth and the command line all write them, each in the
 * transaction of its change (the store keeps them: storage/interface/audit.ts).
 */

/**
 * Every action the audit trail records, spelt once: the writers are typed by it, the OpenAPI
 * document lists it (and so the admin's generated types), and the reference names each one.
 */
export const documentAuditVerbs = [
  'insert', 'patch', 'replace', 'publish', 'unpublish', 'revert', 'revertPublished', 'archive', 'restore',
  'restoreHistory', 'localize', 'share', 'unshare', 'revokeShareLink', 'schedule', 'unschedule', 'delete',
] as const;
export type DocumentAuditVerb = (typeof documentAuditVerbs)[number];
/**
 * The MCP server's tools (`src/mcp/tools.ts` names each one by this list) and its resource
 * reads: every call is recorded as `mcp.<name>`, besides the record a write makes of itself.
 */
export const mcpAuditedCalls = [
  'describeTypes', 'findDocuments', 'getDocument', 'createDraft', 'patchDraft', 'publish', 'schedule', 'readHistory', 'readResource',
] as const;
export type McpAuditedCall = (typeof mcpAuditedCalls)[number];
export const auditActions = [
  ...documentAuditVerbs.map((verb) => `document.${verb}` as const),
  ...mcpAuditedCalls.map((call) => `mcp.${call}` as const),
  'login', 'login.failed', 'logout',
  'login.totp.enable', 'login.totp.disable', 'login.recovery', 'login.reset.request', 'login.reset', 'apikey.create', 'apikey.revoke', 'attachment.upload', 'webhook.retry',
  'release.publish', 'release.revert', 'release.delete',
  'review.stage', 'review.comment',
] as const;
export type AuditAction = (typeof auditActions)[number];

/** Who did something, as an audit record keeps it: names and ids, never a credential. */
export interface AuditActor {
  /** `cli`: the command line (`cms import`, `cms apikey`), acting for the operator. */
  readonly kind: 'anonymous' | 'apiKey' | 'user' | 'cli';
  /**
   * A user's `_id`, or a stored API key's id (`cms apikey list`); null for a configured key
   * (it has no id: its records tell it by its role alone), the command line and anonymous callers.
   */
  readonly _id: string | null;
  readonly username: string | null;
  readonly title: string | null;
  readonly role: string | null;
}

/** One audit record: who did what, when, from where, to which documents. Never changed once written. */
export interface AuditRecord {
  readonly id: string;
  /** ISO time. */
  readonly at: string;
  readonly actor: AuditActor;
  /** The client's address; null when there was no request (the command line). */
  readonly address: string | null;
  /** The request id of the HTTP request (as in the server's log lines); null without one. */
  readonly requestId: string | null;
  /** `document.publish`, `login.failed`, `apikey.create`… */
  readonly action: string;
  /** The piece type, when the action is about documents of one type. */
  readonly type: string | null;
  /** The affected documents' `cmsDocId`s (and version `_id`s), or a user's or key's id. */
  readonly ids: readonly string[];
  /** A few facts worth keeping beside the ids (a locale, counts); never content or a secret. */
  readonly detail: Readonly<Record<string, unknown>> | null;
}

/** Where records are appended: a transaction's session (`StorageSession.audit`). */
export interface AuditAppender {
  readonly audit: { append(records: readonly AuditRecord[]): Promise<void> };
}

/** Where a request came from, as the HTTP layer hands it down with the caller (none: the command line). */
export interface RequestOrigin {
  /** The client's address (Fastify's `request.ip`, after the trusted proxies). */
  readonly address: string | null;
  /** Fastify's `request.id`, as in the server's log lines. */
  readonly requestId: string | null;
}

/** A change a schedule made (the scheduler acting as who set it): when it was due, and who set it. */
export interface ScheduledRun {
  /** ISO time the schedule was due. */
  readonly at: string;
  readonly by: { readonly kind: 'user' | 'apiKey'; readonly _id: string | null; readonly username: string | null; readonly title: string };
}

/** Who acts, and from where: a document operation's `Caller` is one. */
export interface AuditedBy {
  readonly principal: Principal;
  readonly origin?: RequestOrigin;
  /** Set when a schedule made the change: its record says so (`detail.schedule`). */
  readonly schedule?: ScheduledRun;
}

/** What happened: the action, and what it was done to. */
export interface AuditEntry {
  /** `<subject>.<verb>`: `document.publish`, `login.failed`, `apikey.revoke`… */
  readonly action: AuditAction;
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
  const kind = principal === commandLine.principal ? 'cli' : principal.kind;
  const _id = principal.kind === 'apiKey' ? (principal.keyId ?? null) : principal.userId;
  return { kind, _id, username: principal.username, title: principal.title, role: principal.role };
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
    detail: by.schedule ? { ...entry.detail, schedule: by.schedule } : (entry.detail ?? null),
  };
}

/** Appends the record of an entry in the transaction of `tx`: it commits with the change it tells of, or not at all. */
export async function audit(tx: AuditAppender, by: AuditedBy, entry: AuditEntry): Promise<void> {
  await tx.audit.append([auditRecord(by, entry)]);
}
