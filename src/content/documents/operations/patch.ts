import type { SanitizedPieceType } from '../../types/piece-type.js';
import type { FieldTypeLookup } from '../../fields/convert-schema.js';
import type { Caller } from '../caller.js';
import type { DocumentCollaborators, DocumentOutput, VersionOutput } from '../collaborators.js';
import { applyPatch, parsePatch } from '../patch-body.js';
import { controlsOf, update, type NewValues, type UpdateDeps } from './update.js';
import type { PatchOperation } from '../patch-operation.js';

type PatchDeps = UpdateDeps & Pick<DocumentCollaborators, 'fieldTypes'>;

/** PATCH /api/v1/<type>/:_id: a partial update; in published mode the same patch also reaches the draft. */
export function patch(deps: PatchDeps, caller: Caller, typeName: string, rawId: string, body: Record<string, unknown>): Promise<VersionOutput> {
  const { fields, lock, publish, saves } = controlsOf(body, 'patch');
  const operations = parsePatch(fields, deps.config.limits.patchOperations);
  return update(deps, caller, typeName, rawId, { action: 'patch', lock, publish, newValues: saves ? newValues(deps, operations) : null });
}

/** The new values of one version: the patch applied to its stored values, then converted. */
function newValues(deps: PatchDeps, operations: readonly PatchOperation[]): NewValues {
  return async (version) => {
    const { type, existing } = version;
    const input = applyPatch(operations, {
      fields: type.fields,
      fieldFor: (key) => fieldFor(type, deps.fieldTypes, key),
      current: (field) => deps.values.read(existing, field),
      defaultValue: (field) => deps.conversion.defaultValue(type, field.name),
    });
    return deps.conversion.convert({ ...version, input, only: new Set(Object.keys(input)) });
  };
}

/** The field a top-level input key names: its own name, or a relationship's other spelling. */
function fieldFor(type: SanitizedPieceType, fieldTypes: FieldTypeLookup, key: string) {
  const direct = type.fieldsByName.get(key);
  if (direct) return direct;
  const other = type.fieldsByName.get(key.startsWith('_') ? key.slice(1) : `_${key}`);
  return other !== undefined && fieldTypes.get(other.type)?.relates === 'forward' ? other : undefined;
}
