import { t } from '../i18n';
import type { ErrorBody } from './types';

/**
 * The admin's only way to the server: the public REST interface under /api/v1, authenticated by
 * the session cookie. Writes carry the session's CSRF token (the server refuses them otherwise).
 */
export const apiBase = '/api/v1';

let csrfToken: string | undefined;

/** Set at sign-in and by whoami; cleared at sign-out. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** A refusal from the server, carrying its `{ name, message, data }` body. */
export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody;

  constructor(status: number, body: ErrorBody) {
    super(body.message || t('errors.requestFailed', { status }));
    this.status = status;
    this.body = body;
  }

  /** `data.errors[]` of a validation refusal: one message per field path. */
  get fieldErrors(): ReadonlyMap<string, string> {
    return new Map((this.body.data?.errors ?? []).map((error) => [error.path, error.message]));
  }
}

export type Query = Record<string, string | number | boolean | readonly (string | number)[] | Record<string, string | number> | undefined>;

/** Encodes a query the way the server's qs parser reads it: `a[]=1&a[]=2`, `sort[title]=1`. */
export function queryString(query: Query = {}): string {
  const parts: string[] = [];
  const add = (key: string, value: string | number | boolean) =>
    parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) add(`${key}[]`, item);
    else if (typeof value === 'object') for (const [sub, item] of Object.entries(value)) add(`${key}[${sub}]`, item);
    else add(key, value as string | number | boolean);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

function isWrite(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD';
}

function headersFor(method: string, hasBody: boolean, options: RequestOptions): Record<string, string> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (hasBody) headers['Content-Type'] = 'application/json';
  if (isWrite(method) && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  if (options.ifMatch) headers['If-Match'] = options.ifMatch;
  if (options.ifNoneMatch) headers['If-None-Match'] = options.ifNoneMatch;
  return headers;
}

/**
 * The `ETag` each answer body came with, kept beside the body rather than in it, so the answers
 * keep their shapes and only the callers that chain writes (the editor) look the tag up.
 */
const answerTags = new WeakMap<object, string>();

/** The `ETag` of the answer `body` was parsed from (sent back exactly as received, suffix and all). */
export function etagOf(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null ? answerTags.get(body) : undefined;
}

async function errorFrom(response: Response): Promise<ApiError> {
  let body: ErrorBody;
  try {
    body = (await response.json()) as ErrorBody;
  } catch {
    body = { name: 'error', message: `${response.status} ${response.statusText}` };
  }
  return new ApiError(response.status, body);
}

export interface RequestOptions {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly query?: Query;
  readonly body?: unknown;
  readonly signal?: AbortSignal;
  /** The ETag of the version the write is based on: the server answers 412 when it changed since. */
  readonly ifMatch?: string;
  /** A read's: the ETag of the copy held; the answer is then undefined when it is still current (304). */
  readonly ifNoneMatch?: string;
  /** Lets the request outlive the page (a lock released on `pagehide`). */
  readonly keepalive?: boolean;
}

/** Calls `/api/v1<path>` and answers the parsed JSON body (undefined for an empty one). */
export async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const method = options.method ?? 'GET';
  const hasBody = options.body !== undefined;
  const response = await send(apiBase + path + queryString(options.query), {
    method,
    headers: headersFor(method, hasBody, options),
    body: hasBody ? JSON.stringify(options.body) : undefined,
    credentials: 'same-origin',
    signal: options.signal,
    keepalive: options.keepalive,
  });
  if (response.status === 304) return undefined as T;
  if (!response.ok) throw await errorFrom(response);
  const text = await response.text();
  const body = (text ? JSON.parse(text) : undefined) as T;
  const etag = response.headers.get('etag');
  if (etag && typeof body === 'object' && body !== null) answerTags.set(body, etag);
  return body;
}

/** fetch, with "no answer at all" (offline, server down) as an ApiError the UI can name. */
async function send(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, { name: 'network', message: t('errors.unreachable') });
  }
}

/**
 * Multipart upload with progress (fetch cannot report upload progress), to
 * POST /api/v1/@cms/attachment/upload. `onProgress` gets a fraction from 0 to 1.
 */
export function uploadFile<T>(file: File, onProgress?: (fraction: number) => void, signal?: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${apiBase}/@cms/attachment/upload`);
    xhr.setRequestHeader('Accept', 'application/json');
    if (csrfToken) xhr.setRequestHeader('X-CSRF-Token', csrfToken);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress?.(event.loaded / event.total);
    };
    xhr.onload = () => {
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = { name: 'error', message: `${xhr.status} ${xhr.statusText}` };
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as T);
      else reject(new ApiError(xhr.status, body as ErrorBody));
    };
    xhr.onerror = () => reject(new ApiError(0, { name: 'network', message: t('errors.uploadUnreachable') }));
    signal?.addEventListener('abort', () => xhr.abort());
    xhr.onabort = () => reject(new DOMException('Upload cancelled', 'AbortError'));
    const form = new FormData();
    form.append('file', file);
    xhr.send(form);
  });
}
