import type { SanitizedPieceType } from '../types/piece-type.js';
import type { Principal, Role } from '../../core/principal.js';
import { roleRank } from '../../core/principal.js';
import { refusal } from '../../core/refusal.js';

/**
 * Who may do what, as pure functions of the principal and the piece type. The document
 * service calls these before every read and write; the rules follow the original's roles
 * (guest < contributor < editor < admin, raised per type by viewRole/editRole/publishRole).
 */

function atLeast(principal: Principal, role: Role): boolean {
  return roleRank(principal.role) >= roleRank(role);
}

/** The highest of some roles: what a caller needs when several rules apply at once. */
function highest(...roles: readonly (Role | null)[]): Role {
  return roles.reduce<Role>((top, role) => (role !== null && roleRank(role) > roleRank(top) ? role : top), 'guest');
}

/** Full REST access to a type (every property, drafts, any visibility): contributor, or the type's viewRole. */
function roleForApi(type: SanitizedPieceType): Role {
  return highest('contributor', type.options.viewRole);
}

/**
 * Creating or changing a version in `mode`: drafts need editRole, published versions publishRole.
 * A draft of an autopublishing type is published by every save, so it needs publishRole too.
 * Nobody writes what they may not read (a type's viewRole above its editRole).
 */
function roleToWrite(type: SanitizedPieceType, mode: 'draft' | 'published' | null): Role {
  const needed = mode === 'draft' && !type.options.autopublish ? type.options.editRole : type.options.publishRole;
  return highest(roleForApi(type), type.options.editRole, needed);
}

function roleToPublish(type: SanitizedPieceType): Role {
  return highest(roleForApi(type), type.options.editRole, type.options.publishRole);
}

export function canAccessApi(principal: Principal, type: SanitizedPieceType): boolean {
  return atLeast(principal, roleForApi(type));
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

export function canWrite(principal: Principal, type: SanitizedPieceType, mode: 'draft' | 'published' | null): boolean {
  return atLeast(principal, roleToWrite(type, mode));
}

export function canPublish(principal: Principal, type: SanitizedPieceType): boolean {
  return atLeast(principal, roleToPublish(type));
}

export function requireWrite(principal: Principal, type: SanitizedPieceType, mode: 'draft' | 'published' | null): void {
  if (!canWrite(principal, type, mode)) {
    throw refusal(principal, roleToWrite(type, mode), `Writing ${mode === 'draft' ? 'a draft of ' : ''}${type.name}`);
  }
}

export function requirePublish(principal: Principal, type: SanitizedPieceType, action = `Publishing ${type.name}`): void {
  if (!canPublish(principal, type)) throw refusal(principal, roleToPublish(type), action);
}

export function requireDrafts(principal: Principal, type: SanitizedPieceType): void {
  if (!canViewDrafts(principal, type)) throw refusal(principal, roleForApi(type), `Reading drafts of ${type.name}`);
}
