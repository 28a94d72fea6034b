import type { LoadedConfig } from '../config/config-types.js';
import { deepFreeze } from '../config/deep-freeze.js';
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
  return deepFreeze({ ...settings, pieceTypes, widgetTypes });
}
