import type { SanitizedField } from '../types/piece-type.js';
import { isPlainObject } from '../../config/schema-check.js';
import { allowedWidgetTypes, richTextOptionsOf } from '../fields/area-options.js';
import { richTextWidgetType } from '../fields/rich-text.js';
import { relationshipTarget } from '../fields/relationship.js';
import { humanize } from '../types/sanitize-fields.js';
import type { FieldTypeLookup } from '../fields/convert-schema.js';

/**
 * How a client (the admin first of all) sees one field: the common keys, then what its type
 * needs to build an editor and to check input before sending it. Everything here comes from the
 * frozen configuration, so a description never changes for the life of the process.
 */
export type FieldDescription = Record<string, unknown>;

/** Options that only steer the server's own loading of related documents. */
const serverOnlyOptions = new Set(['builders']);

type Details = (field: SanitizedField, allWidgets: readonly string[]) => FieldDescription;

/** Type-specific parts; types not listed show their configured options as they are. */
const detailsByType: Readonly<Record<string, Details>> = {
  area: (field, allWidgets) => ({ options: describeAreaOptions(field, allWidgets) }),
  attachment: describeAttachment,
  relationship: describeRelationship,
  relationshipReverse: describeRelationship,
};

/** The target is always named, also when the configuration left it to the field name. */
function describeRelationship(field: SanitizedField): FieldDescription {
  return { ...configuredOptions(field), withType: relationshipTarget(field.name, field.options.withType) };
}

function configuredOptions(field: SanitizedField): FieldDescription {
  const options: FieldDescription = {};
  for (const [key, value] of Object.entries(field.options)) {
    // `fields` is described from the sanitized nested schema instead of the raw definition.
    if (!serverOnlyOptions.has(key) && key !== 'fields') options[key] = value;
  }
  return options;
}

/** `fileGroup` and `fileGroups` accept the same way, so a client gets one list. */
function describeAttachment(field: SanitizedField): FieldDescription {
  const groups = [...((field.options.fileGroups as readonly string[] | undefined) ?? [])];
  if (typeof field.options.fileGroup === 'string') groups.push(field.options.fileGroup);
  return {
    ...(groups.length > 0 && { fileGroups: groups }),
    ...(field.options.extensions !== undefined && { extensions: field.options.extensions }),
  };
}

/**
 * The widgets an area accepts (every widget type when it names none), each with its options; the
 * rich-text options are the effective ones, defaults filled in, also given at the top level.
 */
function describeAreaOptions(field: SanitizedField, allWidgets: readonly string[]): FieldDescription {
  const configured = isPlainObject(field.options.options) ? field.options.options : {};
  const allowed = [...(allowedWidgetTypes(field.options) ?? allWidgets)];
  const richText = allowed.includes(richTextWidgetType) ? richTextOptionsOf(field.options) : undefined;
  const widgets = Object.fromEntries(allowed.map((name) => [name, widgetOptions(configured, name, richText)]));
  return {
    widgets,
    ...(isPlainObject(configured.groups) && { groups: describeGroups(configured.groups) }),
    ...pick(configured, ['min', 'max', 'expanded']),
    ...richText,
  };
}

function widgetOptions(configured: Record<string, unknown>, name: string, richText: object | undefined): unknown {
  const listed = isPlainObject(configured.widgets) ? configured.widgets[name] : undefined;
  const options = isPlainObject(listed) ? listed : {};
  return name === richTextWidgetType ? { ...options, ...richText } : options;
}

function describeGroups(groups: Record<string, unknown>): FieldDescription {
  const described: FieldDescription = {};
  for (const [name, group] of Object.entries(groups)) {
    const entry = isPlainObject(group) ? group : {};
    const widgets = isPlainObject(entry.widgets) ? Object.keys(entry.widgets) : [];
    described[name] = { label: typeof entry.label === 'string' ? entry.label : humanize(name), widgets };
  }
  return described;
}

function pick(source: Record<string, unknown>, keys: readonly string[]): FieldDescription {
  return Object.fromEntries(keys.filter((key) => source[key] !== undefined).map((key) => [key, source[key]]));
}

/** One field and, recursively, its nested schema (array items, object values, relationship `_fields`). */
export function describeField(field: SanitizedField, allWidgets: readonly string[]): FieldDescription {
  const details = detailsByType[field.type] ?? configuredOptions;
  return {
    name: field.name,
    type: field.type,
    label: field.labelText ?? field.label,
    help: field.helpText ?? field.help ?? '',
    required: field.required,
    ...(field.def !== undefined && { def: field.def }),
    ...details(field, allWidgets),
    ...(field.fields.length > 0 && { fields: field.fields.map((nested) => describeField(nested, allWidgets)) }),
  };
}

/** The widget types the areas among `fields` (nested schemas included) accept. */
export function widgetsUsedBy(fields: readonly SanitizedField[], allWidgets: readonly string[], fieldTypes: FieldTypeLookup): Set<string> {
  const used = new Set<string>();
  const pending = [...fields];
  for (let field = pending.pop(); field !== undefined; field = pending.pop()) {
    for (const name of fieldTypes.get(field.type)?.widgetTypesIn?.(field, allWidgets) ?? []) used.add(name);
    pending.push(...field.fields);
  }
  return used;
}
