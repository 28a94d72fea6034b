import type { AppConfig } from '../app-config.js';
import type { SanitizedField, SanitizedPieceType } from '../types/piece-type.js';
import type { Principal } from '../../core/principal.js';
import { canAccessApi, canReadType } from '../access/permissions.js';
import { projectionGoverns } from '../query/projection.js';

/** Every field for callers with API access; the public projection's fields for the others. */
export function visibleFields(principal: Principal, type: SanitizedPieceType): readonly SanitizedField[] {
  if (canAccessApi(principal, type)) return type.fields;
  const projection = type.options.publicApiProjection ?? {};
  return type.fields.filter((field) => projectionGoverns(projection, field.name));
}

/**
 * The piece types a caller may read, each with only the fields it may see: what descriptions of
 * the configuration (`@cms/schema`, the OpenAPI document) show that caller.
 */
export function visiblePieceTypes(principal: Principal, config: Pick<AppConfig, 'pieceTypes'>): Map<string, SanitizedPieceType> {
  const visible = new Map<string, SanitizedPieceType>();
  for (const type of config.pieceTypes.values()) {
    if (!canReadType(principal, type)) continue;
    const fields = visibleFields(principal, type);
    const shown = fields === type.fields ? type : { ...type, fields, fieldsByName: new Map(fields.map((field) => [field.name, field])) };
    visible.set(type.name, shown);
  }
  return visible;
}
