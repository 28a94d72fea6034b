import type { AppConfig } from '../../app-config.js';
import type { Principal, Role } from '../../../core/principal.js';
import { canReadType } from '../../access/permissions.js';

/**
 * The piece types a caller may read, as the URL names them: what the 404 of an unknown type
 * lists, so that it never reveals a type the caller could not use. Worked out once per role:
 * what a caller may read depends on its role alone.
 */
export function readableTypeNames(config: AppConfig): (principal: Principal) => readonly string[] {
  const byRole = new Map<Role | null, readonly string[]>();
  return (principal) => {
    let names = byRole.get(principal.role);
    if (names === undefined) {
      names = [...config.pieceTypes.values()].filter((type) => canReadType(principal, type)).map((type) => type.name);
      byRole.set(principal.role, names);
    }
    return names;
  };
}
