import type { LoadedConfig } from '../config/config-types.js';
import { deepFreeze } from '../config/deep-freeze.js';
import { ConfigError } from '../errors/app-error.js';
import { userTypeName } from '../core/principal.js';
import type { WebhookEndpointConfig } from '../config/webhooks-config.js';
import type { SanitizedPieceType } from './types/piece-type.js';
import {
  pieceTypeNamesOf,
  sanitizePieceTypes,
  sanitizeWidgetTypes,
  widgetTypeNamesOf,
  type FieldTypeLookup,
  type SanitizedWidgetType,
} from './types/sanitize.js';

/** The configuration the services run on: frozen, trusted everywhere else. */
export interface AppConfig extends Omit<LoadedConfig, 'modules' | 'widgets'> {
  readonly pieceTypes: ReadonlyMap<string, SanitizedPieceType>;
  /** Widget types usable in areas; `@cms/rich-text` is always there. */
  readonly widgetTypes: ReadonlyMap<string, SanitizedWidgetType>;
}

/**
 * Sanitizes the loaded configuration's raw `modules` and `widgets` into piece types and widget
 * types; a broken definition throws a ConfigError naming its key path.
 */
export function assembleAppConfig(loaded: LoadedConfig, fieldTypes: FieldTypeLookup): AppConfig {
  const { modules, widgets, ...settings } = loaded;
  const widgetTypes = sanitizeWidgetTypes(widgets, { fieldTypes, pieceTypeNames: pieceTypeNamesOf(modules) });
  const pieceTypes = sanitizePieceTypes(modules, { fieldTypes, widgetTypeNames: widgetTypeNamesOf(widgets) });
  checkWebhookTypes(settings.webhooks, pieceTypes);
  checkWhoamiFields(settings.whoamiFields, pieceTypes.get(userTypeName), fieldTypes);
  return deepFreeze({ ...settings, pieceTypes, widgetTypes });
}

/**
 * `login.whoamiFields` names fields of the user type that are stored under their own name, as
 * `whoami` reads them off the user document; never a secret one (`password`).
 */
function checkWhoamiFields(names: readonly string[], users: SanitizedPieceType | undefined, fieldTypes: FieldTypeLookup): void {
  const shown = (users?.fields ?? []).filter((field) => {
    const type = fieldTypes.get(field.type);
    return type !== undefined && !type.secret && !type.storageKeys;
  });
  const allowed = new Set(shown.map((field) => field.name));
  names.forEach((name, index) => {
    if (!allowed.has(name)) {
      throw new ConfigError(`login.whoamiFields.${index}`, `"${name}" is not a user field whoami can show; one of: ${[...allowed].join(', ')}`);
    }
  });
}

/** A webhook names only types that exist: a typo would silently deliver nothing. */
function checkWebhookTypes(webhooks: readonly WebhookEndpointConfig[], pieceTypes: ReadonlyMap<string, unknown>): void {
  webhooks.forEach((webhook, index) => {
    if (webhook.types === '*') return;
    const unknown = webhook.types.findIndex((name) => !pieceTypes.has(name));
    if (unknown >= 0) throw new ConfigError(`webhooks.${index}.types.${unknown}`, `"${webhook.types[unknown]}" is not a piece type`);
  });
}
