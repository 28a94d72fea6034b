import type { Static } from '@sinclair/typebox';
import type { topLevelSchema } from './config/load.js';
import type { moduleSchema } from './content/types/module-schema.js';
import type { Role } from './core/principal.js';
import type { LocalizedText } from './content/types/localized-text.js';

/**
 * The type of a configuration file (`cms.config.mjs`), for editors: `defineConfig` returns its
 * argument unchanged and exists only so that an editor completes and checks every key.
 * Where the server checks a part with a TypeBox schema, the type is that schema's `Static`;
 * field definitions are checked by each field type's own code, so their types are written here.
 *
 *     // @ts-check
 *     import { defineConfig } from 'cms-server/config';
 *     export default defineConfig({ modules: { article: { fields: { add: { title: { type: 'string' } } } } } });
 */
export function defineConfig(config: CmsConfig): CmsConfig {
  return config;
}

type TopLevel = Static<typeof topLevelSchema>;

export interface CmsConfig extends Omit<TopLevel, 'apiKeys' | 'modules' | 'widgets'> {
  /** API keys (at least 16 characters) and the role each one acts as. Better in CMS_API_KEYS than in a file. */
  apiKeys?: Record<string, { role: Role }>;
  /** Piece types by name. */
  modules?: Record<string, ModuleDefinition>;
  /** Widget types by name, for areas' `options.widgets`. */
  widgets?: Record<string, { fields?: { add?: FieldDefinitions } }>;
}

export type ModuleDefinition = Omit<Static<typeof moduleSchema>, 'fields'> & {
  fields?: { add?: FieldDefinitions; remove?: string[] };
};

export type FieldDefinitions = Record<string, FieldDefinition>;

/** What every field type accepts. */
interface FieldBase {
  /** One string, or one per language (`{ en: 'Price', de: 'Preis' }`). */
  label?: LocalizedText;
  help?: LocalizedText;
  required?: boolean;
}

export interface Choice<V extends string | number | boolean = string | number | boolean> {
  /** One string, or one per language, as a field's label. */
  label: LocalizedText;
  value: V;
}

interface MinMax {
  min?: number;
  max?: number;
}

/** A nested schema: `array`, `object` and a relationship's per-link fields. */
interface NestedFields {
  fields: { add: FieldDefinitions };
}

export interface AreaOptions extends MinMax {
  /** The widget types the area takes, each with its options (`@cms/rich-text`: toolbar, styles…). */
  widgets?: Record<string, Record<string, unknown>>;
  groups?: Record<string, { label?: string; widgets: Record<string, Record<string, unknown>> }>;
  expanded?: boolean;
}

/** One field definition: `type` chooses which other keys it takes. */
export type FieldDefinition =
  | (FieldBase & { type: 'string'; textarea?: boolean; pattern?: string; def?: string } & MinMax)
  | (FieldBase & { type: 'slug'; def?: string })
  | (FieldBase & { type: 'boolean'; def?: boolean })
  | (FieldBase & { type: 'integer' | 'float'; def?: number } & MinMax)
  | (FieldBase & { type: 'select'; choices: Choice[]; def?: string | number | boolean | null })
  | (FieldBase & { type: 'checkboxes'; choices: Choice[]; def?: (string | number | boolean)[] })
  | (FieldBase & { type: 'date' | 'time' | 'dateAndTime' | 'email' | 'url' | 'color'; def?: string })
  | (FieldBase & { type: 'password' } & MinMax)
  | (FieldBase & { type: 'area'; options?: AreaOptions })
  | (FieldBase & { type: 'array' } & NestedFields & MinMax)
  | (FieldBase & { type: 'object' } & NestedFields)
  | (FieldBase & { type: 'relationship'; withType?: string; builders?: Record<string, unknown> } & Partial<NestedFields> & MinMax)
  | (FieldBase & { type: 'relationshipReverse'; withType?: string; reverseOf?: string; builders?: Record<string, unknown> })
  | (FieldBase & { type: 'attachment'; fileGroups?: string[]; fileGroup?: string; extensions?: string[] });
