import { Type, type Static } from '@sinclair/typebox';
import { ConfigError } from '../errors/app-error.js';
import { joinPath } from './schema-check.js';

/** The changes a webhook can be told of: one event per logical change of one document. */
export const changeEventNames = ['insert', 'update', 'publish', 'unpublish', 'archive', 'restore', 'delete'] as const;
export type ChangeEventName = (typeof changeEventNames)[number];
/**
 * Besides the changes, and only when listed in `events` (never by default): the CDN tags a
 * committed change invalidates (`Surrogate-Key` / `Cache-Tag` of the answers it changes).
 */
export const purgeEventName = 'cache.purge';
/** Besides the changes, and only when listed in `events`: a draft's review moved on, or was commented (review.ts). */
export const reviewEventNames = ['review.stage', 'review.comment'] as const;
export type ReviewEventName = (typeof reviewEventNames)[number];
export type WebhookEventName = ChangeEventName | typeof purgeEventName | ReviewEventName;
const webhookEventNames: readonly WebhookEventName[] = [...changeEventNames, purgeEventName, ...reviewEventNames];

/** Long enough that guessing is hopeless (Standard Webhooks asks for 24 to 64 bytes). */
export const minimumWebhookSecretLength = 24;

/** One configured endpoint, checked: every event it is told of is signed with its secret. */
export interface WebhookEndpointConfig {
  /** Names the endpoint in the admin endpoint and in the outbox; the URL when not configured. */
  readonly name: string;
  readonly url: string;
  readonly secret: string;
  /** Piece type names, or every type. Checked against the configured types by content. */
  readonly types: '*' | readonly string[];
  readonly events: readonly WebhookEventName[];
  /** The most CDN tags one cache.purge request names (Cloudflare takes 100 a call, Fastly 256 keys). */
  readonly maxPurgeTags: number;
}

/** Cloudflare's limit of tags per purge call, the lower of the two CDNs': right for both unless configured. */
export const defaultMaxPurgeTags = 100;

const eventSchema = Type.Union(
  webhookEventNames.map((name) => Type.Literal(name)),
  { errorMessage: `must be one of ${webhookEventNames.join(', ')}` },
);

const webhookSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, errorMessage: 'must be a string of 1 to 100 characters' })),
    url: Type.String({ errorMessage: 'must be an http or https URL' }),
    // The secret itself, or the environment variable that holds it (deployment secrets stay out of files).
    secret: Type.Union([Type.String(), Type.Object({ env: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }) }, { additionalProperties: false })], {
      errorMessage: 'must be a string or { "env": "VARIABLE_NAME" }',
    }),
    types: Type.Union([Type.Literal('*'), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })], {
      errorMessage: 'must be "*" or a non-empty list of piece type names',
    }),
    events: Type.Optional(Type.Array(eventSchema, { minItems: 1, uniqueItems: true, errorMessage: `must be a non-empty list of ${webhookEventNames.join(', ')}` })),
    maxPurgeTags: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, errorMessage: 'must be a whole number from 1 to 10000' })),
  },
  { additionalProperties: false, errorMessage: 'must be an object { name, url, secret, types, events, maxPurgeTags }' },
);

/** The `webhooks` section of the configuration file. */
export const webhooksSchema = Type.Array(webhookSchema, { errorMessage: 'must be a list of { name, url, secret, types, events }' });

type Environment = Readonly<Record<string, string | undefined>>;

/** An absolute http(s) URL. Messages never repeat it: a receiver's URL may carry a token. */
function webhookUrl(value: string, path: string): string {
  const url = URL.canParse(value) ? new URL(value) : null;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new ConfigError(path, 'must be an absolute http or https URL');
  if (url.username || url.password) throw new ConfigError(path, 'must not hold credentials: the signature authenticates the sender');
  return url.href;
}

function secretOf(value: Static<typeof webhookSchema>['secret'], path: string, env: Environment): string {
  const secret = typeof value === 'string' ? value : env[value.env]?.trim();
  const where = typeof value === 'string' ? path : `${path} (${value.env})`;
  if (secret === undefined || (secret === '' && typeof value !== 'string')) throw new ConfigError(where, 'names an environment variable that is not set');
  if (secret.length < minimumWebhookSecretLength) {
    throw new ConfigError(where, `is ${secret.length} characters long; a webhook secret must be at least ${minimumWebhookSecretLength}`);
  }
  return secret;
}

/**
 * The checked endpoints: the file's `webhooks`, or CMS_WEBHOOKS (the same list as JSON) when
 * set, which replaces it. Names are unique; types are checked later, against the piece types.
 */
export function resolveWebhooks(fromFile: Static<typeof webhooksSchema> | undefined, env: Environment, check: (value: unknown, path: string) => void): WebhookEndpointConfig[] {
  const variable = env.CMS_WEBHOOKS?.trim();
  let raw: unknown = fromFile ?? [];
  let base = 'webhooks';
  if (variable) {
    base = 'CMS_WEBHOOKS';
    try {
      raw = JSON.parse(variable);
    } catch {
      throw new ConfigError(base, 'must be a JSON list of { name, url, secret, types, events }');
    }
    check(raw, base);
  }
  const endpoints = (raw as Static<typeof webhooksSchema>).map((entry, index) => {
    const path = joinPath(base, String(index));
    return {
      name: entry.name ?? webhookUrl(entry.url, `${path}.url`),
      url: webhookUrl(entry.url, `${path}.url`),
      secret: secretOf(entry.secret, `${path}.secret`, env),
      types: entry.types,
      events: entry.events ?? [...changeEventNames],
      maxPurgeTags: entry.maxPurgeTags ?? defaultMaxPurgeTags,
    };
  });
  const seen = new Set<string>();
  endpoints.forEach((endpoint, index) => {
    if (seen.has(endpoint.name)) throw new ConfigError(joinPath(base, `${index}.name`), 'repeats the name of an earlier webhook (the URL, when no name is given)');
    seen.add(endpoint.name);
  });
  return endpoints;
}
