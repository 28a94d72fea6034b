import { ownProperty } from './value-schema.js';
import type { FieldType } from './field-type.js';
import { FieldFailure } from './field-type.js';
import { slugify } from '../text.js';
import { isEmptyText } from './string.js';
import { containsFilter, scalarIndexValues, textSearch } from './filter-kit.js';

export const slugField: FieldType = {
  name: 'slug',
  definitionKeys: [],
  defaultValue: (field) => field.def ?? '',
  isEmpty: isEmptyText,
  convert(input) {
    if (input === null) return '';
    if (typeof input !== 'string' && typeof input !== 'number') throw new FieldFailure('invalid', 'must be a string');
    return slugify(String(input));
  },
  indexValues: scalarIndexValues,
  // The original slugifies the filter value before matching it.
  filters: (field) => [containsFilter(field, slugify)],
  searchTexts: textSearch('high'),
  valueSchemas: (field, ctx) => ownProperty(field, ctx.shape === 'write' ? { type: ['string', 'number', 'null'] } : { type: 'string' }),
};
