import type { Caller } from '../caller.js';
import type { DocumentOutput } from '../collaborators.js';
import { update, type UpdateDeps } from './update.js';

/** PUT /api/v1/<type>/:_id: full replacement; every field not in the body is reset, except `archived`. */
export function replace(deps: UpdateDeps, caller: Caller, typeName: string, rawId: string, body: Record<string, unknown>): Promise<DocumentOutput> {
  return update(deps, caller, typeName, rawId, async (version) => {
    const values = await deps.conversion.convert({ ...version, input: body });
    if (!Object.hasOwn(body, 'archived')) delete values.archived;
    return values;
  });
}
