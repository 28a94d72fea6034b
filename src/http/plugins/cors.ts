import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { credentialsOf } from './auth.js';

const everyMethod = 'GET, HEAD, POST, PUT, PATCH, DELETE';
const readMethods = new Set(['GET', 'HEAD']);
// What a page may read of an answer beyond the CORS-safelisted headers: the version for
// If-Match (ETag), when to try again (Retry-After), the position its next reads must see
// (CMS-Read-After, which the typed client sends back) and whether a write was a replay.
const exposedHeaders = 'ETag, Retry-After, CMS-Read-After, Idempotency-Replayed';

/** Whether a request reads without credentials: what any page may do, and read the answer of. */
function isAnonymousRead(request: FastifyRequest): boolean {
  return readMethods.has(request.method) && Object.keys(credentialsOf(request)).length === 0;
}

/** Whether a preflight asks for what an anonymous read sends: a read method, no `Authorization`. */
function asksAnonymousRead(request: FastifyRequest): boolean {
  const method = request.headers['access-control-request-method'];
  const headers = request.headers['access-control-request-headers'];
  const names = typeof headers === 'string' ? headers.toLowerCase().split(',').map((name) => name.trim()) : [];
  return (typeof method !== 'string' || readMethods.has(method.toUpperCase())) && !names.includes('authorization');
}

function appendVary(reply: FastifyReply, name: string): void {
  const vary = reply.getHeader('vary');
  const names = typeof vary === 'string' ? vary.split(',').map((entry) => entry.trim()) : [];
  if (!names.some((entry) => entry.toLowerCase() === name.toLowerCase())) reply.header('vary', [...names, name].filter(Boolean).join(', '));
}

/** Answers a preflight (any OPTIONS) with 204, granting what the origin may do and nothing else. */
function answerPreflight(request: FastifyRequest, reply: FastifyReply, trustedOrigin: string | null): void {
  const askedHeaders = request.headers['access-control-request-headers'];
  const grant = (origin: string, methods: string) => {
    reply.header('access-control-allow-origin', origin).header('access-control-allow-methods', methods);
    if (typeof askedHeaders === 'string') reply.header('access-control-allow-headers', askedHeaders);
  };
  if (trustedOrigin !== null) grant(trustedOrigin, everyMethod);
  else if (asksAnonymousRead(request)) grant('*', 'GET, HEAD');
  appendVary(reply, 'Access-Control-Request-Headers');
  // Safari waits for a body unless a 204 says it has none.
  void reply.code(204).header('content-length', '0').send();
}

/**
 * CORS. Pages of the `origins` listed (`cors.origins`, CMS_CORS_ORIGINS) may send credentials
 * (`Authorization`: API keys, bearer tokens) and write; pages of any other origin may only read
 * anonymously (`Access-Control-Allow-Origin: *`, GET and HEAD without credentials), so a page
 * cannot use a key it learnt, such as the demo's, and read the answer. No origin gets
 * `Access-Control-Allow-Credentials`: the session cookie serves the admin on this server's own
 * origin only. Clients that are not browsers (curl, a front end's server) are not concerned.
 * Registered before the auth hook: a preflight carries no credentials and is answered here, and a
 * refusal of a listed origin's request carries the header that lets its page read why.
 */
export function registerCors(app: FastifyInstance, options: { readonly origins: readonly string[] }): void {
  const listed = new Set(options.origins);
  const trustedOriginOf = (request: FastifyRequest) => {
    const { origin } = request.headers;
    return typeof origin === 'string' && listed.has(origin) ? origin : null;
  };
  // Callback hooks cost no promise per request, where async ones do.
  app.addHook('onRequest', (request, reply, done) => {
    const trusted = trustedOriginOf(request);
    if (request.method === 'OPTIONS') return answerPreflight(request, reply, trusted);
    if (trusted !== null) reply.header('access-control-allow-origin', trusted).header('access-control-expose-headers', exposedHeaders);
    else if (isAnonymousRead(request)) reply.header('access-control-allow-origin', '*').header('access-control-expose-headers', exposedHeaders);
    done();
  });
  // The answer depends on Origin once some origins are listed; routes set their own Vary, so it is added last.
  if (listed.size > 0) {
    app.addHook('onSend', (_request, reply, _payload, done) => {
      appendVary(reply, 'Origin');
      done();
    });
  }
}
