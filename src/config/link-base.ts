/** The name a browser on this machine reaches a wildcard or loopback address by. */
function reachableHost(host: string): string {
  if (['0.0.0.0', '::', '127.0.0.1', '::1', ''].includes(host)) return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** `http://localhost:3000` for a server on 0.0.0.0, `::` or loopback, else `http://<host>:<port>`. */
export function listenOrigin(host: string, port: number): string {
  return `http://${reachableHost(host)}:${port}`;
}

/**
 * Where the links of answers start (`_url`, `_parentUrl`, attachment `_url`/`_urls`, the image
 * `src` redirect): the configured `baseUrl` (or `CMS_BASE_URL`), else the address this server
 * listens on. The port is known only once the server listens (`PORT=0` picks one), so the links
 * are relative until then, as when `baseUrl` is configured as "". The Host header is never used:
 * it is the client's to choose, and answers are cached for every client.
 */
export class LinkBase {
  readonly #configured: boolean;
  #url: string;

  /** `configured` null: no `baseUrl` given, the links follow the listening address. */
  constructor(configured: string | null) {
    this.#configured = configured !== null;
    this.#url = configured ?? '';
  }

  get url(): string {
    return this.#url;
  }

  /** Whether the links come from the configuration rather than from the listening address. */
  get configured(): boolean {
    return this.#configured;
  }

  /** Called once the server listens; a configured `baseUrl` stays as it is. */
  listeningAt(host: string, port: number): void {
    if (!this.#configured) this.#url = listenOrigin(host, port);
  }
}
