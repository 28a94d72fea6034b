import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidRequestError } from '../../errors/app-error.js';

/** What a token is bound to: a token given for one of these is refused for any other. */
export interface SyncBinding {
  /** The route: a type's name, or `@cms` for every type. */
  readonly route: string;
  /** Who asked: the user, API key or anonymous caller, with the role it had. */
  readonly audience: string;
  readonly mode: string;
  readonly locale: string | null;
  /** The query's filters, in a canonical order. */
  readonly filters: string;
}

/**
 * Where a sync stands: `seq`, the change log's position its answers are complete up to; while
 * the first walk is under way (`walk`), the type it reads and the last `_id` it gave.
 */
export interface SyncPosition {
  readonly seq: number;
  readonly walk?: { readonly type: string; readonly after: string | null };
}

const bindingParts = ['route', 'audience', 'mode', 'locale', 'filters'] as const;
const partNames: Readonly<Record<(typeof bindingParts)[number], string>> = {
  route: 'another route',
  audience: 'another caller (or role)',
  mode: 'another cmsMode',
  locale: 'another cmsLocale',
  filters: 'other filters',
};

/** Short digests of the binding's parts: the token says which differs without showing who it was given to. */
function digestsOf(binding: SyncBinding): string[] {
  return bindingParts.map((part) => createHash('sha256').update(String(binding[part])).digest('base64url').slice(0, 12));
}

function signatureOf(key: string, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest();
}

/** An opaque token: base64url JSON of the position and the binding's digests, then its HMAC. */
export function encodeSyncToken(key: string, binding: SyncBinding, position: SyncPosition): string {
  const payload = Buffer.from(JSON.stringify({ p: position, b: digestsOf(binding) })).toString('base64url');
  return `${payload}.${signatureOf(key, payload).toString('base64url')}`;
}

/** The position of a token this server signed for this binding; anything else is a 400 saying why. */
export function decodeSyncToken(key: string, binding: SyncBinding, token: string, parameter: string): SyncPosition {
  const [payload, signature, extra] = token.split('.');
  const given = Buffer.from(signature ?? '', 'base64url');
  const expected = signatureOf(key, payload ?? '');
  if (extra !== undefined || !payload || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new InvalidRequestError(`${parameter} is not a token this server gave (changed or cut short)`, { parameter });
  }
  const { p: position, b: digests } = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { p: SyncPosition; b: string[] };
  const ours = digestsOf(binding);
  const differs = bindingParts.find((_part, index) => digests[index] !== ours[index]);
  if (differs) throw new InvalidRequestError(`${parameter} was given for ${partNames[differs]}: a token is valid only where it was given`, { parameter, differs });
  return position;
}
