import { FieldFailure } from './field-type.js';
import { textValueField } from './text-value-field.js';
import { emptyOrText } from './date.js';

const hexColor = /^#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const component = String.raw`[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:%|deg|rad|grad|turn)?`;
const separator = String.raw`(?:\s*,\s*|\s+)`;
const functionColor = new RegExp(
  String.raw`^(?:rgba?|hsla?)\(\s*${component}${separator}${component}${separator}${component}(?:\s*[,/]\s*${component})?\s*\)$`,
  'i',
);

export const colorPatterns: RegExp[] = [hexColor, functionColor];

/** True for the color spellings the rich-text sanitizer also lets through. */
export function isColor(text: string): boolean {
  return hexColor.test(text) || functionColor.test(text);
}

/**
 * A CSS custom property's name (`--brand`), which the original's color field stores as given,
 * for a theme to resolve. Only name characters: the original takes anything after `--`, which
 * lets a value close the `<style>` element it is written into.
 */
const customProperty = /^--[A-Za-z0-9_-]+$/;

function launder(input: unknown): string | null {
  const text = emptyOrText(input, 'a color');
  if (text === null) return null;
  if (!isColor(text) && !customProperty.test(text)) {
    throw new FieldFailure('invalid', 'must be a color (#rgb, #rrggbb, rgb(), rgba(), hsl() or hsla()) or a CSS variable name (--brand)');
  }
  return text;
}

export const colorField = textValueField('color', launder, { filter: 'contains' });
