import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ReviewOperations } from '../../content/documents/operations/review.js';
import { approvePath } from '../../content/documents/operations/review.js';
import { idParams, versionQuery } from '../schemas.js';
import { callerOf, idOf, writerOf } from '../caller.js';

/** Review answers are their editors' alone: never kept on the way. */
const privateAnswer = { 'cache-control': 'private, no-store' };
const commentParams = Type.Object({ _id: idParams.properties._id, commentId: Type.String({ minLength: 1, maxLength: 100 }) });
const approveInput = Type.Object({ type: Type.String({ minLength: 1, maxLength: 200 }), id: Type.String({ minLength: 1, maxLength: 300 }), key: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });

/**
 * The review routes of the types with `options.review` (docs/guides/review.md):
 * `…/:_id/review`, `…/:_id/comments[/:commentId]`, `…/:_id/review-link`, and the approve link.
 */
export function registerReviewRoutes(app: FastifyInstance, deps: { review: ReviewOperations; typeNames: Iterable<string> }): void {
  const { review } = deps;
  for (const type of deps.typeNames) {
    const base = `/api/v1/${type}/:_id`;
    const one = { schema: { params: idParams, querystring: versionQuery } };
    app.post(`${base}/review`, one, async (request, reply) => reply.headers(privateAnswer).send(await review.move(writerOf(request), type, idOf(request), request.body)));
    app.post(`${base}/comments`, one, async (request, reply) =>
      reply.code(201).headers(privateAnswer).send(await review.addComment(writerOf(request), type, idOf(request), request.body)),
    );
    app.get(`${base}/comments`, one, async (request, reply) => reply.headers(privateAnswer).send(await review.listComments(callerOf(request), type, idOf(request))));
    app.patch(`${base}/comments/:commentId`, { schema: { params: commentParams, querystring: versionQuery } }, async (request, reply) =>
      reply.headers(privateAnswer).send(await review.resolveComment(writerOf(request), type, idOf(request), commentIdOf(request), request.body)),
    );
    app.post(`${base}/review-link`, one, async (request, reply) =>
      reply.code(201).headers(privateAnswer).send(await review.makeLink(writerOf(request), type, idOf(request), request.body)),
    );
  }
  app.get(approvePath, { schema: { querystring: approveInput } }, async (request, reply) =>
    reply.headers(privateAnswer).send(await review.approve(request.query as Record<string, unknown>)),
  );
  app.post(approvePath, { schema: { body: approveInput } }, async (request, reply) =>
    reply.headers(privateAnswer).send(await review.approve(request.body as Record<string, unknown>)),
  );
}

function commentIdOf(request: FastifyRequest): string {
  return (request.params as { commentId: string }).commentId;
}
