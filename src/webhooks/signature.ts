import { createHmac } from 'node:crypto';

/**
 * The signature of one request, as Stripe signs its webhooks: HMAC-SHA256, keyed with the
 * endpoint's secret, of `<timestamp>.<body>`, in hex. The timestamp (Unix seconds, sent in
 * `cms-webhook-timestamp`) is signed with the body so that a receiver can refuse a replayed request.
 */
export function signatureOf(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}
