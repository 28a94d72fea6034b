import type { DefinitionContext } from './field-type.js';
import { ConfigError } from '../../errors/app-error.js';
import { isPlainObject, joinPath } from '../../config/schema-check.js';
import { checkMinMax, keyPath } from './definition-checks.js';
import {
  defaultRichTextOptions,
  insertItemNames,
  richTextWidgetType,
  styleTags,
  toolbarItemNames,
  type RichTextImageStyle,
  type RichTextOptions,
  type RichTextStyle,
} from './rich-text.js';

// `expanded` only affects the original's editing UI; it is accepted so its configurations load.
const optionKeys = ['widgets', 'groups', 'min', 'max', 'expanded'];

// Rich-text options that only configure the original's editor UI; accepted so its configurations load.
const richTextEditorKeys = ['placeholder', 'placeholderText', 'className', 'color', 'tableOptions'];
const richTextKeys = ['toolbar', 'insert', 'styles', 'imageStyles', ...richTextEditorKeys];
const styleKeys = ['tag', 'label', 'class'];
const imageStyleKeys = ['value', 'label'];
const classList = /^-?[_a-zA-Z][\w-]*(\s+-?[_a-zA-Z][\w-]*)*$/;
const className = /^-?[_a-zA-Z][\w-]*$/;

function checkItems(items: unknown, known: ReadonlySet<string>, path: string): void {
  if (items === undefined) return;
  if (!Array.isArray(items)) throw new ConfigError(path, 'must be an array of item names');
  items.forEach((item, index) => {
    if (typeof item !== 'string' || !known.has(item)) {
      throw new ConfigError(`${path}.${index}`, `unknown item ${JSON.stringify(item)}; known: ${[...known].join(', ')}`);
    }
  });
}

function checkStyle(style: unknown, path: string): void {
  if (!isPlainObject(style)) throw new ConfigError(path, 'must be an object { tag, label, class? }');
  for (const key of Object.keys(style)) {
    if (!styleKeys.includes(key)) throw new ConfigError(`${path}.${key}`, 'unknown key');
  }
  if (typeof style.tag !== 'string' || !styleTags.has(style.tag)) {
    throw new ConfigError(`${path}.tag`, `must be one of ${[...styleTags].join(', ')}`);
  }
  if (typeof style.label !== 'string') throw new ConfigError(`${path}.label`, 'must be a string');
  if (style.class !== undefined && (typeof style.class !== 'string' || !classList.test(style.class.trim()))) {
    throw new ConfigError(`${path}.class`, 'must be one or more class names separated by spaces');
  }
}

/** `{ value, label }`: `value` is the one class the image tool puts on the figure. */
function checkImageStyle(style: unknown, path: string): void {
  if (!isPlainObject(style)) throw new ConfigError(path, 'must be an object { value, label }');
  for (const key of Object.keys(style)) {
    if (!imageStyleKeys.includes(key)) throw new ConfigError(`${path}.${key}`, 'unknown key');
  }
  if (typeof style.value !== 'string' || !className.test(style.value)) throw new ConfigError(`${path}.value`, 'must be one class name');
  if (typeof style.label !== 'string') throw new ConfigError(`${path}.label`, 'must be a string');
}

function checkList(list: unknown, path: string, shape: string, checkEntry: (entry: unknown, path: string) => void): void {
  if (list === undefined) return;
  if (!Array.isArray(list)) throw new ConfigError(path, `must be an array of ${shape}`);
  list.forEach((entry, index) => checkEntry(entry, `${path}.${index}`));
}

/** The options that decide what rich text may hold are checked here, once, at boot. */
function checkRichTextOptions(options: Record<string, unknown>, path: string): void {
  for (const key of Object.keys(options)) {
    if (!richTextKeys.includes(key)) throw new ConfigError(`${path}.${key}`, 'unknown key');
  }
  checkItems(options.toolbar, toolbarItemNames, `${path}.toolbar`);
  checkItems(options.insert, insertItemNames, `${path}.insert`);
  checkList(options.styles, `${path}.styles`, '{ tag, label, class? }', checkStyle);
  checkList(options.imageStyles, `${path}.imageStyles`, '{ value, label }', checkImageStyle);
}

