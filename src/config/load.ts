import { Type, type Static } from '@sinclair/typebox';
import type { Role } from '../core/principal.js';
import type { LoadedConfig, LocaleConfig } from './config-types.js';
import { ConfigError } from '../errors/app-error.js';
import { assertMatches, isPlainObject, joinPath, roleSchema } from './schema-check.js';
import { deepFreeze } from './deep-freeze.js';
import { minimumApiKeyLength, readEnvironment, readTrustProxy, shortKeyMessage, type TrustProxy } from './env.js';
import { isBundledDemo, readConfigSource } from './config-file.js';
import { limitsSchema, resolveLimits } from './limits.js';
import { absoluteHttpUrl } from './http-url.js';
import { s3Schema, resolveFileStorage } from './file-storage-config.js';
import { resolveWebhooks, webhooksSchema } from './webhooks-config.js';
import { corsSchema, resolveCorsOrigins } from './cors-config.js';
import { mailSchema, resolveMail, resolveTotp, totpSchema } from './account-config.js';

export interface LoadConfigOptions {
  /** Defaults to process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Directory relative paths are resolved against; defaults to process.cwd(). */
  readonly cwd?: string;
  /** An already-built configuration object (tests); CMS_CONFIG and the default file are then ignored. */
  readonly config?: unknown;
}

export const defaultBodyLimit = 16 * 1024 * 1024;
/** 50 MiB: room for camera photos and office documents, small enough to refuse a runaway upload. */
export const defaultUploadLimit = 50 * 1024 * 1024;

const localeNamePattern = /^[a-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/;

export const topLevelSchema = Type.Object(
  {
    baseUrl: Type.Optional(Type.String({ errorMessage: 'must be a string' })),
    locales: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Object(
          {
            label: Type.Optional(Type.String({ minLength: 1, errorMessage: 'must be a non-empty string' })),
            prefix: Type.Optional(
              Type.String({ pattern: '^(/[^/\\s?#]+)*$', errorMessage: 'must be "" or start with "/" and not end with "/"' }),
            ),
            fallback: Type.Optional(Type.String({ minLength: 1, errorMessage: 'must be the name of another locale' })),
          },
          { additionalProperties: false },
        ),
        { errorMessage: 'must be an object mapping locale names to { label, prefix, fallback }' },
      ),
    ),
    defaultLocale: Type.Optional(Type.String({ errorMessage: 'must be a string' })),
    // Entries are checked by sanitizeApiKeys, which names them by position: a key path would print the key.
    apiKeys: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { errorMessage: 'must be an object mapping keys to { role }' })),
    // Checked by the piece-type and widget sanitizers, which know the field types.
    modules: Type.Optional(Type.Unknown()),
    widgets: Type.Optional(Type.Unknown()),
    bodyLimit: Type.Optional(Type.Integer({ minimum: 1, errorMessage: 'must be a positive integer number of bytes' })),
    uploadLimit: Type.Optional(Type.Integer({ minimum: 1, errorMessage: 'must be a positive integer number of bytes' })),
    limits: Type.Optional(limitsSchema),
    s3: Type.Optional(s3Schema),
    webhooks: Type.Optional(webhooksSchema),
    cors: Type.Optional(corsSchema),
    // The mail the server sends (password resets).
    mail: Type.Optional(mailSchema),
    // The names are checked against the user type's fields by content (`app-config.ts`).
    login: Type.Optional(
      Type.Object(
        {
          whoamiFields: Type.Optional(Type.Array(Type.String(), { errorMessage: 'must be a list of user field names' })),
          // Second factors (src/auth/account-security.ts): the roles that must use TOTP.
          totp: Type.Optional(totpSchema),
        },
        { additionalProperties: false, errorMessage: 'must be an object { whoamiFields, totp }' },
      ),
    ),
    // The MCP server (`/api/v1/@cms/mcp`, `cms mcp`): whether callers without a key or token may use it.
    mcp: Type.Optional(
      Type.Object(
        { anonymous: Type.Optional(Type.Boolean({ errorMessage: 'must be true or false' })) },
        { additionalProperties: false, errorMessage: 'must be an object { anonymous }' },
      ),
    ),
    trustProxy: Type.Optional(
      Type.Union([Type.Boolean(), Type.String()], {
        errorMessage: 'must be true, false or a comma-separated list of addresses and networks',
      }),
    ),
  },
  { additionalProperties: false },
);

type RawConfig = Static<typeof topLevelSchema>;

function checkTopLevel(raw: unknown): RawConfig {
  if (!isPlainObject(raw)) {
    throw new ConfigError('', 'the configuration must be an object');
  }
  assertMatches(topLevelSchema, raw, '');
  return raw;
}

function sanitizeLocales(raw: RawConfig): { locales: Map<string, LocaleConfig>; defaultLocale: string } {
  const configured = raw.locales ?? { en: { label: 'English' } };
  const names = Object.keys(configured);
  if (names.length === 0) throw new ConfigError('locales', 'at least one locale is needed');
  for (const name of names) {
    if (!localeNamePattern.test(name)) {
      throw new ConfigError(joinPath('locales', name), 'a locale name looks like "en", "es" or "pt-BR"');
    }
  }
  const defaultLocale = raw.defaultLocale ?? names[0];
  if (!names.includes(defaultLocale)) {
    throw new ConfigError('defaultLocale', `"${defaultLocale}" is not one of the locales (${names.join(', ')})`);
  }
  const locales = new Map<string, LocaleConfig>();
  const prefixOwners = new Map<string, string>();
  for (const [name, locale] of Object.entries(configured)) {
    const prefix = locale.prefix ?? (name === defaultLocale ? '' : `/${name}`);
    const owner = prefixOwners.get(prefix);
    if (owner !== undefined) {
      throw new ConfigError(joinPath('locales', `${name}.prefix`), `"${prefix}" is already the prefix of "${owner}"`);
    }
    prefixOwners.set(prefix, name);
    locales.set(name, { label: locale.label ?? name, prefix, fallbacks: fallbackChain(configured, name) });
  }
  return { locales, defaultLocale };
}

