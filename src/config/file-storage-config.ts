import { Type, type Static } from '@sinclair/typebox';
import { ConfigError } from '../errors/app-error.js';
import { absoluteHttpUrl } from './http-url.js';

/** Where uploaded files are kept. */
export type FileStorageConfig = { readonly kind: 'local' } | S3Config;

export interface S3Config {
  readonly kind: 's3';
  readonly bucket: string;
  readonly region: string;
  /** An S3-compatible service's URL; undefined: AWS. */
  readonly endpoint: string | undefined;
  readonly forcePathStyle: boolean;
  /** Undefined: the standard AWS chain (AWS_* variables, shared files, instance or task roles). */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | undefined;
  /** Where files are linked from (`<publicUrl>/<key>`); undefined: through the server's `/uploads/`. */
  readonly publicUrl: string | undefined;
}

// S3's rules for bucket names (3 to 63 lowercase letters, digits, dots and hyphens), which every compatible service accepts.
const bucketPattern = '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$';
const regionPattern = '^[a-z0-9][a-z0-9-]{0,63}$';
const defaultRegion = 'us-east-1';

/** The `s3` section of the configuration file. Credentials are not taken from it: they belong in the environment. */
export const s3Schema = Type.Object(
  {
    bucket: Type.String({ pattern: bucketPattern, errorMessage: 'must be a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens' }),
    region: Type.Optional(Type.String({ pattern: regionPattern, errorMessage: 'must be a region name such as "eu-west-1" or "auto"' })),
    endpoint: Type.Optional(Type.String({ errorMessage: 'must be a URL string' })),
    forcePathStyle: Type.Optional(Type.Boolean({ errorMessage: 'must be true or false' })),
    publicUrl: Type.Optional(Type.String({ errorMessage: 'must be a URL string' })),
  },
  { additionalProperties: false, errorMessage: 'must be an object { bucket, region, endpoint, forcePathStyle, publicUrl }' },
);

type Environment = Readonly<Record<string, string | undefined>>;

function valueOf(env: Environment, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function checked(name: string, value: string | undefined, pattern: string, what: string): string | undefined {
  if (value !== undefined && !new RegExp(pattern).test(value)) throw new ConfigError(name, `must be ${what}, not "${value}"`);
  return value;
}

function readBoolean(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw new ConfigError(name, `must be true or false, not "${value}"`);
  return value === 'true';
}

/** Both keys or neither; a message never repeats a key. */
function readCredentials(env: Environment): S3Config['credentials'] {
  const accessKeyId = valueOf(env, 'CMS_S3_ACCESS_KEY_ID');
  const secretAccessKey = valueOf(env, 'CMS_S3_SECRET_ACCESS_KEY');
  if (accessKeyId === undefined && secretAccessKey === undefined) return undefined;
  if (accessKeyId === undefined) throw new ConfigError('CMS_S3_ACCESS_KEY_ID', 'is needed with CMS_S3_SECRET_ACCESS_KEY');
  if (secretAccessKey === undefined) throw new ConfigError('CMS_S3_SECRET_ACCESS_KEY', 'is needed with CMS_S3_ACCESS_KEY_ID');
  return { accessKeyId, secretAccessKey };
}

/** The variable's URL over the file's, checked under the name it came from. */
function urlSetting(env: Environment, variable: string, filePath: string, fileValue: string | undefined): string | undefined {
  const fromEnv = valueOf(env, variable);
  if (fromEnv !== undefined) return absoluteHttpUrl(fromEnv, variable);
  return fileValue === undefined ? undefined : absoluteHttpUrl(fileValue, filePath);
}

const s3Variables = [
  'CMS_S3_REGION', 'CMS_S3_ENDPOINT', 'CMS_S3_FORCE_PATH_STYLE', 'CMS_S3_PUBLIC_URL', 'CMS_S3_ACCESS_KEY_ID', 'CMS_S3_SECRET_ACCESS_KEY',
] as const;

/**
 * A bucket (CMS_S3_BUCKET, else the file's `s3.bucket`) chooses S3; each CMS_S3_* variable
 * overrides its key of the file's section. Without a bucket, files stay local, and a stray S3
 * setting stops the start rather than being ignored.
 */
export function resolveFileStorage(fromFile: Static<typeof s3Schema> | undefined, env: Environment): FileStorageConfig {
  const bucket = checked('CMS_S3_BUCKET', valueOf(env, 'CMS_S3_BUCKET'), bucketPattern, 'a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens') ?? fromFile?.bucket;
  if (bucket === undefined) {
    const stray = s3Variables.find((name) => valueOf(env, name) !== undefined);
    if (stray) throw new ConfigError(stray, 'is set but no bucket is: set CMS_S3_BUCKET (or s3.bucket in the configuration file)');
    return { kind: 'local' };
  }
  const endpoint = urlSetting(env, 'CMS_S3_ENDPOINT', 's3.endpoint', fromFile?.endpoint);
  return {
    kind: 's3',
    bucket,
    region: checked('CMS_S3_REGION', valueOf(env, 'CMS_S3_REGION'), regionPattern, 'a region name such as "eu-west-1" or "auto"') ?? fromFile?.region ?? defaultRegion,
    endpoint,
    // Self-hosted services (MinIO, s3rver) rarely resolve bucket subdomains; AWS prefers them.
    forcePathStyle: readBoolean('CMS_S3_FORCE_PATH_STYLE', valueOf(env, 'CMS_S3_FORCE_PATH_STYLE')) ?? fromFile?.forcePathStyle ?? endpoint !== undefined,
    credentials: readCredentials(env),
    publicUrl: urlSetting(env, 'CMS_S3_PUBLIC_URL', 's3.publicUrl', fromFile?.publicUrl),
  };
}
