import type { FieldSchema } from '../api/types';
import { hiddenFields } from '../fields/registry';

/**
 * What the form saves: the value of each field of the type, nothing the server computed (`_url`,
 * `_edit`, `updatedBy`, …). `archived` stays out: a PUT keeps it, and the workflow buttons change it.
 * Relationships travel as their expanded `_name` documents, which the server reads as `{ _id, _fields }`.
 */
export function formPayload(fields: readonly FieldSchema[], doc: Record<string, unknown>): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  for (const field of fields) {
    if (hiddenFields.has(field.name) || doc[field.name] === undefined) continue;
    payload[field.name] = doc[field.name];
  }
  return payload;
}
