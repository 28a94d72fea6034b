import type { SanitizedPieceType } from '../types/piece-type.js';
import type { Principal, Role } from '../../core/principal.js';
import { roleRank } from '../../core/principal.js';

/**
 * Who may do what, as pure functions of the principal and the piece type. The document
 * service calls these before every read and write; the rules follow the original's roles
 * (guest < contributor < editor < admin, raised per type by viewRole/editRole/publishRole).
 */

function atLeast(principal: Principal, role: Role | null): boolean {
  return role === null ? true : roleRank(principal.role) >= roleRank(role);
}

/** Full REST access to a type: every property, drafts, any visibility. */
export function canAccessApi(principal: Principal, type: SanitizedPieceType): boolean {
  return atLeast(principal, 'contributor') && atLeast(principal, type.options.viewRole);
}

/** Reading at all: full access, or the public projection of published documents. */
export function canReadType(principal: Principal, type: SanitizedPieceType): boolean {
  return canAccessApi(principal, type) || type.options.publicApiProjection !== null;
}

/**
 * The `archived` selection a read may use: callers without API access see live documents only,
 * whatever they ask for. `asked` undefined means archived and live alike.
 */
export function readableArchived(principal: Principal, type: SanitizedPieceType, asked: boolean | undefined): boolean | undefined {
  return canAccessApi(principal, type) ? asked : false;
}

export function canViewDrafts(principal: Principal, type: SanitizedPieceType): boolean {
  return canAccessApi(principal, type);
}

/** Visibility values a caller may see: logged-in callers (any role) also see `loginRequired`. */
export function visibleValues(principal: Principal): readonly string[] | undefined {
  return principal.role === null ? ['public'] : undefined;
}

/**
 * Creating or changing a version in `mode`: drafts need editRole, published versions publishRole.
 * A draft of an autopublishing type is published by every save, so it needs publishRole too.
 */
export function canWrite(principal: Principal, type: SanitizedPieceType, mode: 'draft' | 'published' | null): boolean {
  const needed = mode === 'draft' && !type.options.autopublish ? type.options.editRole : type.options.publishRole;
  // Nobody writes what they may not read (a type's viewRole above its editRole).
  return canAccessApi(principal, type) && atLeast(principal, type.options.editRole) && atLeast(principal, needed);
}

export function canPublish(principal: Principal, type: SanitizedPieceType): boolean {
  return canAccessApi(principal, type) && atLeast(principal, type.options.editRole) && atLeast(principal, type.options.publishRole);
}
