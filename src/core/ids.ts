import { randomBytes } from 'node:crypto';

const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A new document, area, widget or attachment id: 24 lowercase alphanumerics starting with a
 * letter, the shape of the original's cuid2 ids, from a cryptographic source.
 */
export function newId(): string {
  const bytes = randomBytes(24);
  let id = alphabet[bytes[0]! % 26]!;
  for (let i = 1; i < 24; i++) id += alphabet[bytes[i]! % 36];
  return id;
}

/** Which version of a document: the draft, the published one, or the published one before the last publish. */
export type Mode = 'draft' | 'published' | 'previous';

export const modes: readonly Mode[] = ['draft', 'published'];

export function isMode(value: unknown): value is 'draft' | 'published' {
  return value === 'draft' || value === 'published';
}

export interface ParsedId {
  readonly docId: string;
  /** Present only when the id carried `:<locale>:<mode>`. */
  readonly locale?: string;
  readonly mode?: string;
}

/** Splits `<docId>:<locale>:<mode>`; a bare id (or one with fewer parts) yields only `docId`. */
export function parseDocumentId(raw: string): ParsedId {
  const parts = raw.split(':');
  if (parts.length === 3) return { docId: parts[0]!, locale: parts[1]!, mode: parts[2]! };
  return { docId: parts[0]! };
}

export function composeId(docId: string, locale: string, mode: Mode): string {
  return `${docId}:${locale}:${mode}`;
}
