import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DocumentOperations } from '../../content/documents/document-operations.js';
import { historyEntryParams, historyQuery, idParams, listQuery, objectBody, readOneQuery, shareLinkParams, versionQuery, writeQuery } from '../schemas.js';
import { isSharedRead } from '../../content/documents/draft-sharing.js';
import { idOf, callerOf, writerOf } from '../caller.js';
import { sendWritten, type CachedAnswers } from '../cached-answers.js';
import { withExpiredPage } from '../expired-preview-page.js';
import { idempotencyOf } from '../idempotency-key.js';
import type { Caller } from '../../content/documents/caller.js';

type Body = Record<string, unknown>;

/** History shows every draft saved, to its editors only: never kept on the way. */
const privateAnswer = { 'cache-control': 'private, no-store' };

function entryIdOf(request: FastifyRequest): string {
  return (request.params as { entryId: string }).entryId;
}

/**
 * The REST routes of every piece type, `/api/v1/<type>[/:_id[/<action>]]`. Each handler only
 * translates the request into one call of a document operation
 * (`content/documents/operations/<name>.ts`).
 */
export function registerPieceRoutes(
  app: FastifyInstance,
  deps: { documents: DocumentOperations; typeNames: Iterable<string>; answers: CachedAnswers; idempotencyKeyLength: number },
): void {
  const { documents, answers } = deps;
  // The writes that take an Idempotency-Key (insert, PATCH, publish, unpublish); the other routes ignore it.
  const keyed = (request: FastifyRequest, caller: Caller): Caller => ({ ...caller, idempotency: idempotencyOf(request, deps.idempotencyKeyLength) });
  for (const type of deps.typeNames) {
    const base = `/api/v1/${type}`;
    const one = { schema: { params: idParams, querystring: versionQuery } };
    const write = { schema: { params: idParams, querystring: versionQuery, body: objectBody } };
    // A change to a stored version: `force` takes a media piece away from the documents showing it.
    const change = { schema: { params: idParams, querystring: writeQuery, body: objectBody } };
    // The answers of these GET routes may be kept (CachedAnswers), each valid while the generation of these keys holds.
    const dependencies = documents.answerDependencies(type);
    const cached = { answerDependsOn: (url: string) => dependencies.of(url) };
    // Which locales a document has in any mode.
    const cachedLocales = { answerDependsOn: () => dependencies.anyMode };

    app.get(base, { schema: { querystring: listQuery }, config: cached }, (request, reply) =>
      answers.send(request, reply, () => documents.list(callerOf(request), type, request.query as Record<string, unknown>)),
    );
    app.post(base, { schema: { querystring: versionQuery, body: objectBody } }, async (request, reply) =>
      sendWritten(reply, await documents.insert(keyed(request, callerOf(request)), type, request.body as Body)),
    );
    // A get-one depends on the documents it shows, which it names once built (CachedAnswers).
    const cachedOne = { ...cached, answerNamesSources: true, answerRelatesTo: (url: string) => dependencies.relatedOf(url) };
    app.get(`${base}/:_id`, { schema: { params: idParams, querystring: readOneQuery }, config: cachedOne }, (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const read = () => documents.getOne(callerOf(request), type, idOf(request), query);
      // A shared draft is its link holder's alone: never kept in a cache, here or on the way. A
      // browser opening a link that no longer works gets a page saying so.
      if (isSharedRead(query)) return withExpiredPage(request, reply, () => answers.sendPrivate(request, reply, read));
      return answers.sendVersion(request, reply, read);
    });
    app.put(`${base}/:_id`, change, async (request, reply) =>
      sendWritten(reply, await documents.replace(writerOf(request), type, idOf(request), request.body as Body)),
    );
    app.patch(`${base}/:_id`, change, async (request, reply) =>
      sendWritten(reply, await documents.patch(keyed(request, writerOf(request)), type, idOf(request), request.body as Body)),
    );
    app.delete(`${base}/:_id`, { schema: { params: idParams, querystring: writeQuery } }, async (request, reply) => {
      await documents.remove(writerOf(request), type, idOf(request));
      return reply.code(200).send();
    });

    app.post(`${base}/:_id/publish`, one, async (request, reply) => sendWritten(reply, await documents.publish(keyed(request, writerOf(request)), type, idOf(request))));
    app.post(`${base}/:_id/unpublish`, one, async (request, reply) =>
      sendWritten(reply, await documents.unpublish(keyed(request, writerOf(request)), type, idOf(request))),
    );
    app.post(`${base}/:_id/localize`, write, async (request, reply) =>
      sendWritten(reply, await documents.localize(writerOf(request), type, idOf(request), request.body as Body)),
    );
    app.post(`${base}/:_id/share`, write, async (request, reply) =>
      sendWritten(reply, await documents.share(writerOf(request), type, idOf(request), request.body as Body)),
    );
    // Live preview: the front end's URL of the draft with a fresh link; for its editors alone, never kept.
    app.post(`${base}/:_id/preview-url`, one, async (request, reply) =>
      reply.headers(privateAnswer).send(await documents.previewUrl(writerOf(request), type, idOf(request), request.body)),
    );
    app.post(`${base}/:_id/schedule`, write, async (request, reply) =>
      sendWritten(reply, await documents.schedule(writerOf(request), type, idOf(request), request.body as Body)),
    );
    // The live preview links of a draft, for its editors alone: never kept.
    app.get(`${base}/:_id/share`, one, async (request, reply) =>
      reply.header('cache-control', 'private, no-store').send(await documents.shareLinks(callerOf(request), type, idOf(request))),
    );
    app.delete(`${base}/:_id/share/:linkId`, { schema: { params: shareLinkParams, querystring: versionQuery } }, async (request, reply) =>
      reply.send(await documents.revokeShareLink(writerOf(request), type, idOf(request), (request.params as { linkId: string }).linkId)),
    );
    app.post(`${base}/:_id/revert-draft-to-published`, one, async (request, reply) =>
      sendWritten(reply, await documents.revertDraftToPublished(writerOf(request), type, idOf(request))),
    );
    app.post(`${base}/:_id/revert-published-to-previous`, one, async (request, reply) =>
      sendWritten(reply, await documents.revertPublishedToPrevious(writerOf(request), type, idOf(request))),
    );
    app.get(`${base}/:_id/history`, { schema: { params: idParams, querystring: historyQuery } }, async (request, reply) =>
      reply.headers(privateAnswer).send(await documents.history(callerOf(request), type, idOf(request), request.query as Record<string, unknown>)),
    );
    app.get(`${base}/:_id/history/:entryId`, { schema: { params: historyEntryParams, querystring: versionQuery } }, async (request, reply) =>
      reply.headers(privateAnswer).send(await documents.historyEntry(callerOf(request), type, idOf(request), entryIdOf(request))),
    );
    app.post(`${base}/:_id/history/:entryId/restore`, { schema: { params: historyEntryParams, querystring: versionQuery } }, async (request, reply) =>
      sendWritten(reply, await documents.restoreHistory(writerOf(request), type, idOf(request), entryIdOf(request), request.body)),
    );
    app.get(`${base}/:_id/locales`, { ...one, config: cachedLocales }, (request, reply) =>
      answers.send(request, reply, () => documents.locales(callerOf(request), type, idOf(request))),
    );
  }
}
