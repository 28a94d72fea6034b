import type { WebhookDelivery, WebhookDeliveryStatus } from './storage-adapter.js';

/** What both adapters keep of a webhook delivery: the columns of webhook_deliveries they read. */
export const deliveryColumns = `id, event_id, endpoint, doc_id, event, type, payload, status, attempts, last_status_code, last_error,
  next_attempt_at, created_at, updated_at`;

export interface DeliveryRow {
  id: number;
  event_id: string;
  endpoint: string;
  doc_id: string;
  event: string;
  type: string;
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: number;
  created_at: number;
  updated_at: number;
}

/** A row as the interface names it (PostgreSQL gives bigints as strings). */
export function deliveryOf(row: DeliveryRow): WebhookDelivery {
  return {
    id: Number(row.id),
    eventId: row.event_id,
    endpoint: row.endpoint,
    docId: row.doc_id,
    event: row.event,
    type: row.type,
    payload: row.payload,
    status: row.status,
    attempts: Number(row.attempts),
    lastStatusCode: row.last_status_code === null ? null : Number(row.last_status_code),
    lastError: row.last_error,
    nextAttemptAt: Number(row.next_attempt_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