/** `{ "<widget type>": { ...widget options } }`; names are checked by the config loader. */
function checkWidgetMap(widgets: unknown, path: string): void {
  if (widgets === undefined) return;
  if (!isPlainObject(widgets)) throw new ConfigError(path, 'must map widget type names to option objects');
  for (const [name, options] of Object.entries(widgets)) {
    if (!isPlainObject(options)) throw new ConfigError(`${path}.${name}`, 'must be an object of widget options');
    if (name === richTextWidgetType) checkRichTextOptions(options, `${path}.${name}`);
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
  checkWidgetNames(options, path, ctx.widgetTypes);
}

/** Every widget type an area names, in `widgets` and in each group's, is a configured one. */
function checkWidgetNames(options: Record<string, unknown>, path: string, widgetTypeNames: ReadonlySet<string>): void {
  const lists: [unknown, string][] = [[options.widgets, joinPath(path, 'widgets')]];
  if (isPlainObject(options.groups)) {
    for (const [group, groupOptions] of Object.entries(options.groups)) {
      const groupWidgets = isPlainObject(groupOptions) ? groupOptions.widgets : undefined;
      lists.push([groupWidgets, joinPath(path, `groups.${group}.widgets`)]);
    }
  }
  for (const [widgets, widgetsPath] of lists) {
    if (!isPlainObject(widgets)) continue;
    for (const widgetName of Object.keys(widgets)) {
      if (!widgetTypeNames.has(widgetName)) {
        throw new ConfigError(joinPath(widgetsPath, widgetName), `unknown widget type "${widgetName}"`);
      }
    }
  }
}

/** The widget maps of an area: `widgets`, then each group's, as the original's `getWidgets` reads them. */
function widgetMaps(fieldOptions: Readonly<Record<string, unknown>>): Record<string, unknown>[] {
  const options = fieldOptions.options;
  if (!isPlainObject(options)) return [];
  const maps = [options.widgets];
  if (isPlainObject(options.groups)) {
    for (const group of Object.values(options.groups)) maps.push(isPlainObject(group) ? group.widgets : undefined);
  }
  return maps.filter(isPlainObject);
}

/** Widget types the area accepts, from `widgets` and every group; null when it names none. */
export function allowedWidgetTypes(fieldOptions: Readonly<Record<string, unknown>>): ReadonlySet<string> | null {
  const present = widgetMaps(fieldOptions);
  if (present.length === 0) return null;
  return new Set(present.flatMap((map) => Object.keys(map)));
}

/**
 * The rich-text options of an area (already checked at boot), each of `toolbar`, `insert` and
 * `styles` falling back to the original's defaults, as its area options merge over `defaultOptions`.
 */
export function richTextOptionsOf(fieldOptions: Readonly<Record<string, unknown>>): RichTextOptions {
  // Later maps win, as in the original where groups are spread over `widgets`.
  const configured = widgetMaps(fieldOptions).reduce<Record<string, unknown>>((found, map) => {
    const options = map[richTextWidgetType];
    return isPlainObject(options) ? options : found;
  }, {});
  return {
    toolbar: (configured.toolbar as readonly string[] | undefined) ?? defaultRichTextOptions.toolbar,
    insert: (configured.insert as readonly string[] | undefined) ?? defaultRichTextOptions.insert,
    styles: (configured.styles as readonly RichTextStyle[] | undefined) ?? defaultRichTextOptions.styles,
    imageStyles: (configured.imageStyles as readonly RichTextImageStyle[] | undefined) ?? defaultRichTextOptions.imageStyles,
  };
}
