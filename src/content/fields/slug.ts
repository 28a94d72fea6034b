import { ownProperty } from './value-schema.js';
import type { FieldType } from './field-type.js';
import { FieldFailure } from './field-type.js';
import { slugify } from '../../core/text.js';
import { storedBounds } from '../stored-shape.js';
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
    const slug = slugify(String(input));
    // The bound every stored slug keeps (and `cms import` checks), told before the write goes on.
    const max = storedBounds.slugLength;
    if (slug.length > max) throw new FieldFailure('max', `must be at most ${max} characters`, { data: { max } });
    return slug;
  },
  indexValues: scalarIndexValues,
  // The original slugifies the filter value before matching it.
  filters: (field) => [containsFilter(field, slugify)],
  searchTexts: textSearch('high'),
  valueSchemas: (field, ctx) =>
    ownProperty(field, { type: ctx.shape === 'write' ? ['string', 'number', 'null'] : 'string', maxLength: storedBounds.slugLength }),
};
