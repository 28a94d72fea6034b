import type { JsonSchema } from './value-schema.js';
import type { ConvertContext, FieldType } from './field-type.js';
import type { SanitizedField } from '../types/piece-type.js';
import type { FieldError } from '../../errors/app-error.js';
import { FieldFailure } from './field-type.js';
import { checkCount } from './array.js';
import { checkRelationshipDefinition } from './relationship-definition.js';
import { relationshipFilters } from './relationship-filters.js';
import { convertNested, isPlainObject } from './nested.js';
import { checkedCropFields, holdsCropFields } from './image-crop-fields.js';
import { relationshipTarget } from './relationship-target.js';

/** What a relationship converts to before `write` spreads it over its two storage keys. */
export interface RelationshipValue {
  readonly ids: string[];
  readonly fields: Record<string, Record<string, unknown>>;
}

interface Reference {
  readonly ref: string;
  readonly fields?: unknown;
}

export function relationshipBase(field: SanitizedField): string {
  return field.name.replace(/^_/, '');
}

export { relationshipTarget } from './relationship-target.js';

export function idsKey(field: SanitizedField): string {
  return `${relationshipBase(field)}Ids`;
}

function fieldsKey(field: SanitizedField): string {
  return `${relationshipBase(field)}Fields`;
}

/** Where a relationship (or a reverse one) shows its related documents: `_author` for `author`. */
export function expandedKey(field: SanitizedField): string {
  return `_${relationshipBase(field)}`;
}

/** The related `cmsDocId`s a document, array item or object stores, in stored order. */
export function relatedIds(holder: Readonly<Record<string, unknown>>, field: SanitizedField): string[] {
  const ids = holder[idsKey(field)];
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}

/** The stored `_fields` of each related document, by `cmsDocId`. */
export function relatedFields(holder: Readonly<Record<string, unknown>> | undefined, field: SanitizedField): RelationshipValue['fields'] {
  const fields = holder?.[fieldsKey(field)];
  return isPlainObject(fields) ? (fields as RelationshipValue['fields']) : {};
}

function toReference(entry: unknown): Reference {
  if (typeof entry === 'string') return { ref: entry.trim() };
  if (isPlainObject(entry) && typeof entry._id === 'string') return { ref: entry._id.trim(), fields: entry._fields };
  throw new FieldFailure('invalid', 'each related document must be an _id or { _id, _fields? }');
}

/** An array of refs or `{ _id, _fields }`, or one comma-separated string; empty input means none. */
function readReferences(input: unknown): Reference[] {
  if (input === null || input === '') return [];
  if (typeof input === 'string') return input.split(',').map(toReference).filter((r) => r.ref !== '');
  if (!Array.isArray(input)) throw new FieldFailure('invalid', 'must be an array of related documents');
  return input.map(toReference).filter((r) => r.ref !== '');
}

/** The related documents' stored versions, by `cmsDocId`. */
type RelatedValues = ReadonlyMap<string, Readonly<Record<string, unknown>> | undefined>;

/** Order kept, repeats folded; references that match nothing are dropped, as the original does. */
async function resolveIds(refs: readonly Reference[], field: SanitizedField, ctx: ConvertContext): Promise<RelatedValues> {
  if (refs.length === 0) return new Map();
  const withType = relationshipTarget(field.name, field.options.withType);
  const found = await ctx.relationships.resolve(withType, refs.map((r) => r.ref));
  const related = new Map<string, Readonly<Record<string, unknown>> | undefined>();
  for (const doc of found) if (!related.has(doc.cmsDocId)) related.set(doc.cmsDocId, doc.values);
  return related;
}

/** `_fields` given with `<cmsDocId>` or `<cmsDocId>:<locale>:<mode>`; the first one wins. */
function fieldsInputFor(id: string, refs: readonly Reference[]): unknown {
  return refs.find((r) => r.fields !== undefined && r.ref.split(':')[0] === id)?.fields;
}

/**
 * `_fields` given win; an id given without them keeps the ones stored for it (a PATCH that
 * sends only ids must not wipe them); a new id gets its fields' defaults.
 */
