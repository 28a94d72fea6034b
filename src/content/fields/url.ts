import { FieldFailure } from './field-type.js';
import { textValueField } from './text-value-field.js';
import { emptyOrText } from './date.js';

const allowedProtocols = new Set(['http:', 'https:', 'mailto:', 'tel:']);

/** `/path`, but not `//host` or `/\host`, which browsers follow to another site. */
function isSiteRelative(text: string): boolean {
  return text.startsWith('/') && !/^\/[/\\]/.test(text) && !/[\s\\]/.test(text);
}

function isAllowedAbsolute(text: string): boolean {
  try {
    return allowedProtocols.has(new URL(text).protocol) && !/\s/.test(text);
  } catch {
    return false;
  }
}

/** Stored as sent (trimmed); only schemes that cannot run code are accepted. */
export function launderUrl(input: unknown): string | null {
  const text = emptyOrText(input, 'a URL');
  if (text === null) return null;
  if (!isSiteRelative(text) && !isAllowedAbsolute(text)) {
    throw new FieldFailure('invalid', 'must be an http(s), mailto or tel URL or a path starting with /');
  }
  return text;
}

export const urlField = textValueField('url', launderUrl, { filter: 'contains' });
