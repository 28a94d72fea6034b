import { randomFillSync } from 'node:crypto';

const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
const idLength = 24;

// A write makes several ids (document, areas, widgets): random bytes are drawn for 256 ids at a
// time, one call to the system's source instead of one per id. Each byte is used once.
const pool = Buffer.alloc(idLength * 256);
let used = pool.length;

/**
 * A new document, area, widget or attachment id: 24 lowercase alphanumerics starting with a
 * letter, the shape of the original's cuid2 ids, from a cryptographic source.
 */
export function newId(): string {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const start = used;
  used += idLength;
  let id = alphabet[pool[start]! % 26]!;
  for (let i = start + 1; i < used; i++) id += alphabet[pool[i]! % 36];
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