async function convertRelationFields(
  related: RelatedValues,
  refs: readonly Reference[],
  field: SanitizedField,
  ctx: ConvertContext,
  stored: RelationshipValue['fields'],
) {
  const fields: Record<string, Record<string, unknown>> = {};
  const errors: FieldError[] = [];
  const cropFields = holdsCropFields(field);
  for (const [id, values] of related) {
    const given = fieldsInputFor(id, refs);
    const kept = given === undefined ? stored[id] : undefined;
    if (field.fields.length === 0 || isPlainObject(kept)) {
      fields[id] = kept ?? {};
      continue;
    }
    const input = given ?? {};
    if (!isPlainObject(input)) {
      errors.push({ name: 'invalid', path: `${id}._fields`, message: '_fields must be an object', data: {} });
      continue;
    }
    const result = await convertNested(ctx, field.fields, input, undefined, id);
    if (!result.ok) errors.push(...result.errors);
    else fields[id] = cropFields ? await checkedCropFields(result.values, values, ctx.attachments) : result.values;
  }
  if (errors.length > 0) throw new FieldFailure('invalid', 'invalid', { errors });
  return fields;
}

/** A caller who cannot see the related type cannot judge its ids: the relationship stays as it is stored. */
function hiddenFrom(field: SanitizedField, canRead: (type: string) => boolean): boolean {
  return !canRead(relationshipTarget(field.name, field.options.withType));
}

function asValue(value: unknown): RelationshipValue {
  if (Array.isArray(value)) return { ids: value as string[], fields: {} };
  if (isPlainObject(value) && Array.isArray(value.ids)) {
    const fields = isPlainObject(value.fields) ? value.fields : {};
    return { ids: value.ids as string[], fields: fields as RelationshipValue['fields'] };
  }
  return { ids: [], fields: {} };
}

export const relationshipField: FieldType = {
  name: 'relationship',
  definitionKeys: ['withType', 'max', 'min', 'builders', 'fields'],
  validateDefinition: checkRelationshipDefinition,
  defaultValue: (): RelationshipValue => ({ ids: [], fields: {} }),
  newInstanceValue: (field) => ({ [expandedKey(field)]: null }),
  isEmpty: (value) => asValue(value).ids.length === 0,
  /** `container`: the stored document, array item or object holding the field, for its `_fields`. */
  async convert(input, field, ctx, existing, container?: Readonly<Record<string, unknown>>): Promise<RelationshipValue | undefined> {
    if (hiddenFrom(field, (type) => ctx.relationships.canRead(type))) {
      return existing === undefined ? { ids: [], fields: {} } : undefined;
    }
    const refs = readReferences(input);
    const related = await resolveIds(refs, field, ctx);
    checkCount(related.size, field.options, 'related documents');
    return { ids: [...related.keys()], fields: await convertRelationFields(related, refs, field, ctx, relatedFields(container, field)) };
  },
  storageKeys: (field) => [idsKey(field), fieldsKey(field)],
  inputKeys: (field) => [expandedKey(field), relationshipBase(field)],
  write(doc, field, value) {
    const { ids, fields } = asValue(value);
    doc[idsKey(field)] = ids;
    doc[fieldsKey(field)] = fields;
  },
  read: (doc, field) => relatedIds(doc, field),
  relates: 'forward',
  keepsStoredValue: hiddenFrom,
  renderHtml: (values, field, ctx) => ctx.renderRelated(values[expandedKey(field)]),
  indexValues: (doc, field) => relatedIds(doc, field),
  filters: (field) =>
    relationshipFilters({
      base: relationshipBase(field),
      key: idsKey(field),
      withType: relationshipTarget(field.name, field.options.withType),
    }),
  valueSchemas(field, ctx) {
    const withType = relationshipTarget(field.name, field.options.withType);
    if (ctx.shape === 'write') return relationshipInput(field, ctx.fieldsObject(field.fields));
    const related = { allOf: [ctx.relatedDocument(withType), { properties: { _fields: ctx.fieldsObject(field.fields) } }] };
    return {
      [idsKey(field)]: { type: 'array', items: { type: 'string' } },
      [fieldsKey(field)]: { type: 'object', additionalProperties: ctx.fieldsObject(field.fields) },
      [expandedKey(field)]: { type: 'array', items: related },
    };
  },
};

/** Ids or `{ _id, _fields }`, or one comma-separated string, under `_author` or `author`. */
function relationshipInput(field: SanitizedField, fields: JsonSchema): Record<string, JsonSchema> {
  const { min, max } = field.options;
  const bounds = { ...(typeof min === 'number' && { minItems: min }), ...(typeof max === 'number' && { maxItems: max }) };
  const withFields = { type: 'object', required: ['_id'], properties: { _id: { type: 'string' }, _fields: fields } };
  const value = { anyOf: [{ type: 'array', items: { anyOf: [{ type: 'string' }, withFields] }, ...bounds }, { type: ['string', 'null'] }] };
  return { [expandedKey(field)]: value, [relationshipBase(field)]: value };
}
