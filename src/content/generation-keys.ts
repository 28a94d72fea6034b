import type { Mode } from '../core/ids.js';

/**
 * The generation key (`StorageAdapter.generation`) that attachment writes count up: the
 * composition root gives it to the store. The parentheses keep it apart from every key below.
 */
export const attachmentsGenerationKey = '(attachments)';

/**
 * The generation keys the stores' triggers count up at every write to a document version: its
 * type's name (every version of the type), and `<type>:<mode>` (the versions of one mode:
 * `article:draft`, `article:published`, `article:previous`; `<type>:` for a type without modes,
 * whose versions are stored with an empty mode). The triggers spell the second as
 * `type || ':' || mode` (SQLite migration 17, PostgreSQL migration 15): the two must agree.
 */
export function modeGenerationKey(typeName: string, mode: Mode | null): string {
  return `${typeName}:${mode ?? ''}`;
}
