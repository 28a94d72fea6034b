import type { Caller } from '../caller.js';
import type { VersionOutput } from '../collaborators.js';
import { controlsOf, update, type NewValues, type UpdateDeps } from './update.js';

/** PUT /api/v1/<type>/:_id: full replacement; every field not in the body is reset, except `archived`. */
export function replace(deps: UpdateDeps, caller: Caller, typeName: string, rawId: string, body: Record<string, unknown>): Promise<VersionOutput> {
  const { fields, lock, publish, saves } = controlsOf(body, 'replace');
  const newValues: NewValues = async (version) => {
    const values = await deps.conversion.convert({ ...version, input: fields });
    if (!Object.hasOwn(fields, 'archived')) delete values.archived;
    return values;
  };
  return update(deps, caller, typeName, rawId, { action: 'replace', lock, publish, newValues: saves ? newValues : null });
}
