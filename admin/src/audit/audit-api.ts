import { request } from '../api/client';
import type { AuditRecord } from '../api/types';

/** The filters of the audit screen, as typed: empty ones are not sent. */
export interface AuditFilters {
  actor: string;
  type: string;
  action: string;
  /** `YYYY-MM-DD` from a date input. */
  since: string;
  until: string;
}

export interface AuditAnswer {
  pages: number;
  currentPage: number;
  results: AuditRecord[];
}

export const auditPerPage = 50;

/** The actions the server writes, offered in the filter (any other may still be typed in the URL). */
export const auditActions: readonly string[] = [
  'document.insert',
  'document.patch',
  'document.replace',
  'document.publish',
  'document.unpublish',
  'document.revert',
  'document.revertPublished',
  'document.archive',
  'document.restore',
  'document.restoreHistory',
  'document.localize',
  'document.share',
  'document.unshare',
  'document.revokeShareLink',
  'document.schedule',
  'document.unschedule',
  'document.delete',
  'login',
  'login.failed',
  'logout',
  'login.totp.enable',
  'login.totp.disable',
  'login.recovery',
  'login.reset.request',
  'login.reset',
  'apikey.create',
  'apikey.revoke',
  'attachment.upload',
  'webhook.retry',
  'release.publish',
  'release.revert',
  'release.delete',
  'review.stage',
  'review.comment',
  'mcp.describeTypes',
  'mcp.findDocuments',
  'mcp.getDocument',
  'mcp.createDraft',
  'mcp.patchDraft',
  'mcp.publish',
  'mcp.schedule',
  'mcp.readHistory',
  'mcp.readResource',
];

/** GET /api/v1/@cms/audit: one page, newest first. */
export function listAudit(filters: AuditFilters, page: number, signal?: AbortSignal): Promise<AuditAnswer> {
  const query: Record<string, string | number> = { page, perPage: auditPerPage };
  for (const [name, value] of Object.entries(filters)) if (value.trim()) query[name] = value.trim();
  return request<AuditAnswer>('/@cms/audit', { query, signal });
}

/** Who a record names, in a few words. */
export function actorLabel(record: AuditRecord): string {
  const { actor } = record;
  if (actor.kind === 'user') return actor.username ?? actor.title ?? actor._id ?? 'a user';
  if (actor.kind === 'apiKey') return `API key (${actor.role ?? 'no role'})`;
  if (actor.kind === 'cli') return 'command line';
  return 'anonymous';
}
