import type { FastifyInstance } from 'fastify';
import type { DocumentOperations } from '../../content/documents/document-operations.js';
import { idParams, listQuery, objectBody, versionQuery } from '../schemas.js';
import { idOf, callerOf } from '../caller.js';
import type { CachedAnswers } from '../cached-answers.js';

type Body = Record<string, unknown>;

/**
 * The REST routes of every piece type, `/api/v1/<type>[/:_id[/<action>]]`. Each handler only
 * translates the request into one call of a document operation
 * (`content/documents/operations/<name>.ts`).
 */
export function registerPieceRoutes(
  app: FastifyInstance,
  deps: { documents: DocumentOperations; typeNames: Iterable<string>; answers: CachedAnswers },
): void {
  const { documents, answers } = deps;
  for (const type of deps.typeNames) {
    const base = `/api/v1/${type}`;
    const one = { schema: { params: idParams, querystring: versionQuery } };
    const write = { schema: { params: idParams, querystring: versionQuery, body: objectBody } };
    const dependsOn = documents.answerDependencies(type);
    const resource = (name: string) => ({ name, dependsOn });

    app.get(base, { schema: { querystring: listQuery } }, (request, reply) =>
      answers.send(request, reply, resource(type), () => documents.list(callerOf(request), type, request.query as Record<string, unknown>)),
    );
    app.post(base, { schema: { querystring: versionQuery, body: objectBody } }, (request) =>
      documents.insert(callerOf(request), type, request.body as Body),
    );
    app.get(`${base}/:_id`, one, (request, reply) =>
      answers.send(request, reply, resource(`${type}/${idOf(request)}`), () =>
        documents.getOne(callerOf(request), type, idOf(request), request.query as Record<string, unknown>),
      ),
    );
    app.put(`${base}/:_id`, write, (request) => documents.replace(callerOf(request), type, idOf(request), request.body as Body));
    app.patch(`${base}/:_id`, write, (request) => documents.patch(callerOf(request), type, idOf(request), request.body as Body));
    app.delete(`${base}/:_id`, one, async (request, reply) => {
      await documents.remove(callerOf(request), type, idOf(request));
      return reply.code(200).send();
    });

    app.post(`${base}/:_id/publish`, one, (request) => documents.publish(callerOf(request), type, idOf(request)));
    app.post(`${base}/:_id/unpublish`, one, (request) => documents.unpublish(callerOf(request), type, idOf(request)));
    app.post(`${base}/:_id/localize`, write, (request) =>
      documents.localize(callerOf(request), type, idOf(request), request.body as Body),
    );
    app.post(`${base}/:_id/revert-draft-to-published`, one, (request) =>
      documents.revertDraftToPublished(callerOf(request), type, idOf(request)),
    );
    app.post(`${base}/:_id/revert-published-to-previous`, one, (request) =>
      documents.revertPublishedToPrevious(callerOf(request), type, idOf(request)),
    );
    app.get(`${base}/:_id/locales`, one, (request, reply) =>
      answers.send(request, reply, resource(`${type}/${idOf(request)}/locales`), () => documents.locales(callerOf(request), type, idOf(request))),
    );
  }
}
