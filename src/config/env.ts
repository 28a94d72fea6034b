import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { roles, type Role } from '../core/principal.js';
import { ConfigError } from '../errors/app-error.js';

type Environment = Readonly<Record<string, string | undefined>>;

/** What the environment decides; `undefined` leaves the choice to the configuration file. */
export interface EnvironmentSettings {
  readonly port: number;
  /** HOST; undefined leaves the choice to `loadConfig` (loopback while the demo's public keys are served). */
  readonly host: string | undefined;
  /** Absolute path named by CMS_CONFIG, or undefined to look for the default file. */
  readonly configPath: string | undefined;
  readonly dataDir: string;
  readonly databaseUrl: string;
  /** Most connections to PostgreSQL per process; undefined leaves the adapter's default. */
  readonly databasePoolSize: number | undefined;
  readonly databaseReadUrls: readonly string[];
  readonly logLevel: string;
  readonly baseUrl: string | undefined;
  readonly apiKeys: Map<string, { role: Role }> | undefined;
  readonly bodyLimit: number | undefined;
  readonly uploadLimit: number | undefined;
  readonly trustProxy: TrustProxy | undefined;
  /** Server processes sharing the port (CMS_WORKERS); 1: this process serves alone. */
  readonly workers: number;
}

/**
 * Which proxies in front of the server may say who the client is (`X-Forwarded-For`): none
 * (`false`), any (`true`: only when nothing else can reach the server), or these addresses and
 * networks. (Fastify 5 dropped hop counts: they cannot tell a proxy from a client.)
 */
export type TrustProxy = boolean | readonly string[];

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** Long enough that guessing is hopeless; shorter configured keys stop the start. */
export const minimumApiKeyLength = 16;

/** An empty variable counts as unset, except where an empty value means something. */
function valueOf(env: Environment, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function readPort(value: string | undefined): number {
  if (value === undefined) return 3000;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new ConfigError('PORT', `must be an integer from 0 to 65535, not "${value}"`);
  }
  return port;
}

function readConfigPath(value: string | undefined, cwd: string): string | undefined {
  if (value === undefined) return undefined;
  if (!/\.(json|js|mjs|ts|mts)$/.test(value)) {
    throw new ConfigError('CMS_CONFIG', `must name a .json, .js, .mjs, .ts or .mts file, not "${value}"`);
  }
  return resolve(cwd, value);
}

/**
 * SQLite URLs are normalized to `sqlite:<absolute path>` (or `sqlite::memory:`) so the store need
 * not know the cwd; PostgreSQL URLs are passed on as written. Messages never repeat the URL: it
 * may hold a password.
 */
function readDatabaseUrl(value: string | undefined, dataDir: string, cwd: string): string {
  if (value === undefined) return `sqlite:${resolve(dataDir, 'cms.sqlite')}`;
  if (/^postgres(ql)?:\/\//.test(value)) {
    if (!URL.canParse(value)) throw new ConfigError('CMS_DATABASE_URL', 'is not a valid PostgreSQL URL');
    return value;
  }
  if (!value.startsWith('sqlite:')) {
    throw new ConfigError('CMS_DATABASE_URL', 'must be "sqlite:<path>" or "postgres://…"');
  }
  const location = value.slice('sqlite:'.length).replace(/^\/\/(?=.)/, '');
  if (!location) throw new ConfigError('CMS_DATABASE_URL', 'names no database file');
  return location === ':memory:' ? 'sqlite::memory:' : `sqlite:${resolve(cwd, location)}`;
}

/**
 * The read replicas of a PostgreSQL store, comma-separated (docs/guides/read-replicas.md). An
 * empty value names none. Messages never repeat a URL: it may hold a password.
 */
function readReplicaUrls(value: string | undefined, databaseUrl: string | undefined): string[] {
  if (value === undefined) return [];
  const urls = value.split(',').map((url) => url.trim()).filter((url) => url !== '');
  if (urls.length === 0) return [];
  if (databaseUrl === undefined || !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('CMS_DATABASE_READ_URL', 'needs CMS_DATABASE_URL to name a PostgreSQL database');
  }
  urls.forEach((url, n) => {
    if (!/^postgres(ql)?:\/\//.test(url) || !URL.canParse(url)) {
      throw new ConfigError('CMS_DATABASE_READ_URL', `URL ${n + 1} is not a valid PostgreSQL URL`);
    }
    // The server watches each replica's own replay position: a pooler between would hide which one answers.
    if (/[?&]pgbouncer=/.test(url)) throw new ConfigError('CMS_DATABASE_READ_URL', `URL ${n + 1} names a pooler (pgbouncer=): name each replica directly`);
  });
  return urls;
}

function readPoolSize(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const size = Number(value);
  // Two at least: a transaction holds one while the reads it makes of committed data need another.
  if (!/^\d+$/.test(value) || size < 2 || size > 1000) {
    throw new ConfigError('CMS_DATABASE_POOL_SIZE', `must be an integer from 2 to 1000, not "${value}"`);
  }
  return size;
}

