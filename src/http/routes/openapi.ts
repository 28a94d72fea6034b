import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { OpenApiAnswers } from '../openapi/openapi-answers.js';
import { matchesNoneMatch } from '../etag.js';

/**
 * `GET /api/v1/openapi.json`, the OpenAPI 3.1 document of this configuration as the caller's
 * role may see it, and `/docs`, an interactive reference (Swagger UI, served from its package:
 * nothing is loaded from another host) that reads the same document.
 */
export async function registerOpenApiRoutes(app: FastifyInstance, deps: { documents: OpenApiAnswers; baseUrl: string }): Promise<void> {
  const { documents } = deps;
  app.get('/api/v1/openapi.json', (request, reply) => sendDocument(request, reply, documents));
  // In a scope of its own: the plugins' decorators and hooks stay here, the other routes' schemas are theirs.
  await app.register(async (scope) => {
    // Static mode only hands the given document to the UI plugin: it reads no route schema. The
    // UI's document routes answer through transformSpecification below, so this placeholder is
    // never served and no audience's document is built before one is asked for.
    await scope.register(swagger, { mode: 'static', specification: { document: { openapi: '3.1.0', info: { title: 'CMS REST interface', version: '' }, paths: {} } } });
    await scope.register(swaggerUi, {
      routePrefix: '/docs',
      // The UI asks `/docs/json`; it answers the caller's document like `/api/v1/openapi.json`.
      transformSpecificationClone: false,
      transformSpecification: (_document, request, reply) => {
        const { json } = documents.for(request.principal);
        void reply.type('application/json; charset=utf-8').header('cache-control', 'no-cache').header('vary', 'Authorization, Cookie');
        return json as never;
      },
      uiConfig: { deepLinking: true, tryItOutEnabled: false },
      theme: { title: 'CMS API reference' },
      validatorUrl: false,
      staticCSP: contentSecurityPolicy(deps.baseUrl),
    });
  });
}

function sendDocument(request: FastifyRequest, reply: FastifyReply, documents: OpenApiAnswers) {
  const { json, digest } = documents.for(request.principal);
  const etag = `"${digest}"`;
  void reply
    .header('etag', etag)
    .header('vary', 'Authorization, Cookie')
    .header('cache-control', request.principal.kind === 'anonymous' ? 'no-cache' : 'private, no-cache');
  if (matchesNoneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(json);
}

/**
 * The UI's scripts and styles come from this server; "Try it out" may call the API at `baseUrl`,
 * another origin when it names one. No frames, plugins or `<base>`.
 */
function contentSecurityPolicy(baseUrl: string): string {
  const api = /^https?:\/\//i.test(baseUrl) && URL.canParse(baseUrl) ? ` ${new URL(baseUrl).origin}` : '';
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self'${api}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}
