import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { anonymous, type Principal } from '../../core/principal.js';
import type { ApiKeys, KeyCaller } from '../../auth/api-keys.js';
import type { StoredApiKeys } from '../../auth/stored-api-keys.js';
import type { Credential, TokenService } from '../../auth/token-service.js';
import { ForbiddenError, UnauthorizedError } from '../../errors/app-error.js';
import { isUnsafe, refuseForeignOrigin, refuseMissingCsrfToken } from '../cross-site.js';
import { clearSessionCookies, sessionIdOf, setSessionCookies } from '../session-cookies.js';
import type { PublicKeyGuard } from '../public-keys.js';
import { mayHaveParameter } from '../query-string.js';
import { memoByUrl } from '../memo-by-url.js';
import { shareQueryParams } from '../../content/documents/draft-sharing.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
    /** The bearer token or session the user came with; null for API keys and anonymous callers. */
    credential: Credential | null;
    /** Who is asking, for per-caller budgets: `user:<id>`, `key:<SHA-256 of the key>`, or null when anonymous. */
    callerId: string | null;
  }
  interface FastifyContextConfig {
    /** `false`: a cookie-authenticated write needs no CSRF token here (login: there is no session yet). */
    csrfToken?: boolean;
  }
}

export interface AuthDeps {
  readonly apiKeys: ApiKeys;
  /** Keys made by `cms apikey create`, asked only about a key that is not configured. */
  readonly storedKeys: StoredApiKeys;
  readonly tokens: TokenService;
  /** The configured `baseUrl`: its origin is this server's, for the Origin check. */
  readonly baseUrl: string;
  /** Set while the configured keys are the bundled demo's published ones: who may use them. */
  readonly publicKeys: PublicKeyGuard | null;
}

/**
 * Resolves who is asking before any route runs: an API key (`apikey`/`apiKey` query parameter or
 * `Authorization: ApiKey <key>`; a configured one, else one the store keeps), a bearer token (`Authorization: Bearer <token>`), the session
 * cookie, or nobody, in that order: a key or token makes the cookie ignored. A key or token that
 * is presented but wrong is refused outright rather than treated as anonymous, and so is one of
 * the demo's published keys from another site's page (`PublicKeyGuard`).
 */
export function registerAuth(app: FastifyInstance, deps: AuthDeps): void {
  app.decorateRequest('principal', null as unknown as Principal);
  app.decorateRequest('credential', null);
  app.decorateRequest('callerId', null);
  // A callback hook: anonymous and configured-key requests (no store to ask) cost no promise.
  app.addHook('onRequest', (request, reply, done) => {
    request.principal = anonymous;
    request.callerId = null;
    const credentials = credentialsOf(request);
    if (credentials.apiKey !== undefined) {
      const configured = deps.apiKeys.identify(credentials.apiKey);
      if (configured) {
        try {
          deps.publicKeys?.check(request);
        } catch (error) {
          return done(error as Error);
        }
        actAsKey(request, configured);
        return done();
      }
      if (!deps.storedKeys.mayBeStored(credentials.apiKey)) return done(invalidApiKey());
      return void deps.storedKeys.identify(credentials.apiKey).then((stored) => {
        if (!stored) return done(invalidApiKey());
        actAsKey(request, stored);
        done();
      }, done);
    }
    if (credentials.bearer !== undefined) {
      const credential: Credential = { kind: 'bearer', secret: credentials.bearer };
      return void deps.tokens.principalFor(credential).then((principal) => {
        if (!principal) return done(invalidBearer());
        actAs(request, principal, credential);
        done();
      }, done);
    }
    if (credentials.session !== undefined) {
      return void resolveSession(request, reply, credentials.session, deps).then(() => done(), done);
    }
    done();
  });
  app.addHook('onSend', (request, reply, _payload, done) => {
    // Responses that depend on who asks are not cached; a route that knows better (files) says so itself.
    if (request.method === 'GET' && request.principal.kind !== 'anonymous' && !reply.hasHeader('cache-control')) {
      reply.header('cache-control', 'no-store');
    }
    done();
  });
}

// The original's words first ("invalid api key"), then what to do about it.
const invalidApiKey = () =>
  new ForbiddenError(
    'invalid api key: no API key matches the one sent (Authorization: ApiKey <key> or ?apikey=<key>); send a valid key, or none to read public content',
  );
const invalidBearer = () =>
  new UnauthorizedError(
    'bearer token invalid: it is unknown, expired or signed out; sign in again with POST /api/v1/@cms/login/login and send Authorization: Bearer <token>',
  );

function actAsKey(request: FastifyRequest, key: KeyCaller): void {
  request.principal = key.principal;
  request.callerId = key.callerId;
}

function actAs(request: FastifyRequest, principal: Principal, credential: Credential): void {
  request.principal = principal;
  request.credential = credential;
  request.callerId = `user:${principal.userId}`;
}

/**
 * A session that ended (signed out, expired, user disabled) leaves the request anonymous and
 * the cookies expired, rather than refusing it: browsers send the cookie with every request,
 * public reads included, and `whoami` answering 404 tells the admin it is signed out.
 * A write on a live session must come from this origin and carry the CSRF token. A session past
 * half its life is renewed, and its cookies set again for a whole life.
 */
async function resolveSession(request: FastifyRequest, reply: FastifyReply, sessionId: string, deps: AuthDeps): Promise<void> {
  const session = await deps.tokens.resumeSession(sessionId);
  if (!session) {
    clearSessionCookies(reply, deps.baseUrl);
    return;
  }
  if (isUnsafe(request.method)) {
    refuseForeignOrigin(request, deps.baseUrl);
    if (request.routeOptions.config.csrfToken !== false) refuseMissingCsrfToken(request, sessionId);
  }
  actAs(request, session.principal, { kind: 'session', secret: sessionId });
  // After the checks, so that a refused request extends nothing.
  const renewed = session.renewalDue ? await deps.tokens.renewSession(sessionId) : null;
  if (renewed) setSessionCookies(reply, renewed, deps.baseUrl);
}

/** The query parameters an API key may come in. */
export const apiKeyParams: readonly string[] = ['apikey', 'apiKey'];

/**
 * Whether a raw URL's parsed query may hold an API key (`mayHaveParameter`); only the URLs that
 * cannot, and that name no shared read (its key opens a draft to whoever holds it), are remembered.
 */
const mayNameApiKey = memoByUrl((url) => mayHaveParameter(url, apiKeyParams), {
  remember: (may, url) => !may && !mayHaveParameter(url, shareQueryParams),
});

/** The one credential a request presents, the first of an API key, a bearer token and the session cookie; none: anonymous. */
export function credentialsOf(request: FastifyRequest): { apiKey?: string; bearer?: string; session?: string } {
  // Most requests name no key in their query: the raw text says so, and the query stays unparsed.
  const query = (mayNameApiKey(request.url) ? request.query : {}) as Record<string, unknown>;
  const fromQuery = query.apikey ?? query.apiKey;
  if (typeof fromQuery === 'string') return { apiKey: fromQuery };
  if (fromQuery !== undefined) return { apiKey: '' };
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^(\S+)\s+(.+)$/.exec(header.trim()) : null;
  const scheme = match?.[1]!.toLowerCase();
  if (scheme === 'apikey') return { apiKey: match![2]! };
  if (scheme === 'bearer') return { bearer: match![2]! };
  const session = sessionIdOf(request);
  return session ? { session } : {};
}