/** Most worker processes: far more than any machine has cores, few enough to catch a typo. */
export const maxWorkers = 256;

/** `auto` is one process per core the system gives this process. */
function readWorkers(value: string | undefined): number {
  if (value === undefined) return 1;
  if (value === 'auto') return Math.min(availableParallelism(), maxWorkers);
  const workers = Number(value);
  if (!/^\d+$/.test(value) || workers < 1 || workers > maxWorkers) {
    throw new ConfigError('CMS_WORKERS', `must be "auto" or an integer from 1 to ${maxWorkers}, not "${value}"`);
  }
  return workers;
}

function readLogLevel(value: string | undefined): string {
  if (value === undefined) return 'info';
  if (!(logLevels as readonly string[]).includes(value)) {
    throw new ConfigError('CMS_LOG_LEVEL', `must be one of ${logLevels.join(', ')}, not "${value}"`);
  }
  return value;
}

/**
 * `key1:role,key2:role`; the last ":" separates the role. Keys never appear in messages, entries
 * are named by position. An empty value replaces the configured keys with none.
 */
export function parseApiKeys(value: string | undefined): Map<string, { role: Role }> | undefined {
  if (value === undefined) return undefined;
  const keys = new Map<string, { role: Role }>();
  const entries = value.split(',').map((entry) => entry.trim()).filter(Boolean);
  entries.forEach((entry, index) => {
    const where = `entry ${index + 1}`;
    const separator = entry.lastIndexOf(':');
    if (separator < 0) throw new ConfigError('CMS_API_KEYS', `${where} is not "key:role"`);
    const key = entry.slice(0, separator).trim();
    const role = entry.slice(separator + 1).trim();
    if (!(roles as readonly string[]).includes(role)) {
      throw new ConfigError('CMS_API_KEYS', `${where} has role "${role}"; roles are ${roles.join(', ')}`);
    }
    if (key.length < minimumApiKeyLength) throw new ConfigError('CMS_API_KEYS', shortKeyMessage(where, key, role));
    if (keys.has(key)) throw new ConfigError('CMS_API_KEYS', `${where} repeats an earlier key`);
    keys.set(key, { role: role as Role });
  });
  return keys;
}

/** Names the entry and its role, never the key itself: the message ends up in logs. */
export function shortKeyMessage(where: string, key: string, role: string): string {
  return `${where} (role ${role}) is a key of ${key.length} characters; a key must be at least ${minimumApiKeyLength} characters long`;
}

function readByteLimit(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const limit = Number(value);
  if (!/^\d+$/.test(value) || limit < 1 || !Number.isSafeInteger(limit)) {
    throw new ConfigError(name, `must be a positive integer number of bytes, not "${value}"`);
  }
  return limit;
}

/** An IP address, or a network in CIDR form (`10.0.0.0/8`, `fd00::/8`). */
function isAddressOrNetwork(entry: string): boolean {
  const [address = '', prefix, extra] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128));
}

/** `true`, `false`, or a comma-separated list of addresses and CIDR networks. */
export function readTrustProxy(name: string, value: string | undefined): TrustProxy | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  const entries = value.split(',').map((entry) => entry.trim()).filter(Boolean);
  const bad = entries.find((entry) => !isAddressOrNetwork(entry));
  if (entries.length === 0 || bad !== undefined) {
    throw new ConfigError(name, `must be true, false, or addresses and networks such as "10.0.0.0/8,127.0.0.1", not "${bad ?? value}"`);
  }
  return entries;
}

export function readEnvironment(env: Environment, cwd: string): EnvironmentSettings {
  const dataDir = resolve(cwd, valueOf(env, 'CMS_DATA_DIR') ?? 'data');
  return {
    port: readPort(valueOf(env, 'PORT')),
    host: valueOf(env, 'HOST'),
    configPath: readConfigPath(valueOf(env, 'CMS_CONFIG'), cwd),
    dataDir,
    databaseUrl: readDatabaseUrl(valueOf(env, 'CMS_DATABASE_URL'), dataDir, cwd),
    databasePoolSize: readPoolSize(valueOf(env, 'CMS_DATABASE_POOL_SIZE')),
    databaseReadUrls: readReplicaUrls(valueOf(env, 'CMS_DATABASE_READ_URL'), valueOf(env, 'CMS_DATABASE_URL')),
    logLevel: readLogLevel(valueOf(env, 'CMS_LOG_LEVEL')),
    // An empty CMS_BASE_URL is meaningful: relative URLs.
    baseUrl: env.CMS_BASE_URL?.trim(),
    apiKeys: parseApiKeys(env.CMS_API_KEYS),
    bodyLimit: readByteLimit('CMS_BODY_LIMIT', valueOf(env, 'CMS_BODY_LIMIT')),
    trustProxy: readTrustProxy('CMS_TRUST_PROXY', valueOf(env, 'CMS_TRUST_PROXY')),
    uploadLimit: readByteLimit('CMS_UPLOAD_LIMIT', valueOf(env, 'CMS_UPLOAD_LIMIT')),
    workers: readWorkers(valueOf(env, 'CMS_WORKERS')),
  };
}
