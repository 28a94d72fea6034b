import type { AppConfig } from '../app-config.js';
import { attachmentsGenerationKey } from '../generation-keys.js';
import { attachmentField } from '../fields/attachment.js';
import { relationshipTarget } from '../fields/relationship.js';
import { walkFieldDefinitions } from '../fields/walk-fields.js';
import type { FieldTypeLookup } from '../fields/convert-schema.js';

/**
 * What the answers about a piece type depend on, as generation keys (`StorageAdapter.generation`):
 * the type itself, every type it reaches through relationships and reverse relationships
 * (followed on, though related documents are shown without their own: the schema, not the data,
 * decides, and a superset only costs an early refresh), and the attachments when any of them can
 * hold an attachment field at any depth.
 */
export function answerDependencies(config: AppConfig, fieldTypes: FieldTypeLookup, typeName: string): string[] {
  const types = new Set<string>();
  let attachments = false;
  const pending = [typeName];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    const type = config.pieceTypes.get(name);
    if (types.has(name) || type === undefined) continue;
    types.add(name);
    walkFieldDefinitions([type.fields], config.widgetTypes, (field) => {
      if (field.type === attachmentField.name) attachments = true;
      if (fieldTypes.get(field.type)?.relates) {
        pending.push(relationshipTarget(field.name, field.options.withType));
      }
    });
  }
  return attachments ? [...types, attachmentsGenerationKey] : [...types];
}
