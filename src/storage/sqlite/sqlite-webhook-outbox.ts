import type { WebhookDeliveryStatus, WebhookOutbox } from '../storage-adapter.js';
import { deliveryOf, deliveryColumns as columns, type DeliveryRow } from '../webhook-rows.js';
import type { StatementSource } from './statement-cache.js';

const enqueueSql = `INSERT INTO webhook_deliveries (event_id, endpoint, doc_id, event, type, payload, next_attempt_at, created_at, updated_at)
  VALUES (@eventId, @endpoint, @docId, @event, @type, @payload, @now, @now, @now)`;
// One UPDATE: SQLite runs it under the file's write lock, so no two processes lease one row.
const claimSql = `UPDATE webhook_deliveries SET lease_until = @until, lease_token = @token
  WHERE id IN (
    SELECT d.id FROM webhook_deliveries d
    WHERE d.status = 'pending' AND d.next_attempt_at <= @now AND d.lease_until <= @now
      AND d.endpoint IN (SELECT value FROM json_each(@endpoints)) AND d.event IN (SELECT value FROM json_each(@events))
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e
        WHERE e.status = 'pending' AND e.endpoint = d.endpoint AND e.doc_id = d.doc_id AND e.id < d.id
          AND NOT (@unordered AND e.event IN (SELECT value FROM json_each(@events))))
    ORDER BY d.id LIMIT @limit)
  RETURNING ${columns}`;
const recordSql = `UPDATE webhook_deliveries SET status = @status, attempts = attempts + 1, last_status_code = @statusCode,
    last_error = @error, next_attempt_at = @nextAttemptAt, lease_until = 0, lease_token = NULL, updated_at = @now
  WHERE id = @id AND lease_token = @token`;
const listSql = `SELECT ${columns} FROM webhook_deliveries
  WHERE (@status IS NULL OR status = @status) AND (@endpoint IS NULL OR endpoint = @endpoint) AND (@beforeId IS NULL OR id < @beforeId)
  ORDER BY id DESC LIMIT @limit`;
const countsSql = 'SELECT endpoint, status, count(*) AS count FROM webhook_deliveries GROUP BY endpoint, status ORDER BY endpoint, status';
const retrySql = `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = @now, updated_at = @now
  WHERE id = @id AND status = 'failed'`;
const pruneSql = `DELETE FROM webhook_deliveries WHERE id IN (
  SELECT id FROM webhook_deliveries WHERE status <> 'pending' AND updated_at < @before LIMIT @limit)`;


/** The webhook_deliveries table, read and written through the given connection's statements. */
export function createSqliteWebhookOutbox(statements: StatementSource): WebhookOutbox {
  return {
    async enqueue(deliveries, now) {
      const insert = statements.statement(enqueueSql);
      for (const delivery of deliveries) insert.run({ ...delivery, now });
    },

    async claim({ endpoints, events, unordered = false, now, leaseMs, token, limit }) {
      const parameters = { endpoints: JSON.stringify(endpoints), events: JSON.stringify(events), unordered: unordered ? 1 : 0, now, until: now + leaseMs, token, limit };
      const rows = statements.statement(claimSql).all(parameters) as DeliveryRow[];
      // RETURNING gives no order.
      return rows.map(deliveryOf).sort((a, b) => a.id - b.id);
    },

    async record(attempt) {
      return statements.statement(recordSql).run(attempt).changes === 1;
    },

    async list({ status, endpoint, beforeId, limit }) {
      const rows = statements.statement(listSql).all({ status: status ?? null, endpoint: endpoint ?? null, beforeId: beforeId ?? null, limit }) as DeliveryRow[];
      return rows.map(deliveryOf);
    },

    async counts() {
      return statements.statement(countsSql).all() as { endpoint: string; status: WebhookDeliveryStatus; count: number }[];
    },

    async retry(id, now) {
      return statements.statement(retrySql).run({ id, now }).changes === 1;
    },

    async prune(before, limit) {
      return statements.statement(pruneSql).run({ before, limit }).changes;
    },
  };
}
