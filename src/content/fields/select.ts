import { ownProperty } from './value-schema.js';
import type { FieldType } from './field-type.js';
import { checkChoices, choiceValues, matchChoice, notAChoice, type ChoiceValue } from './choices.js';
import { checkDefault } from './definition-checks.js';
import { choicesFilter, scalarIndexValues } from './filter-kit.js';

function launder(input: unknown, values: readonly ChoiceValue[]): ChoiceValue | null {
  const choice = matchChoice(input, values);
  if (choice !== undefined) return choice;
  if (input === null || input === '') return null;
  throw notAChoice(values);
}

export const selectField: FieldType = {
  name: 'select',
  definitionKeys: ['choices'],
  validateDefinition(definition, ctx) {
    checkChoices(definition, ctx);
    checkDefault(definition, ctx, (def) => launder(def, choiceValues(definition)));
  },
  defaultValue: (field) => field.def ?? null,
  isEmpty: (value) => value === null || value === undefined || value === '',
  convert: (input, field) => launder(input, choiceValues(field.options)),
  indexValues: scalarIndexValues,
  filters: (field) => [choicesFilter(field)],
  valueSchemas(field, ctx) {
    const values = choiceValues(field.options);
    // Input may also spell a value as another primitive ("3" for 3), which clients need not know; '' clears it too.
    return ownProperty(field, { enum: ctx.shape === 'write' ? [...values, '', null] : [...values, null] });
  },
};
