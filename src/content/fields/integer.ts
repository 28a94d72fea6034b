import type { FieldType } from './field-type.js';
import { integerKind, numberFieldType } from './number-field.js';

export const integerField: FieldType = numberFieldType(integerKind);
