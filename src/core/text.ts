/** Text helpers shared by slugs, sorting and id checks. */

// Combining marks are kept so that decomposed accents stay attached to their letter.
const notLetterOrDigit = /[^\p{L}\p{M}\p{N}]+/gu;

function collapse(s: string, separator: string): string {
  return s.toLowerCase().replace(notLetterOrDigit, separator).split(separator).filter(Boolean).join(separator);
}

/** Sluggo-like: lowercase, every run of non letters/digits becomes one `-`, no leading/trailing `-`. */
export function slugify(s: string): string {
  return collapse(s, '-');
}

/** Lowercase, punctuation runs become one space, trimmed: "Hello, World!" -> "hello world". */
export function sortify(s: string): string {
  return collapse(s, ' ');
}

const idPattern = /^[A-Za-z0-9_-]{1,64}$/;

/** An id we accept from a client for areas, widgets, array items and objects. */
export function isValidId(s: unknown): s is string {
  return typeof s === 'string' && idPattern.test(s);
}
