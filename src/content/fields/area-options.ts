import type { DefinitionContext } from './field-type.js';
import { ConfigError } from '../../errors/app-error.js';
import { isPlainObject } from '../../config/schema-check.js';
import { checkMinMax, keyPath } from './definition-checks.js';

// `expanded` only affects the original's editing UI; it is accepted so its configurations load.
const optionKeys = ['widgets', 'groups', 'min', 'max', 'expanded'];

/** `{ "<widget type>": { ...widget options } }`; names are checked by the config loader. */
function checkWidgetMap(widgets: unknown, path: string): void {
  if (widgets === undefined) return;
  if (!isPlainObject(widgets)) throw new ConfigError(path, 'must map widget type names to option objects');
  for (const [name, options] of Object.entries(widgets)) {
    if (!isPlainObject(options)) throw new ConfigError(`${path}.${name}`, 'must be an object of widget options');
  }
}

function checkGroups(groups: unknown, path: string): void {
  if (groups === undefined) return;
  if (!isPlainObject(groups)) throw new ConfigError(path, 'must map group names to { label?, widgets }');
  for (const [name, group] of Object.entries(groups)) {
    if (!isPlainObject(group)) throw new ConfigError(`${path}.${name}`, 'must be an object { label?, widgets }');
    if (group.label !== undefined && typeof group.label !== 'string') {
      throw new ConfigError(`${path}.${name}.label`, 'must be a string');
    }
    checkWidgetMap(group.widgets, `${path}.${name}.widgets`);
  }
}

export function checkAreaOptions(definition: Record<string, unknown>, ctx: DefinitionContext): void {
  if (definition.def !== undefined) throw new ConfigError(keyPath(ctx, 'def'), 'an area cannot have a default');
  const path = keyPath(ctx, 'options');
  const options = definition.options;
  if (options === undefined) return;
  if (!isPlainObject(options)) throw new ConfigError(path, 'must be an object with "widgets"');
  for (const key of Object.keys(options)) {
    if (!optionKeys.includes(key)) throw new ConfigError(`${path}.${key}`, 'unknown key');
  }
  checkWidgetMap(options.widgets, `${path}.widgets`);
  checkGroups(options.groups, `${path}.groups`);
  checkMinMax(options, { ...ctx, path }, 'count');
  if (options.expanded !== undefined && typeof options.expanded !== 'boolean') {
    throw new ConfigError(`${path}.expanded`, 'must be true or false');
  }
}

/** Widget types the area accepts, from `widgets` and every group; null when it names none. */
export function allowedWidgetTypes(fieldOptions: Readonly<Record<string, unknown>>): ReadonlySet<string> | null {
  const options = fieldOptions.options;
  if (!isPlainObject(options)) return null;
  const maps = [options.widgets];
  if (isPlainObject(options.groups)) {
    for (const group of Object.values(options.groups)) maps.push(isPlainObject(group) ? group.widgets : undefined);
  }
  const present = maps.filter(isPlainObject);
  if (present.length === 0) return null;
  return new Set(present.flatMap((map) => Object.keys(map)));
}
