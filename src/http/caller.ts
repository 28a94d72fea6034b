import type { FastifyRequest } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { Caller } from '../content/documents/caller.js';
import type { RequestOrigin } from '../core/audit.js';
import type { versionQuery, writeQuery } from './schemas.js';
import { ifMatchPrecondition } from './etag.js';

/** The caller and the version (`cmsLocale`, `cmsMode`) a request asks for. */
export function callerOf(request: FastifyRequest): Caller {
  const query = request.query as Static<typeof versionQuery>;
  const keyCallerId = request.principal.kind === 'apiKey' ? (request.callerId ?? undefined) : undefined;
  return { principal: request.principal, locale: query.cmsLocale, mode: query.cmsMode, origin: originOf(request), keyCallerId };
}

/** Where a request came from, for the audit trail: the client's address and the request's id. */
export function originOf(request: FastifyRequest): RequestOrigin {
  return { address: request.ip, requestId: request.id };
}

/** The caller of a write, with its `If-Match` precondition and whether it says `force=true` (writeQuery). */
export function writerOf(request: FastifyRequest): Caller {
  const force = (request.query as Static<typeof writeQuery>).force === 'true';
  return { ...callerOf(request), unchangedSince: ifMatchPrecondition(request.headers['if-match']), force };
}

/** The `:_id` path segment. */
export function idOf(request: FastifyRequest): string {
  return (request.params as { _id: string })._id;
}
