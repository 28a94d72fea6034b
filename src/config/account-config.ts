import { Type, type Static } from '@sinclair/typebox';
import type { Role } from '../core/principal.js';
import { ConfigError } from '../errors/app-error.js';
import { roleSchema } from './schema-check.js';

type Environment = Readonly<Record<string, string | undefined>>;

/** How mail is sent: an `smtp://` or `smtps://` URL, or nodemailer's SMTP options. */
export type SmtpTransport =
  | string
  | { readonly host: string; readonly port: number; readonly secure: boolean; readonly auth?: { readonly user: string; readonly pass: string } };

/** The mail the server sends (password resets); null when none is configured: no mail is sent. */
export interface MailConfig {
  readonly smtp: SmtpTransport;
  /** The sender, `"CMS" <cms@example.com>` or a bare address. */
  readonly from: string;
}

/** Second factors: the roles that must use TOTP, and the issuer authenticator apps show. */
export interface TotpConfig {
  readonly requiredRoles: readonly Role[];
  readonly issuer: string;
}

/** `mail` of the configuration file. */
export const mailSchema = Type.Object(
  {
    smtp: Type.Union(
      [
        Type.String({ minLength: 1 }),
        Type.Object(
          {
            host: Type.String({ minLength: 1 }),
            port: Type.Integer({ minimum: 1, maximum: 65535 }),
            secure: Type.Optional(Type.Boolean()),
            auth: Type.Optional(Type.Object({ user: Type.String(), pass: Type.String() }, { additionalProperties: false })),
          },
          { additionalProperties: false },
        ),
      ],
      { errorMessage: 'must be an smtp:// URL or { host, port, secure, auth: { user, pass } }' },
    ),
    from: Type.String({ minLength: 3, maxLength: 320, errorMessage: 'must be the sender address' }),
  },
  { additionalProperties: false, errorMessage: 'must be an object { smtp, from }' },
);

/** `login.totp` of the configuration file. */
export const totpSchema = Type.Object(
  {
    requiredRoles: Type.Optional(Type.Array(roleSchema, { uniqueItems: true, errorMessage: 'must be a list of role names' })),
    issuer: Type.Optional(Type.String({ minLength: 1, maxLength: 100, errorMessage: 'must be a string of 1 to 100 characters' })),
  },
  { additionalProperties: false, errorMessage: 'must be an object { requiredRoles, issuer }' },
);

function smtpUrl(value: string, path: string): string {
  const url = URL.canParse(value) ? new URL(value) : null;
  // Never repeated in the message: the URL may hold the SMTP password.
  if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname) throw new ConfigError(path, 'must be an smtp:// or smtps:// URL');
  return value;
}

/**
 * The file's `mail`, or CMS_MAIL_SMTP (an smtp:// URL, which replaces the file's transport) and
 * CMS_MAIL_FROM. Either both a transport and a sender, or no mail at all.
 */
export function resolveMail(fromFile: Static<typeof mailSchema> | undefined, env: Environment): MailConfig | null {
  const envSmtp = env.CMS_MAIL_SMTP?.trim() || undefined;
  const envFrom = env.CMS_MAIL_FROM?.trim() || undefined;
  const smtp = envSmtp !== undefined ? smtpUrl(envSmtp, 'CMS_MAIL_SMTP') : fromFile?.smtp;
  const from = envFrom ?? fromFile?.from;
  if (smtp === undefined && from === undefined) return null;
  if (smtp === undefined) throw new ConfigError(envFrom ? 'CMS_MAIL_FROM' : 'mail.from', 'needs a transport too (mail.smtp or CMS_MAIL_SMTP)');
  if (from === undefined) throw new ConfigError(envSmtp ? 'CMS_MAIL_SMTP' : 'mail.smtp', 'needs a sender too (mail.from or CMS_MAIL_FROM)');
  if (typeof smtp === 'string') return { smtp: smtpUrl(smtp, 'mail.smtp'), from };
  return { smtp: { host: smtp.host, port: smtp.port, secure: smtp.secure ?? smtp.port === 465, ...(smtp.auth ? { auth: smtp.auth } : {}) }, from };
}

export function resolveTotp(fromFile: Static<typeof totpSchema> | undefined): TotpConfig {
  return { requiredRoles: fromFile?.requiredRoles ?? [], issuer: fromFile?.issuer ?? 'CMS' };
}
