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

/**
 * The CDN tag (`Surrogate-Key`, `Cache-Tag`) of a generation key: the key, without the
 * parentheses of the attachments' (`attachments`) or the colon of a type without modes
 * (`@cms/user`). An answer is tagged with the tags of the keys it depends on, and a change
 * event's purge names the tags of the keys its write counts up.
 */
export function cdnTagOf(key: string): string {
  return key.replace(/^\((.*)\)$/, '$1').replace(/:$/, '');
}

/** The CDN tag of the answers that show the document `docId` by id (a get-one). */
export function documentCdnTag(docId: string): string {
  return `doc:${docId}`;
}

/**
 * What one answer reads, gathered while it is built (`StorageAdapter.generations`): the document
 * versions it asked for by id (`_id`: `<docId>:<locale>:<mode>`, or the docId of a type without
 * modes; those it did not find included, since they could be made), and the generation keys of
 * what it found by anything else (the versions of a type a reverse relationship reads, by mode;
 * the attachments).
 */
export class AnswerSources {
  readonly keys = new Set<string>();
  readonly versions = new Set<string>();
}
