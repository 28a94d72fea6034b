import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { ForbiddenError } from '../errors/app-error.js';
import { claimedOrigin, ownOrigin } from './cross-site.js';

/** The host name a `Host` header names, lower-case, IPv6 without brackets; null when it names none. */
function hostNameOf(host: string): string | null {
  if (!URL.canParse(`http://${host}`)) return null;
  const { hostname, username, password, pathname } = new URL(`http://${host}`);
  // "a@b" or "a/b" in Host names no host a browser would put there.
  if (username || password || pathname !== '/') return null;
  return hostname.replace(/^\[(.*)\]$/, '$1');
}

const wildcardHosts = new Set(['', '0.0.0.0', '::']);

/**
 * The bundled demo's API keys are printed in the README: any web page knows them, and browsers let
 * pages send requests to loopback addresses. So while they open the API they are honoured only
 * from no page at all (curl, a front end's server: no `Origin`), from this server's own pages, or
 * from an origin listed in `cors.origins`; and only under a `Host` that a web page cannot point at
 * this machine by DNS rebinding: `localhost`, an IP address, or the host of `baseUrl` or `HOST`.
 * Other credentials need no such check: a rebinding page carries no cookie of this server's name
 * and knows no token or private key, and anonymous reads show only what is public.
 */
export class PublicKeyGuard {
  readonly #baseUrl: string;
  readonly #hostNames: ReadonlySet<string>;
  readonly #trustedOrigins: ReadonlySet<string>;

  constructor(options: { readonly baseUrl: string; readonly listenHost: string; readonly trustedOrigins: readonly string[] }) {
    this.#baseUrl = options.baseUrl;
    const names = new Set(['localhost']);
    if (/^https?:\/\//i.test(options.baseUrl)) names.add(hostNameOf(new URL(options.baseUrl).host)!);
    if (!wildcardHosts.has(options.listenHost)) names.add(options.listenHost.toLowerCase());
    this.#hostNames = names;
    this.#trustedOrigins = new Set(options.trustedOrigins);
  }

  /** Refuses (403) a public key sent under a foreign `Host`, or by a page of another origin. */
  check(request: FastifyRequest): void {
    const name = hostNameOf(request.host);
    if (name === null || (isIP(name) === 0 && !this.#hostNames.has(name))) {
      throw new ForbiddenError(
        "public demo API key refused under a Host other than localhost, an IP address or baseUrl's (against DNS rebinding): use localhost, set CMS_BASE_URL, or set your own CMS_API_KEYS",
      );
    }
    const claimed = claimedOrigin(request);
    if (claimed === undefined || this.#trustedOrigins.has(claimed)) return;
    if (claimed === ownOrigin(request, this.#baseUrl) || claimed === ownOrigin(request, '')) return;
    throw new ForbiddenError(
      "public demo API key refused from another site's page (any site knows it): send it without Origin (curl) or from this server's pages, list the origin in CMS_CORS_ORIGINS, or set CMS_API_KEYS",
    );
  }
}
