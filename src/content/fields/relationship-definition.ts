import type { DefinitionContext } from './field-type.js';
import { ConfigError } from '../../errors/app-error.js';
import { isPlainObject } from '../../config/schema-check.js';
import { checkMinMax, checkNestedFields, keyPath } from './definition-checks.js';

/** The field name is the last segment of the definition's key path. */
function fieldName(ctx: DefinitionContext): string {
  return ctx.path.slice(ctx.path.lastIndexOf('.') + 1);
}

export function checkWithType(definition: Record<string, unknown>, ctx: DefinitionContext): void {
  const path = keyPath(ctx, 'withType');
  if (definition.withType !== undefined && typeof definition.withType !== 'string') {
    throw new ConfigError(path, 'must be a piece type name');
  }
  const withType = (definition.withType as string | undefined) ?? fieldName(ctx).replace(/^_/, '').replace(/s$/, '');
  if (!ctx.pieceTypes.has(withType)) throw new ConfigError(path, `relationship to unknown piece type ${withType}`);
}

/** `builders: { project: { <field>: 1 } }`, the only builder a relationship applies. */
export function checkBuilders(builders: unknown, path: string): void {
  if (builders === undefined) return;
  if (!isPlainObject(builders)) throw new ConfigError(path, 'must be an object { project }');
  for (const key of Object.keys(builders)) {
    if (key !== 'project') throw new ConfigError(`${path}.${key}`, 'unknown builder (only "project" is supported)');
  }
  const project = builders.project;
  if (project === undefined) return;
  if (!isPlainObject(project)) throw new ConfigError(`${path}.project`, 'must map field names to 1');
  for (const [name, flag] of Object.entries(project)) {
    if (flag !== 1 && flag !== true) throw new ConfigError(`${path}.project.${name}`, 'must be 1 (inclusion only)');
  }
}

export function checkRelationshipDefinition(definition: Record<string, unknown>, ctx: DefinitionContext): void {
  checkWithType(definition, ctx);
  checkMinMax(definition, ctx, 'count');
  checkBuilders(definition.builders, keyPath(ctx, 'builders'));
  checkNestedFields(definition, ctx, false);
  checkNoPasswordField(definition.fields, keyPath(ctx, 'fields.add'));
  if (definition.def !== undefined) throw new ConfigError(keyPath(ctx, 'def'), 'a relationship cannot have a default');
}

/**
 * A relationship's own fields are answered as `_fields` with every related document, through
 * either direction, and are not walked when password hashes are taken out of an answer: a password
 * field there would answer its hash. Refused at start, at any depth of arrays and objects.
 */
function checkNoPasswordField(fields: unknown, path: string): void {
  if (!isPlainObject(fields) || !isPlainObject(fields.add)) return;
  for (const [name, definition] of Object.entries(fields.add)) {
    if (!isPlainObject(definition)) continue;
    if (definition.type === 'password') throw new ConfigError(`${path}.${name}`, 'a relationship\'s fields cannot hold a password field');
    checkNoPasswordField(definition.fields, `${path}.${name}.fields.add`);
  }
}
