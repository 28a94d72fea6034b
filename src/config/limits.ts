import { Type } from '@sinclair/typebox';
import { ConfigError } from '../errors/app-error.js';

/**
 * Every numeric limit the server enforces against its clients, in one table: its configuration
 * key (`limits.<name>` in the configuration file), its environment variable, its default and
 * its bounds. The environment wins over the file, the file over the default. To add a limit,
 * add a row; the README's security section lists every row.
 */
export const limitDefinitions = {
  jsonDepth: { env: 'CMS_LIMIT_JSON_DEPTH', default: 64, min: 1, max: 1000, unit: 'levels', about: 'nesting of a JSON body' },
  // The shape of a JSON body: generous for any real page (an editor's list of 1,000+ items), tight
  // enough that no request can make the server walk millions of values.
  arrayItems: { env: 'CMS_LIMIT_ARRAY_ITEMS', default: 10_000, min: 1, max: 1_000_000, unit: 'items', about: 'items of one array in a JSON body' },
  objectKeys: { env: 'CMS_LIMIT_OBJECT_KEYS', default: 1_000, min: 1, max: 1_000_000, unit: 'keys', about: 'keys of one object in a JSON body' },
  bodyNodes: { env: 'CMS_LIMIT_BODY_NODES', default: 200_000, min: 1, max: 10_000_000, unit: 'values', about: 'values in one JSON body, all levels' },
  // Every widget is converted and its rich text sanitized: a page's worth, not a database's.
  areaWidgets: { env: 'CMS_LIMIT_AREA_WIDGETS', default: 1_000, min: 1, max: 100_000, unit: 'widgets', about: 'widgets in one area' },
} as const satisfies Record<string, LimitDefinition>;

export interface LimitDefinition {
  readonly env: string;
  readonly default: number;
  readonly min: number;
  readonly max: number;
  /** What the number counts: bytes, ms, items... */
  readonly unit: string;
  /** What it limits, in a few words. */
  readonly about: string;
}

export type LimitName = keyof typeof limitDefinitions;
export type Limits = { readonly [name in LimitName]: number };

/** The `limits` object of the configuration file: every key optional, each an integer in its bounds. */
export const limitsSchema = Type.Object(
  Object.fromEntries(
    Object.entries(limitDefinitions).map(([name, def]) => [
      name,
      Type.Optional(
        Type.Integer({ minimum: def.min, maximum: def.max, errorMessage: `must be an integer from ${def.min} to ${def.max} (${def.unit})` }),
      ),
    ]),
  ),
  { additionalProperties: false },
);

/** Environment over file over default; an environment value out of bounds stops the start naming the variable. */
export function resolveLimits(
  fromFile: Readonly<Record<string, number | undefined>> | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Limits {
  const limits: Record<string, number> = {};
  for (const [name, def] of Object.entries(limitDefinitions) as [LimitName, LimitDefinition][]) {
    const raw = env[def.env]?.trim();
    if (raw) {
      const value = Number(raw);
      if (!/^\d+$/.test(raw) || value < def.min || value > def.max) {
        throw new ConfigError(def.env, `must be an integer from ${def.min} to ${def.max} (${def.unit}), not "${raw}"`);
      }
      limits[name] = value;
    } else {
      limits[name] = fromFile?.[name] ?? def.default;
    }
  }
  return limits as Limits;
}
