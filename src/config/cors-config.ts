import { Type, type Static } from '@sinclair/typebox';
import { ConfigError } from '../errors/app-error.js';
import { joinPath } from './schema-check.js';

/**
 * The `cors` section of the configuration file: the origins whose pages may send credentials
 * (`Authorization`: API keys, bearer tokens) and write. Every other origin may only read anonymously.
 */
export const corsSchema = Type.Object(
  { origins: Type.Array(Type.String(), { errorMessage: 'must be a list of origins such as "https://www.example.com"' }) },
  { additionalProperties: false, errorMessage: 'must be an object { origins }' },
);

type Environment = Readonly<Record<string, string | undefined>>;

/** `https://www.example.com` as a browser sends it in `Origin`: scheme, host and port, nothing else. */
function originOf(value: string, path: string): string {
  // "*" would hand any page the credentials; anonymous reads need no entry.
  if (value === '*') throw new ConfigError(path, '"*" is not allowed: every origin may already read anonymously; list the origins that may send credentials');
  const url = URL.canParse(value) ? new URL(value) : null;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new ConfigError(path, `"${value}" is not an http or https origin`);
  if (url.username || url.password || url.search || url.hash || url.pathname !== '/') {
    throw new ConfigError(path, `"${value}" must be an origin only (scheme, host and port), like "${url.origin}"`);
  }
  return url.origin;
}

/** The checked origins: CMS_CORS_ORIGINS (comma-separated; empty: none) when set, else the file's `cors.origins`. */
export function resolveCorsOrigins(fromFile: Static<typeof corsSchema> | undefined, env: Environment): readonly string[] {
  const variable = env.CMS_CORS_ORIGINS;
  if (variable !== undefined) {
    const entries = variable.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
    return entries.map((entry) => originOf(entry, 'CMS_CORS_ORIGINS'));
  }
  return (fromFile?.origins ?? []).map((entry, index) => originOf(entry, joinPath('cors.origins', String(index))));
}
