import { ConfigError } from '../errors/app-error.js';

/** An absolute http(s) URL without query or fragment, kept without a trailing "/" so paths can be appended. */
export function absoluteHttpUrl(value: string, path: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(path, `"${value}" is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(path, 'must be an http or https URL');
  }
  if (url.search || url.hash) throw new ConfigError(path, 'must not have a query or a fragment');
  return value.replace(/\/+$/, '');
}
