import assert from 'node:assert/strict';
import fc from 'fast-check';
import { keys, type TestApp } from './test-app.js';

/**
 * Requests for the generated hostile-input test, described as data (so fast-check can print and
 * shrink them) with placeholders for ids that only exist at run time: `@@SELF@@` is the target
 * document, `@@WIDGET@@` and `@@LINK@@` items inside it, `@@ATTACHMENT@@` an attachment,
 * `@@USER@@` a user, `@@OTHER@@` another document, `@@TOKEN@@` a bearer token.
 */
export interface HostileRequest {
  readonly method: string;
  readonly path: string;
  /** Without the `?`; already encoded. */
  readonly query: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly payload?: string;
  /** A multipart body, sent as bytes. */
  readonly bytes?: Buffer;
}

export type Placeholders = Readonly<Record<'SELF' | 'WIDGET' | 'LINK' | 'ATTACHMENT' | 'USER' | 'OTHER' | 'TOKEN', string>>;

export const placeholder = fc.constantFrom('@@SELF@@', '@@WIDGET@@', '@@LINK@@', '@@ATTACHMENT@@', '@@USER@@', '@@OTHER@@');

function fill(text: string, values: Placeholders): string {
  return text.replace(/@@(SELF|WIDGET|LINK|ATTACHMENT|USER|OTHER|TOKEN)@@/g, (_match, name: keyof Placeholders) => values[name]);
}

/** Who asks. `query` is prepended to the request's own query string. */
export interface Credential {
  readonly label: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly query: string;
}

const credential = (label: string, authorization?: string, query = ''): Credential => ({
  label,
  headers: authorization === undefined ? {} : { authorization },
  query,
});

/** Credentials that may write nothing at all: none, guest (key or bearer token), and every kind of wrong key. */
export const noWriteCredentials: readonly Credential[] = [
  credential('anonymous'),
  credential('guest key', `ApiKey ${keys.guest}`),
  credential('guest key in query', undefined, `apikey=${keys.guest}`),
  credential('guest bearer token', 'Bearer @@TOKEN@@'),
  credential('wrong key', 'ApiKey wrong-key-0123456789'),
  credential('admin key plus a character', `ApiKey ${keys.admin}x`),
  credential('admin key without its last character', `ApiKey ${keys.admin.slice(0, -1)}`),
  credential('admin key in upper case', `ApiKey ${keys.admin.toUpperCase()}`),
  credential('admin key as a bearer token', `Bearer ${keys.admin}`),
  credential('admin key with Basic', `Basic ${Buffer.from(`admin:${keys.admin}`).toString('base64')}`),
  credential('admin key in an unknown scheme', `Token ${keys.admin}`),
  credential('scheme only', 'ApiKey'),
  credential('huge key', `ApiKey ${'k'.repeat(100_000)}`),
  credential('empty query key', undefined, 'apikey='),
  credential('admin key as a query array', undefined, `apikey[]=${keys.admin}`),
  credential('admin key as a query object', undefined, `apiKey[a]=${keys.admin}`),
  credential('wrong query key beside the admin header', `ApiKey ${keys.admin}`, 'apikey=wrong-key-0123456789'),
  credential('bearer token plus junk', 'Bearer @@TOKEN@@x'),
];

export const contributor = credential('contributor key', `ApiKey ${keys.contributor}`);
export const editor = credential('editor key', `ApiKey ${keys.editor}`);
export const admin = credential('admin key', `ApiKey ${keys.admin}`);

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  readonly text: string;
}

/** Sends one request through inject with the placeholders filled in. */
export async function send(t: TestApp, request: HostileRequest, values: Placeholders): Promise<Answer> {
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, fill(value, values)]));
  const query = fill(request.query, values);
  const response = await t.app.inject({
    method: request.method as 'GET',
    url: `${fill(request.path, values)}${query === '' ? '' : `?${query}`}`,
    headers,
    payload: request.bytes ?? (request.payload === undefined ? undefined : fill(request.payload, values)),
  });
  return { status: response.statusCode, headers: response.headers, text: response.body };
}

/** A short description for assertion messages: enough to reproduce, never megabytes. */
export function describeRequest(request: HostileRequest, answer?: Answer): string {
  const cut = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…(${text.length} chars)` : text);
  const headers = Object.entries(request.headers).map(([name, value]) => `${name}: ${cut(value)}`);
  const sent = `${request.method} ${cut(request.path)}?${cut(request.query)} [${headers.join('; ')}] ${cut(request.payload ?? '')}`;
  return answer ? `${sent} → ${answer.status} ${cut(answer.text)}` : sent;
}

/** The one error shape: exactly `{ name, message, data }`, strings and an object, served as JSON. */
export function assertErrorShape(request: HostileRequest, answer: Answer): void {
  const where = describeRequest(request, answer);
  assert.match(String(answer.headers['content-type']), /^application\/json/, where);
  let body: unknown;
  assert.doesNotThrow(() => (body = JSON.parse(answer.text)), where);
  assert.ok(typeof body === 'object' && body !== null && !Array.isArray(body), where);
  const error = body as Record<string, unknown>;
  assert.deepEqual(Object.keys(error).sort(), ['data', 'message', 'name'], where);
  assert.equal(typeof error.name, 'string', where);
  assert.equal(typeof error.message, 'string', where);
  assert.ok(typeof error.data === 'object' && error.data !== null && !Array.isArray(error.data), where);
}

/** Never a 5xx; every refusal in the one error shape (HEAD answers carry no body). */
export function assertAnswered(request: HostileRequest, answer: Answer): void {
  assert.ok(answer.status < 500, describeRequest(request, answer));
  if (answer.status >= 400 && request.method !== 'HEAD') assertErrorShape(request, answer);
}

/** A refusal: the write must not have happened. */
export function assertRefused(request: HostileRequest, answer: Answer): void {
  assertAnswered(request, answer);
  assert.ok(answer.status >= 400, `a write without the right succeeded: ${describeRequest(request, answer)}`);
}

/** Merges a credential into a request, which fast-check then prints as `describeRequest` does. */
export function withCredential(request: Omit<HostileRequest, 'headers'> & { headers?: Record<string, string> }, who: Credential): HostileRequest {
  const query = [who.query, request.query].filter((part) => part !== '').join('&');
  const merged: HostileRequest = { ...request, query, headers: { ...(request.headers ?? {}), ...who.headers } };
  return Object.defineProperty(merged, fc.toStringMethod, { value: () => describeRequest(merged), enumerable: false });
}
