import { ownProperty } from './value-schema.js';
import type { FieldType } from './field-type.js';
import { FieldFailure } from './field-type.js';
import { checkChoices, choiceValues, matchChoice, notAChoice, type ChoiceValue } from './choices.js';
import { checkDefault } from './definition-checks.js';
import { choicesFilter, scalarIndexValues } from './filter-kit.js';

function asList(input: unknown): unknown[] {
  if (input === null || input === '') return [];
  if (Array.isArray(input)) return input;
  if (typeof input === 'string') return [input];
  throw new FieldFailure('invalid', 'must be an array of choice values');
}

/** Every entry must be a choice; repeats are folded, keeping the first position. */
function launder(input: unknown, values: readonly ChoiceValue[]): ChoiceValue[] {
  const chosen: ChoiceValue[] = [];
  for (const entry of asList(input)) {
    const choice = matchChoice(entry, values);
    if (choice === undefined) throw notAChoice(values, entry);
    if (!chosen.includes(choice)) chosen.push(choice);
  }
  return chosen;
}

export const checkboxesField: FieldType = {
  name: 'checkboxes',
  definitionKeys: ['choices'],
  validateDefinition(definition, ctx) {
    checkChoices(definition, ctx);
    checkDefault(definition, ctx, (def) => {
      if (!Array.isArray(def)) throw new Error('must be an array of choice values');
      launder(def, choiceValues(definition));
    });
  },
  defaultValue: (field) => field.def ?? [],
  isEmpty: (value) => !Array.isArray(value) || value.length === 0,
  convert: (input, field) => launder(input, choiceValues(field.options)),
  indexValues: scalarIndexValues,
  filters: (field) => [choicesFilter(field)],
  valueSchemas(field, ctx) {
    const choices = { type: 'array', items: { enum: choiceValues(field.options) } };
    // Input may also spell a value as another primitive ("3" for 3), or be null (none).
    return ownProperty(field, ctx.shape === 'write' ? { anyOf: [choices, { type: 'null' }] } : choices);
  },
};
