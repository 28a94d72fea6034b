import type { AuditQuery, AuditRecord } from './interface/audit.js';

/** The columns of audit_records, as both adapters read them (named as the row's properties). */
export const auditColumns = `seq, id, at, actor_kind AS "actorKind", actor_id AS "actorId", actor_username AS "actorUsername",
  actor_title AS "actorTitle", actor_role AS "actorRole", address, request_id AS "requestId", action, type, ids, detail`;

export const auditInsertColumns = 'id, at, actor_kind, actor_id, actor_username, actor_title, actor_role, address, request_id, action, type, ids, detail';

export interface AuditRow {
  seq: number | string;
  id: string;
  at: string;
  actorKind: string;
  actorId: string | null;
  actorUsername: string | null;
  actorTitle: string | null;
  actorRole: string | null;
  address: string | null;
  requestId: string | null;
  action: string;
  type: string | null;
  ids: string;
  detail: string | null;
}

/** The values of a record's row, in the order of `auditInsertColumns`. */
export function auditRowValues(record: AuditRecord): unknown[] {
  const { actor } = record;
  return [
    record.id,
    record.at,
    actor.kind,
    actor._id,
    actor.username,
    actor.title,
    actor.role,
    record.address,
    record.requestId,
    record.action,
    record.type,
    JSON.stringify(record.ids),
    record.detail === null ? null : JSON.stringify(record.detail),
  ];
}

export function auditRecordOf(row: AuditRow): AuditRecord {
  return {
    id: row.id,
    at: row.at,
    actor: { kind: row.actorKind as AuditRecord['actor']['kind'], _id: row.actorId, username: row.actorUsername, title: row.actorTitle, role: row.actorRole },
    address: row.address,
    requestId: row.requestId,
    action: row.action,
    type: row.type,
    ids: JSON.parse(row.ids) as string[],
    detail: row.detail === null ? null : (JSON.parse(row.detail) as Record<string, unknown>),
  };
}

/**
 * The WHERE clause of a query, with only the conditions it asks (each one an indexed lookup),
 * and its values; `placeholder(n)` is the dialect's n-th parameter (1-based). The shapes are
 * few (each filter present or not), so each is prepared once.
 */
export function auditConditions(query: AuditQuery, placeholder: (n: number) => string, afterId?: string): { where: string; values: unknown[] } {
  const conditions: string[] = [];
  const values: unknown[] = [];
  const next = (value: unknown) => {
    values.push(value);
    return placeholder(values.length);
  };
  if (query.actor !== undefined) {
    conditions.push(`(actor_id = ${next(query.actor)} OR actor_username = ${next(query.actor)})`);
  }
  if (query.type !== undefined) conditions.push(`type = ${next(query.type)}`);
  if (query.action !== undefined) conditions.push(`action = ${next(query.action)}`);
  if (query.since !== undefined) conditions.push(`at >= ${next(query.since)}`);
  if (query.until !== undefined) conditions.push(`at < ${next(query.until)}`);
  // Newest first: the records appended before that one (found by its unique id). A record pruned
  // since has nothing after it: pruning removes the oldest first.
  if (afterId !== undefined) conditions.push(`seq < (SELECT seq FROM audit_records WHERE id = ${next(afterId)})`);
  return { where: conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`, values };
}
