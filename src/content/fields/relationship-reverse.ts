import type { DefinitionContext, FieldType } from './field-type.js';
import type { SanitizedField, SanitizedPieceType } from '../types/piece-type.js';
import { ConfigError } from '../../errors/app-error.js';
import { joinPath } from '../../config/schema-check.js';
import { keyPath } from './definition-checks.js';
import { checkBuilders, checkWithType } from './relationship-definition.js';
import { expandedKey, relationshipBase, relationshipTarget } from './relationship.js';

/**
 * `relationshipReverse`: the documents of `withType` whose forward relationship (`reverseOf`,
 * or the one relationship of `withType` pointing at this type) holds this document. Read-only:
 * input is ignored and nothing is stored; the forward field's ids are what it reads.
 */

/** The forward side of a reverse relationship. */
export interface ForwardRelationship {
  readonly type: SanitizedPieceType;
  readonly field: SanitizedField;
}

function checkReverseDefinition(definition: Record<string, unknown>, ctx: DefinitionContext): void {
  checkWithType(definition, ctx);
  if (definition.reverseOf !== undefined && typeof definition.reverseOf !== 'string') {
    throw new ConfigError(keyPath(ctx, 'reverseOf'), 'must be the name of a relationship field of withType');
  }
  checkBuilders(definition.builders, keyPath(ctx, 'builders'));
  for (const key of ['def', 'required'] as const) {
    if (definition[key] !== undefined) throw new ConfigError(keyPath(ctx, key), 'a reverse relationship is read-only');
  }
}

export const relationshipReverseField: FieldType = {
  name: 'relationshipReverse',
  definitionKeys: ['withType', 'reverseOf', 'builders'],
  validateDefinition: checkReverseDefinition,
  defaultValue: () => undefined,
  newInstanceValue: (field) => ({ [expandedKey(field)]: null }),
  isEmpty: () => true,
  // Returning undefined keeps the stored value, and there is none: input is ignored.
  convert: () => undefined,
  storageKeys: () => [],
  // Claimed so that no other field takes the name the related documents are shown under.
  inputKeys: (field) => [expandedKey(field), relationshipBase(field)],
  write: () => {},
  read: () => undefined,
  relates: 'reverse',
  // Shown expanded on reads; input under its names is ignored.
  valueSchemas: (field, ctx) =>
    ctx.shape === 'write'
      ? {}
      : { [expandedKey(field)]: { type: 'array', items: ctx.relatedDocument(relationshipTarget(field.name, field.options.withType)) } },
};

/** The relationships of `type` that may be read backwards: top-level ones (their ids are indexed). */
function forwardCandidates(type: SanitizedPieceType, pointingAt: string): SanitizedField[] {
  return type.fields.filter(
    (field) => field.type === 'relationship' && relationshipTarget(field.name, field.options.withType) === pointingAt,
  );
}

/** `reverseOf` may name the forward field with or without its `_`. */
function namedForward(candidates: readonly SanitizedField[], reverseOf: string): SanitizedField | undefined {
  const base = reverseOf.replace(/^_/, '');
  return candidates.find((field) => relationshipBase(field) === base);
}

/**
 * The forward relationship a reverse field reads. Throws ConfigError at `path` when there is
 * none or, without `reverseOf`, more than one; boot checks every reverse field with it.
 */
export function forwardRelationship(
  pieceTypes: ReadonlyMap<string, SanitizedPieceType>,
  owner: SanitizedPieceType,
  field: SanitizedField,
  path = '',
): ForwardRelationship {
  const withType = relationshipTarget(field.name, field.options.withType);
  const type = pieceTypes.get(withType);
  if (!type) throw new ConfigError(joinPath(path, 'withType'), `relationship to unknown piece type ${withType}`);
  const candidates = forwardCandidates(type, owner.name);
  const reverseOf = field.options.reverseOf;
  if (typeof reverseOf === 'string') {
    const named = namedForward(candidates, reverseOf);
    if (named) return { type, field: named };
    throw new ConfigError(joinPath(path, 'reverseOf'), `${withType} has no top-level relationship "${reverseOf}" to ${owner.name}`);
  }
  if (candidates.length !== 1) {
    const found = candidates.length === 0 ? 'none' : candidates.map((c) => c.name).join(', ');
    const message = `needs exactly one top-level relationship of ${withType} to ${owner.name} (found ${found})`;
    throw new ConfigError(path, `${message}; name it with reverseOf`);
  }
  return { type, field: candidates[0]! };
}

/** Boot: every reverse field is top-level and finds its forward relationship. */
export function checkReverseRelationships(pieceTypes: ReadonlyMap<string, SanitizedPieceType>): void {
  for (const owner of pieceTypes.values()) {
    const path = joinPath(joinPath('modules', owner.name), 'fields.add');
    for (const field of owner.fields) {
      const fieldPath = joinPath(path, field.name);
      if (field.type === 'relationshipReverse') forwardRelationship(pieceTypes, owner, field, fieldPath);
      else assertNoNestedReverse(field.fields, joinPath(fieldPath, 'fields.add'));
    }
  }
}

function assertNoNestedReverse(fields: readonly SanitizedField[], path: string): void {
  for (const field of fields) {
    const fieldPath = joinPath(path, field.name);
    if (field.type === 'relationshipReverse') throw new ConfigError(fieldPath, 'a reverse relationship must be a top-level field');
    assertNoNestedReverse(field.fields, joinPath(fieldPath, 'fields.add'));
  }
}
