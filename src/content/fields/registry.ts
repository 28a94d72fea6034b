import type { FieldType } from './field-type.js';
import { arrayField } from './array.js';
import { areaField } from './area.js';
import { attachmentField } from './attachment.js';
import { booleanField } from './boolean.js';
import { checkboxesField } from './checkboxes.js';
import { colorField } from './color.js';
import { dateAndTimeField } from './date-and-time.js';
import { dateField } from './date.js';
import { emailField } from './email.js';
import { floatField } from './float.js';
import { integerField } from './integer.js';
import { createObjectField } from './object.js';
import { passwordField } from './password.js';
import { relationshipField } from './relationship.js';
import { relationshipReverseField } from './relationship-reverse.js';
import { selectField } from './select.js';
import { slugField } from './slug.js';
import { stringField } from './string.js';
import { timeField } from './time.js';
import { urlField } from './url.js';

export class FieldTypeRegistry {
  readonly #types = new Map<string, FieldType>();

  register(type: FieldType): void {
    if (this.#types.has(type.name)) throw new Error(`Field type "${type.name}" is already registered`);
    this.#types.set(type.name, type);
  }

  get(name: string): FieldType | undefined {
    return this.#types.get(name);
  }

  has(name: string): boolean {
    return this.#types.has(name);
  }

  names(): string[] {
    return [...this.#types.keys()];
  }
}

export function createFieldTypeRegistry(): FieldTypeRegistry {
  const registry = new FieldTypeRegistry();
  const builtins = [
    ...[stringField, slugField, booleanField, integerField, floatField, selectField, checkboxesField],
    ...[dateField, timeField, dateAndTimeField, emailField, urlField, colorField, passwordField],
    ...[arrayField, createObjectField(registry), areaField, relationshipField, relationshipReverseField, attachmentField],
  ];
  for (const type of builtins) registry.register(type);
  return registry;
}
