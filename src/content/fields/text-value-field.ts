import type { FieldType } from './field-type.js';
import { checkDefault } from './definition-checks.js';
import { isEmptyText } from './string.js';

/**
 * A field whose value is one laundered text (date, time, color, url, email...): the definition's
 * `def` is checked with the same launder at boot, and empty means '' or null.
 */
export function textValueField(name: string, launder: (input: unknown) => string | null, emptyDefault: '' | null = null): FieldType {
  return {
    name,
    definitionKeys: [],
    validateDefinition: (definition, ctx) => checkDefault(definition, ctx, launder),
    defaultValue: (field) => field.def ?? emptyDefault,
    isEmpty: isEmptyText,
    convert: (input) => launder(input),
  };
}
