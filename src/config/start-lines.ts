import { join } from 'node:path';
import type { LoadedConfig } from './config-types.js';
import type { FileStorageConfig } from './file-storage-config.js';
import { listenOrigin } from './link-base.js';

/** One log line of the start: `msg` is the readable part, `data` the same facts as fields. */
export interface StartLine {
  readonly msg: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** What the start lines name, of the whole configuration. */
export type StartFacts = Pick<LoadedConfig, 'configSource' | 'host' | 'baseUrl' | 'databaseUrl' | 'fileStorage' | 'dataDir'>;

/**
 * What a start says, once the server listens on `port`: where the configuration came from, the
 * piece types, the store, the file storage, where links point and the URL to open. Nothing
 * secret: no password of the database URL, no S3 key, no API key.
 */
export function startLines(config: StartFacts, pieceTypeNames: readonly string[], port: number): StartLine[] {
  const origin = listenOrigin(config.host, port);
  return [
    { msg: `Configuration: ${config.configSource}`, data: { configSource: config.configSource } },
    { msg: `Piece types (${pieceTypeNames.length}): ${pieceTypeNames.join(', ')}`, data: { pieceTypes: pieceTypeNames } },
    storeLine(config.databaseUrl),
    fileStorageLine(config.fileStorage, config.dataDir),
    linksLine(config.baseUrl, origin),
    { msg: `Open ${origin}/admin (the API is at ${origin}/api/v1)`, data: { admin: `${origin}/admin`, api: `${origin}/api/v1` } },
  ];
}

/** The store without the credentials or options of its URL. */
function storeLine(databaseUrl: string): StartLine {
  if (databaseUrl.startsWith('sqlite:')) {
    const file = databaseUrl.slice('sqlite:'.length);
    return { msg: `Store: SQLite file ${file}`, data: { store: 'sqlite', file } };
  }
  const url = URL.canParse(databaseUrl) ? new URL(databaseUrl) : null;
  if (url === null) return { msg: 'Store: PostgreSQL', data: { store: 'postgres' } };
  const database = decodeURIComponent(url.pathname.slice(1)) || '(the default database)';
  const host = url.host || 'localhost';
  const user = decodeURIComponent(url.username);
  return {
    msg: `Store: PostgreSQL database ${database} on ${host}${user ? ` as ${user}` : ''}`,
    data: { store: 'postgres', host, database, ...(user ? { user } : {}) },
  };
}

function fileStorageLine(files: FileStorageConfig, dataDir: string): StartLine {
  if (files.kind === 'local') {
    const dir = join(dataDir, 'uploads');
    return { msg: `Files: local directory ${dir}`, data: { fileStorage: 'local', dir } };
  }
  const where = files.endpoint === undefined ? `AWS region ${files.region}` : withoutCredentials(files.endpoint);
  const linked = files.publicUrl === undefined ? 'served by this server' : `linked at ${withoutCredentials(files.publicUrl)}`;
  return {
    msg: `Files: S3 bucket ${files.bucket} at ${where}, ${linked}`,
    data: { fileStorage: 's3', bucket: files.bucket, region: files.region, ...(files.endpoint ? { endpoint: withoutCredentials(files.endpoint) } : {}) },
  };
}

function linksLine(baseUrl: string | null, origin: string): StartLine {
  if (baseUrl === null) {
    return {
      msg: `Links (_url, attachment _urls, redirects) start at ${origin}: set baseUrl (or CMS_BASE_URL) when clients reach this server at another address, such as behind a proxy`,
      data: { links: origin },
    };
  }
  if (baseUrl === '') return { msg: 'Links (_url, attachment _urls, redirects) are relative: baseUrl is ""', data: { links: '' } };
  return { msg: `Links (_url, attachment _urls, redirects) start at ${baseUrl}, the configured baseUrl`, data: { links: baseUrl } };
}

/** A URL as it may be logged: user and password removed (an endpoint may carry them). */
function withoutCredentials(value: string): string {
  if (!URL.canParse(value)) return value;
  const url = new URL(value);
  url.username = '';
  url.password = '';
  return url.toString().replace(/\/$/, '');
}
