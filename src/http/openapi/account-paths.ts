import type { AppConfig } from '../../content/app-config.js';
import type { JsonSchema } from '../../content/fields/value-schema.js';
import { recoveryCodeCount } from '../../auth/account-security.js';
import { jsonBody, jsonResponse, responses, security, type Operation } from './operations.js';

const tags = ['@cms/login'];
const string: JsonSchema = { type: 'string' };
const code: JsonSchema = { type: 'string', pattern: '^[0-9]{6}$', description: 'The current 6-digit code of the authenticator app' };
const setupToken: JsonSchema = { type: 'string', maxLength: 200, description: 'Instead of signing in: the `data.setupToken` of a `totp-setup-required` login' };
const signedIn = security({ anonymous: false, write: true });
const setupCaller = [{}, { BearerToken: [] }, { SessionCookie: [], CsrfToken: [] }];

/** The routes of `routes/account.ts`: TOTP second factors and password reset by mail. */
export function accountPaths(config: AppConfig): Record<string, Record<string, Operation>> {
  const { limits } = config;
  return {
    '/api/v1/@cms/login/totp': {
      get: {
        tags,
        operationId: 'totpStatus',
        summary: "Whether TOTP is on for the caller's account, and how many recovery codes are left",
        security: security({ anonymous: false, write: false }),
        responses: responses(
          {
            200: jsonResponse('', {
              type: 'object',
              required: ['enabled', 'pending', 'required', 'recoveryCodesLeft'],
              additionalProperties: false,
              properties: {
                enabled: { type: 'boolean' },
                pending: { type: 'boolean', description: 'Set up, not yet confirmed with a code' },
                required: { type: 'boolean', description: 'The role is in `login.totp.requiredRoles`: TOTP cannot be turned off' },
                recoveryCodesLeft: { type: 'integer', minimum: 0 },
              },
            }),
          },
          [],
          false,
        ),
      },
    },
    '/api/v1/@cms/login/totp/setup': {
      post: {
        tags,
        operationId: 'totpSetup',
        summary: 'A new TOTP secret, pending until confirmed with a code (`enable`)',
        description: 'For a signed-in user, or with the `setupToken` of a `totp-setup-required` login. 409 while TOTP is on.',
        security: setupCaller,
        requestBody: jsonBody({ type: 'object', properties: { setupToken } }, false),
        responses: responses(
          {
            200: jsonResponse('The secret (base32) and the `otpauth://` URI authenticator apps read', {
              type: 'object',
              required: ['secret', 'otpauthUrl'],
              additionalProperties: false,
              properties: { secret: string, otpauthUrl: { type: 'string', pattern: '^otpauth://totp/' } },
            }),
          },
          [409],
          true,
        ),
      },
    },
    '/api/v1/@cms/login/totp/enable': {
      post: {
        tags,
        operationId: 'totpEnable',
        summary: `Confirm the pending secret with a code: TOTP on, and ${recoveryCodeCount} single-use recovery codes, shown this once`,
        description: 'For a signed-in user, or with the `setupToken` (then used up: sign in again, with a code).',
        security: setupCaller,
        requestBody: jsonBody({ type: 'object', required: ['code'], properties: { code, setupToken } }),
        responses: responses(
          {
            200: jsonResponse('', {
              type: 'object',
              required: ['recoveryCodes'],
              additionalProperties: false,
              properties: { recoveryCodes: { type: 'array', items: string, minItems: recoveryCodeCount, maxItems: recoveryCodeCount } },
            }),
          },
          [409],
          true,
        ),
      },
    },
    '/api/v1/@cms/login/totp/disable': {
      post: {
        tags,
        operationId: 'totpDisable',
        summary: 'Turn TOTP off with a current code or the password',
        description: 'Counted by the login throttle like a login (429). 403 for a role in `login.totp.requiredRoles`; 409 when TOTP is not on.',
        security: signedIn,
        requestBody: jsonBody({ type: 'object', properties: { code, password: { type: 'string', writeOnly: true } } }),
        responses: responses({ 200: jsonResponse('', { type: 'object', required: ['totp'], properties: { totp: { const: false } } }) }, [409, 429], true),
      },
    },
    '/api/v1/@cms/login/forgot': {
      post: {
        tags,
        operationId: 'forgotPassword',
        summary: 'Mail a password reset link to the account of a username or email',
        description: [
          'Always the same answer, whether the account exists or not; the mail goes after the answer.',
          `At most \`limits.passwordResetsPerAccount\` (${limits.passwordResetsPerAccount}) mails per account within \`limits.passwordResetPeriodSeconds\`;`,
          `more than \`limits.passwordResetsPerAddress\` (${limits.passwordResetsPerAddress}) requests from one address get 429.`,
          'The link opens the admin\'s reset screen and works once, for `limits.passwordResetLifetimeSeconds`. 501 when no mail is configured.',
        ].join(' '),
        security: [{}],
        requestBody: jsonBody({ type: 'object', properties: { email: { type: 'string', maxLength: 320 }, username: { type: 'string', maxLength: 320 } } }),
        responses: responses(
          { 200: jsonResponse('The same whatever the account', { type: 'object', required: ['message'], properties: { message: string } }), 501: jsonResponse('No mail configured', { $ref: '#/components/schemas/Error' }) },
          [429],
          true,
        ),
      },
    },
    '/api/v1/@cms/login/reset': {
      post: {
        tags,
        operationId: 'resetPassword',
        summary: 'A new password with the token of a reset link; every other session and token of the user ends',
        description: 'A wrong, expired or used token: 400, nothing changed. A password the user type refuses: 400, and the link still works.',
        security: [{}],
        requestBody: jsonBody({
          type: 'object',
          required: ['token', 'password'],
          properties: { token: { type: 'string', maxLength: 200 }, password: { type: 'string', minLength: limits.passwordMinLength, writeOnly: true } },
        }),
        responses: responses({ 200: jsonResponse('', { type: 'object', required: ['reset'], properties: { reset: { const: true } } }) }, [], true),
      },
    },
  };
}
