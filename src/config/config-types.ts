import type { Role } from '../core/principal.js';
import type { Limits } from './limits.js';
import type { TrustProxy } from './env.js';
import type { FileStorageConfig } from './file-storage-config.js';
import type { WebhookEndpointConfig } from './webhooks-config.js';
import type { MailConfig, TotpConfig } from './account-config.js';

export interface LocaleConfig {
  readonly label: string;
  /** URL prefix of the locale's pages; the default locale has none unless configured. */
  readonly prefix: string;
  /** The locales a read of published content falls back to, in order (`fallback`, its `fallback`…); empty: none. */
  readonly fallbacks: readonly string[];
}

/**
 * The environment and the configuration file after validation at start, frozen. `modules` and
 * `widgets` stay raw: content's sanitizer turns them into piece types and widget types when the
 * app is assembled (`src/load-app-config.ts`), because only content knows the field types.
 */
export interface LoadedConfig {
  /**
   * The start of every link (an absolute URL, or "" for relative links) as `baseUrl` or
   * `CMS_BASE_URL` give it; null when neither does: links then follow the listening address.
   */
  readonly baseUrl: string | null;
  /** Where the configuration came from, for the start lines: a file path, or the bundled demo. */
  readonly configSource: string;
  readonly locales: ReadonlyMap<string, LocaleConfig>;
  readonly defaultLocale: string;
  readonly apiKeys: ReadonlyMap<string, { readonly role: Role }>;
  /** The configured piece-type modules, unchecked. */
  readonly modules: unknown;
  /** The configured widget types, unchecked. */
  readonly widgets: unknown;
  /** Largest accepted JSON body, in bytes. */
  readonly bodyLimit: number;
  /** Largest accepted uploaded file, in bytes. */
  readonly uploadLimit: number;
  /** Every other limit on what a client may send or hold (`limits.ts`). */
  readonly limits: Limits;
  /** Where uploaded files are kept: `CMS_DATA_DIR/uploads`, or an S3-compatible bucket. */
  readonly fileStorage: FileStorageConfig;
  /** Endpoints told of document changes (types not yet checked against the piece types). */
  readonly webhooks: readonly WebhookEndpointConfig[];
  readonly dataDir: string;
  readonly databaseUrl: string;
  /** Most connections to PostgreSQL per process (CMS_DATABASE_POOL_SIZE); undefined: the adapter's default. */
  readonly databasePoolSize: number | undefined;
  /** PostgreSQL read replicas (CMS_DATABASE_READ_URL): where GET requests' lock-free reads may go. */
  readonly databaseReadUrls: readonly string[];
  readonly port: number;
  readonly host: string;
  /** The bundled demo is served with its published API keys (local use only; `main.ts` warns). */
  readonly publicDemoKeys: boolean;
  /** Proxies whose `X-Forwarded-For` names the client (CMS_TRUST_PROXY); `false`: the socket's address is the client's. */
  readonly trustProxy: TrustProxy;
  /**
   * Origins whose pages may send credentials and write (`cors.origins`, CMS_CORS_ORIGINS), as
   * browsers send them in `Origin`; every other origin may only read anonymously.
   */
  readonly corsOrigins: readonly string[];
  /**
   * User fields `whoami` answers besides `_id`, `username`, `title` and `email` (`login.whoamiFields`,
   * the original's login option); checked against the user type by content.
   */
  readonly whoamiFields: readonly string[];
  /** Second factors (`login.totp`): the roles that must sign in with TOTP, the issuer apps show. */
  readonly totp: TotpConfig;
  /** The mail the server sends (`mail`, CMS_MAIL_SMTP, CMS_MAIL_FROM); null: none, password resets are not mailed. */
  readonly mail: MailConfig | null;
  /**
   * The MCP server (`mcp.anonymous`): whether callers without an API key or token may use it,
   * as anonymous readers of the public projections. Off by default: an agent without a credential is refused (401).
   */
  readonly mcp: { readonly anonymous: boolean };
  readonly logLevel: string;
  /** Server processes sharing the port (CMS_WORKERS): above 1, `main.ts` starts a primary that forks them. */
  readonly workers: number;
}
