import { FieldFailure, type DefinitionContext } from './field-type.js';
import { ConfigError } from '../../errors/app-error.js';
import { isPlainObject } from '../../config/schema-check.js';
import { keyPath } from './definition-checks.js';
import { checkLocalizedText } from '../types/localized-text.js';

export type ChoiceValue = string | number | boolean;

/** `choices: [{ label, value }]`: non-empty, labels one text or one per language (as a field's), values unique strings, numbers or booleans. */
export function checkChoices(definition: Record<string, unknown>, ctx: DefinitionContext): void {
  const path = keyPath(ctx, 'choices');
  const choices = definition.choices;
  if (!Array.isArray(choices) || choices.length === 0) {
    throw new ConfigError(path, 'must be a non-empty array of { label, value }');
  }
  const seen = new Set<unknown>();
  choices.forEach((choice, index) => {
    const at = `${path}.${index}`;
    if (!isPlainObject(choice)) throw new ConfigError(at, 'must be an object { label, value }');
    // Any string, '' too (a "none" choice), as before per-language labels; anything else must be one.
    if (typeof choice.label !== 'string') checkLocalizedText(choice.label, `${at}.label`);
    if (!isChoiceValue(choice.value)) throw new ConfigError(`${at}.value`, 'must be a string, number or boolean');
    if (seen.has(choice.value)) throw new ConfigError(`${at}.value`, `duplicate choice value ${JSON.stringify(choice.value)}`);
    seen.add(choice.value);
  });
}

function isChoiceValue(value: unknown): value is ChoiceValue {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

export function choiceValues(options: Readonly<Record<string, unknown>>): ChoiceValue[] {
  const choices = Array.isArray(options.choices) ? options.choices : [];
  return choices.map((choice: { value: ChoiceValue }) => choice.value);
}

/**
 * The choice an input names: the exact value, or the same value spelled as another primitive
 * ("3" for 3, 3 for "3", "true" for true), which is lossless. Undefined when none matches.
 */
export function matchChoice(input: unknown, values: readonly ChoiceValue[]): ChoiceValue | undefined {
  if (values.includes(input as ChoiceValue)) return input as ChoiceValue;
  if (!isChoiceValue(input)) return undefined;
  const spelled = String(input);
  const matches = values.filter((value) => String(value) === spelled);
  // Two choices spelled alike (3 and "3") would make the match a guess.
  return matches.length === 1 ? matches[0] : undefined;
}

/** Choices a refusal lists: enough to pick from, few enough that a huge list keeps the answer small. */
const listedChoices = 20;

/**
 * The refusal of a value outside the choices, listing them (the first `listedChoices`, with the
 * count of the rest) in the message and in `data.choices`, so the caller can pick a valid one.
 */
export function notAChoice(values: readonly ChoiceValue[], sent?: unknown): FieldFailure {
  const listed = values.slice(0, listedChoices);
  const more = values.length - listed.length;
  const named = listed.map((value) => JSON.stringify(value)).join(', ') + (more > 0 ? ` and ${more} more` : '');
  const what = sent === undefined ? 'must be' : `${JSON.stringify(sent) ?? String(sent)} is not`;
  return new FieldFailure('invalid', `${what} one of the choices: ${named}`, {
    data: { choices: listed, ...(more > 0 ? { moreChoices: more } : {}) },
  });
}
