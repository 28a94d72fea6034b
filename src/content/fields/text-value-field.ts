import { nullable, ownProperty } from './value-schema.js';
import type { FieldType, SearchText } from './field-type.js';
import { checkDefault } from './definition-checks.js';
import { containsFilter, rangeFilter, scalarIndexValues, textSearch } from './filter-kit.js';
import { isEmptyText } from './string.js';

export interface TextValueQuerying {
  /** `range`: exact value or bounds, compared as text (dates, times); `contains`: substring. */
  readonly filter: 'range' | 'contains';
  /** Weight of the value in search; absent: not searched. */
  readonly search?: SearchText['weight'];
}

/**
 * A field whose value is one laundered text (date, time, color, url, email...): the definition's
 * `def` is checked with the same launder at boot, and empty means '' or null.
 */
export function textValueField(
  name: string,
  launder: (input: unknown) => string | null,
  querying: TextValueQuerying,
  emptyDefault: '' | null = null,
  format?: string,
): FieldType {
  const parseBound = (text: string): string => launder(text) ?? '';
  return {
    name,
    definitionKeys: [],
    validateDefinition: (definition, ctx) => checkDefault(definition, ctx, launder),
    defaultValue: (field) => field.def ?? emptyDefault,
    isEmpty: isEmptyText,
    convert: (input) => launder(input),
    // An empty value stays as stored: '' and null are both absent.
    restore: (value) => (typeof value === 'string' && value !== '' ? launder(value) : value),
    indexValues: scalarIndexValues,
    filters: (field) => [querying.filter === 'range' ? rangeFilter(field, parseBound) : containsFilter(field)],
    ...(querying.search ? { searchTexts: textSearch(querying.search) } : {}),
    valueSchemas(field, ctx) {
      const text = { type: 'string', ...(format && ctx.shape !== 'write' && { format }) };
      return ownProperty(field, emptyDefault === '' && ctx.shape !== 'write' ? text : nullable(text));
    },
  };
}
