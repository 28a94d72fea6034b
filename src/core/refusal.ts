import type { Principal, Role } from './principal.js';
import { ForbiddenError } from '../errors/app-error.js';

/** The ways to say who is calling, for a refusal to tell an anonymous caller. */
export const waysToAuthenticate: readonly string[] = [
  'Authorization: ApiKey <key>',
  '?apikey=<key>',
  'Authorization: Bearer <token> (from POST /api/v1/@cms/login/login)',
  "the admin's session cookie",
];

/**
 * The refusal of `action` to a caller below `needed`: an anonymous caller learns how to send
 * credentials, a known one which role the action needs. The status stays 403 either way.
 */
export function refusal(principal: Principal, needed: Role, action: string): ForbiddenError {
  if (principal.role === null) {
    return new ForbiddenError(
      `${action} needs an API key or a sign-in: send Authorization: ApiKey <key> (or ?apikey=<key>), ` +
        'or Authorization: Bearer <token> from POST /api/v1/@cms/login/login',
      { requiredRole: needed, authenticate: waysToAuthenticate },
    );
  }
  const who = principal.kind === 'apiKey' ? 'this API key' : 'this user';
  return new ForbiddenError(`${action} needs the ${needed} role or higher; ${who} has ${principal.role}`, {
    requiredRole: needed,
    role: principal.role,
  });
}
