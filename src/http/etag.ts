import { InvalidRequestError } from '../errors/app-error.js';
import type { Precondition } from '../content/documents/preconditions.js';

const entityTag = /^(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"$/;

/**
 * A write's `If-Match` as the content layer checks it: `*`, or the version validators of the
 * strong tags it lists (the part before the `.` of the ETags a document's answers carry). Weak
 * tags never match (RFC 9110 13.1.1 compares strongly); an unreadable header is a 400.
 */
export function ifMatchPrecondition(header: string | string[] | undefined): Precondition | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return '*';
  const validators: string[] = [];
  for (const item of value.split(',')) {
    const tag = entityTag.exec(item.trim());
    if (!tag) throw new InvalidRequestError('If-Match takes "*" or ETags as the answers send them, in double quotes', { header: 'If-Match' });
    if (!tag[1]) validators.push(tag[2]!.split('.')[0]!);
  }
  return validators;
}

/**
 * True when `If-None-Match` names `etag` (or is `*`). The comparison is weak, as RFC 9110 13.1.2
 * asks for this header: a `W/` prefix on the client's tag is ignored.
 */
export function matchesNoneMatch(header: string | string[] | undefined, etag: string): boolean {
  if (typeof header !== 'string') return false;
  return header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
