import { AsyncResource } from 'node:async_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidRequestError } from '../../errors/app-error.js';
import { formatLsn, parseLsn, withReadPosition, type ReadPosition } from '../../core/read-position.js';
import { isSecure, sessionIdOf } from '../session-cookies.js';

/** The header a write's answer carries and the typed client sends back; the admin's cookie. */
export const readAfterHeader = 'cms-read-after';
const readAfterCookie = 'cms.read-after';

/**
 * Read your writes through read replicas (docs/guides/read-replicas.md). A request's position
 * is the later of its `CMS-Read-After` header and its `cms.read-after` cookie; its reads see at
 * least that, and each of its commits raises it. An answer to a request that committed says its
 * position back: in the header, and in the cookie too for the admin's session (a browser sends
 * cookies by itself, not headers). A malformed header is refused (400): the caller would
 * otherwise silently lose what it asked for. A malformed cookie is ignored: the browser holds it,
 * the user can do nothing about it.
 *
 * `routing`: whether the store has replicas. Without, only the header is checked: no request
 * context is kept, so no async hooks cost anything (see transactionNesting).
 *
 * Registered after the auth hook (a refusal's answer is built knowing who asked) and before the
 * response cache (whose hits read generations through the request's source). The cookie plugin's
 * onSend hook has written its cookies out by the time this one runs: the position's cookie is
 * added to the header as it stands.
 */
export function registerReadPosition(app: FastifyInstance, options: { readonly routing: boolean; readonly baseUrl: string }): void {
  const positions = new WeakMap<FastifyRequest, { position: ReadPosition; scope: AsyncResource }>();

  app.addHook('onRequest', (request, _reply, done) => {
    const fromHeader = headerPosition(request);
    if (!options.routing) return done();
    const fromCookie = cookiePosition(request);
    const after = fromHeader === undefined || (fromCookie !== undefined && fromCookie > fromHeader) ? fromCookie : fromHeader;
    const position: ReadPosition = { routable: request.method === 'GET' || request.method === 'HEAD', after, wrote: undefined };
    withReadPosition(position, () => {
      // The handler of a request with a body runs from the body's `end` event, in another async
      // context: it is entered again from this scope before validation (as @fastify/request-context does).
      const scope = new AsyncResource('cms-read-position');
      positions.set(request, { position, scope });
      scope.runInAsyncScope(done);
    });
  });

  if (!options.routing) return;

  app.addHook('preValidation', (request, _reply, done) => {
    const kept = positions.get(request);
    if (!kept) return done();
    kept.scope.runInAsyncScope(done);
  });

  app.addHook('onSend', (request, reply, _payload, done) => {
    const wrote = positions.get(request)?.position.wrote;
    if (wrote !== undefined) {
      const lsn = formatLsn(wrote);
      void reply.header(readAfterHeader, lsn);
      if (sessionIdOf(request) !== undefined) setReadAfterCookie(reply, lsn, isSecure(request, options.baseUrl));
    }
    done();
  });
}

function headerPosition(request: FastifyRequest): bigint | undefined {
  const value = request.headers[readAfterHeader];
  if (value === undefined) return undefined;
  const lsn = typeof value === 'string' ? parseLsn(value.trim()) : undefined;
  if (lsn === undefined) {
    throw new InvalidRequestError('CMS-Read-After takes one position as a write\'s answer sent it (two hexadecimal numbers: "16/B374D848")', {
      header: 'CMS-Read-After',
    });
  }
  return lsn;
}

function cookiePosition(request: FastifyRequest): bigint | undefined {
  const value = request.cookies[readAfterCookie];
  return value === undefined ? undefined : parseLsn(value);
}

/**
 * For the session only (no Max-Age): a position is worth keeping only until every replica that
 * serves reads has replayed it, seconds at most. HttpOnly: no script of the page needs it.
 */
function setReadAfterCookie(reply: FastifyReply, lsn: string, secure: boolean): void {
  const cookie = `${readAfterCookie}=${lsn}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
  const set = reply.getHeader('set-cookie');
  const cookies = set === undefined ? [] : Array.isArray(set) ? set : [String(set)];
  void reply.header('set-cookie', [...cookies, cookie]);
}
