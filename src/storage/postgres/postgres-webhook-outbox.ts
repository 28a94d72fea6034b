import type { WebhookDeliveryStatus, WebhookOutbox } from '../storage-adapter.js';
import { deliveryOf, deliveryColumns as columns, type DeliveryRow } from '../webhook-rows.js';
import type { StatementSource } from './statements.js';

const enqueueSql = `INSERT INTO webhook_deliveries (event_id, endpoint, doc_id, event, type, payload, next_attempt_at, created_at, updated_at)
  SELECT d.event_id, d.endpoint, d.doc_id, d.event, d.type, d.payload, $7::bigint, $7::bigint, $7::bigint
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY
    AS d(event_id, endpoint, doc_id, event, type, payload, position)
  ORDER BY d.position`;
// SKIP LOCKED: processes claiming at once each take other rows instead of waiting for each
// other. A row another claimer holds still counts as pending for the NOT EXISTS, so a document's
// later event never overtakes it.
const claimSql = `UPDATE webhook_deliveries SET lease_until = $3::bigint, lease_token = $4::text
  WHERE id IN (
    SELECT d.id FROM webhook_deliveries d
    WHERE d.status = 'pending' AND d.next_attempt_at <= $2::bigint AND d.lease_until <= $2::bigint
      AND d.endpoint = ANY($1::text[]) AND d.event = ANY($6::text[])
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e
        WHERE e.status = 'pending' AND e.endpoint = d.endpoint AND e.doc_id = d.doc_id AND e.id < d.id
          AND NOT ($7::boolean AND e.event = ANY($6::text[])))
    ORDER BY d.id LIMIT $5::int
    FOR UPDATE SKIP LOCKED)
  RETURNING ${columns}`;
const recordSql = `UPDATE webhook_deliveries SET status = $3::text, attempts = attempts + 1, last_status_code = $4::int,
    last_error = $5::text, next_attempt_at = $6::bigint, lease_until = 0, lease_token = NULL, updated_at = $7::bigint
  WHERE id = $1::bigint AND lease_token = $2::text`;
const listSql = `SELECT ${columns} FROM webhook_deliveries
  WHERE ($1::text IS NULL OR status = $1::text) AND ($2::text IS NULL OR endpoint = $2::text) AND ($3::bigint IS NULL OR id < $3::bigint)
  ORDER BY id DESC LIMIT $4::int`;
const countsSql = 'SELECT endpoint, status, count(*)::int AS count FROM webhook_deliveries GROUP BY endpoint, status ORDER BY endpoint, status';
const retrySql = `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = $2::bigint, updated_at = $2::bigint
  WHERE id = $1::bigint AND status = 'failed'`;
const pruneSql = `DELETE FROM webhook_deliveries WHERE id IN (
  SELECT id FROM webhook_deliveries WHERE status <> 'pending' AND updated_at < $1::bigint LIMIT $2::int)`;

/** The webhook_deliveries table, read and written through the given statements. */
export function createPostgresWebhookOutbox(statements: StatementSource): WebhookOutbox {
  return {
    async enqueue(deliveries, now) {
      if (deliveries.length === 0) return;
      const column = (pick: (delivery: (typeof deliveries)[number]) => string) => deliveries.map(pick);
      await statements.prepared(enqueueSql, [
        column((d) => d.eventId),
        column((d) => d.endpoint),
        column((d) => d.docId),
        column((d) => d.event),
        column((d) => d.type),
        column((d) => d.payload),
        now,
      ]);
    },

    async claim({ endpoints, events, unordered = false, now, leaseMs, token, limit }) {
      const { rows } = await statements.prepared<DeliveryRow>(claimSql, [endpoints, now, now + leaseMs, token, limit, events, unordered]);
      // RETURNING gives no order.
      return rows.map(deliveryOf).sort((a, b) => a.id - b.id);
    },

    async record(attempt) {
      const { id, token, status, statusCode, error, nextAttemptAt, now } = attempt;
      const { rowCount } = await statements.prepared(recordSql, [id, token, status, statusCode, error, nextAttemptAt, now]);
      return rowCount === 1;
    },

    async list({ status, endpoint, beforeId, limit }) {
      const { rows } = await statements.prepared<DeliveryRow>(listSql, [status ?? null, endpoint ?? null, beforeId ?? null, limit]);
      return rows.map(deliveryOf);
    },

    async counts() {
      const { rows } = await statements.prepared<{ endpoint: string; status: WebhookDeliveryStatus; count: number }>(countsSql, []);
      return rows;
    },

    async retry(id, now) {
      const { rowCount } = await statements.prepared(retrySql, [id, now]);
      return rowCount === 1;
    },

    async prune(before, limit) {
      const { rowCount } = await statements.prepared(pruneSql, [before, limit]);
      return rowCount ?? 0;
    },
  };
}
