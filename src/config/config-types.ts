import type { Role } from '../content/access/principal.js';
import type { SanitizedPieceType, SanitizedField } from '../content/types/piece-type.js';
import type { Limits } from './limits.js';

export interface LocaleConfig {
  readonly label: string;
  /** URL prefix of the locale's pages; the default locale has none unless configured. */
  readonly prefix: string;
}

/** The configuration after validation at start: frozen, trusted everywhere else. */
export interface AppConfig {
  readonly baseUrl: string;
  readonly locales: ReadonlyMap<string, LocaleConfig>;
  readonly defaultLocale: string;
  readonly apiKeys: ReadonlyMap<string, { readonly role: Role }>;
  readonly pieceTypes: ReadonlyMap<string, SanitizedPieceType>;
  /** Widget types usable in areas; `@cms/rich-text` is always there. */
  readonly widgetTypes: ReadonlyMap<string, { readonly fields: readonly SanitizedField[] }>;
  /** Largest accepted JSON body, in bytes. */
  readonly bodyLimit: number;
  /** Largest accepted uploaded file, in bytes. */
  readonly uploadLimit: number;
  /** Every other limit on what a client may send or hold (`limits.ts`). */
  readonly limits: Limits;
  readonly dataDir: string;
  readonly databaseUrl: string;
  /** Most connections to PostgreSQL per process (CMS_DATABASE_POOL_SIZE); undefined: the adapter's default. */
  readonly databasePoolSize: number | undefined;
  readonly port: number;
  readonly host: string;
  /** The bundled demo is served with its published API keys (local use only; `main.ts` warns). */
  readonly publicDemoKeys: boolean;
  readonly logLevel: string;
}
