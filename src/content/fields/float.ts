import type { FieldType } from './field-type.js';
import { floatKind, numberFieldType } from './number-field.js';

export const floatField: FieldType = numberFieldType(floatKind);