/**
 * The locales a locale falls back to, in order (`es-mx` → `es` → `en`: `['es', 'en']`), resolved
 * once at start. A fallback that names no locale, or a chain that comes back to a locale it
 * passed, stops the start.
 */
function fallbackChain(configured: NonNullable<RawConfig['locales']>, name: string): string[] {
  const chain: string[] = [];
  for (let next = configured[name]!.fallback; next !== undefined; next = configured[next]!.fallback) {
    const path = joinPath('locales', `${chain.at(-1) ?? name}.fallback`);
    if (!Object.hasOwn(configured, next)) throw new ConfigError(path, `"${next}" is not one of the locales (${Object.keys(configured).join(', ')})`);
    if (next === name || chain.includes(next)) throw new ConfigError(path, `the fallbacks go round in a circle: ${[name, ...chain, next].join(' → ')}`);
    chain.push(next);
  }
  return chain;
}

const apiKeyEntrySchema = Type.Object({ role: roleSchema }, { additionalProperties: false });

function sanitizeApiKeys(raw: RawConfig): Map<string, { role: Role }> {
  const keys = new Map<string, { role: Role }>();
  for (const [index, [key, entry]] of Object.entries(raw.apiKeys ?? {}).entries()) {
    const where = `entry ${index + 1}`;
    try {
      assertMatches(apiKeyEntrySchema, entry, '');
    } catch (error) {
      throw new ConfigError('apiKeys', `${where}: ${(error as Error).message}`);
    }
    if (key.length < minimumApiKeyLength) throw new ConfigError('apiKeys', shortKeyMessage(where, key, entry.role));
    keys.set(key, { role: entry.role });
  }
  return keys;
}

/** '' (relative URLs) or an absolute http(s) URL, kept without a trailing "/" so paths can be appended. */
function sanitizeBaseUrl(value: string, path: string): string {
  return value === '' ? '' : absoluteHttpUrl(value, path);
}

function trustProxyOf(value: RawConfig['trustProxy']): TrustProxy {
  return typeof value === 'string' ? (readTrustProxy('trustProxy', value) ?? false) : (value ?? false);
}

/**
 * Reads the environment and the configuration file, validates both (all but `modules` and
 * `widgets`, left to content), and returns the frozen result.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const cwd = options.cwd ?? process.cwd();
  const settings = readEnvironment(options.env ?? process.env, cwd);
  const { raw: source, description: configSource } =
    options.config !== undefined ? { raw: options.config, description: 'given by the caller' } : await readConfigSource(settings.configPath, cwd);
  const raw = checkTopLevel(source);
  // The demo's keys are in the README: while they open the API, only this machine may reach it.
  const publicDemoKeys = isBundledDemo(source) && settings.apiKeys === undefined;
  const { locales, defaultLocale } = sanitizeLocales(raw);
  const baseUrl = settings.baseUrl !== undefined
    ? sanitizeBaseUrl(settings.baseUrl, 'CMS_BASE_URL')
    : raw.baseUrl === undefined ? null : sanitizeBaseUrl(raw.baseUrl, 'baseUrl');
  return deepFreeze({
    baseUrl,
    configSource,
    locales,
    defaultLocale,
    apiKeys: settings.apiKeys ?? sanitizeApiKeys(raw),
    modules: raw.modules,
    widgets: raw.widgets,
    bodyLimit: settings.bodyLimit ?? raw.bodyLimit ?? defaultBodyLimit,
    uploadLimit: settings.uploadLimit ?? raw.uploadLimit ?? defaultUploadLimit,
    limits: resolveLimits(raw.limits, options.env ?? process.env),
    fileStorage: resolveFileStorage(raw.s3, options.env ?? process.env),
    webhooks: resolveWebhooks(raw.webhooks, options.env ?? process.env, (value, path) => assertMatches(webhooksSchema, value, path)),
    dataDir: settings.dataDir,
    databaseUrl: settings.databaseUrl,
    databasePoolSize: settings.databasePoolSize,
    databaseReadUrls: settings.databaseReadUrls,
    port: settings.port,
    host: settings.host ?? (publicDemoKeys ? '127.0.0.1' : '0.0.0.0'),
    publicDemoKeys,
    trustProxy: settings.trustProxy ?? trustProxyOf(raw.trustProxy),
    corsOrigins: resolveCorsOrigins(raw.cors, options.env ?? process.env),
    whoamiFields: raw.login?.whoamiFields ?? [],
    totp: resolveTotp(raw.login?.totp),
    mail: resolveMail(raw.mail, options.env ?? process.env),
    mcp: { anonymous: raw.mcp?.anonymous ?? false },
    logLevel: settings.logLevel,
    workers: settings.workers,
  });
}
