import type { AttachmentLookup } from './field-type.js';
import type { SanitizedField } from '../types/piece-type.js';
import { cropOf, sameCrop } from '../../core/crop-box.js';
import { isPlainObject } from './nested.js';
import { imageTypeName } from '../types/builtin-types.js';
import { relationshipTarget } from './relationship-target.js';

/**
 * Whether a relationship stores image crop fields: it is to `@cms/image` and declares no
 * `fields` of its own, so it has the image's `relationshipFields` (`defaultRelationshipFields`).
 */
export function holdsCropFields(field: SanitizedField): boolean {
  return field.options.fields === undefined && relationshipTarget(field.name, field.options.withType) === imageTypeName;
}

const boxKeys = ['top', 'left', 'width', 'height'] as const;

/**
 * The crop fields a relationship stores for an image (`top`, `left`, `width`, `height`, `x`,
 * `y`): the box is kept only when it is one of the crops made for the image's current file
 * (`crops` of its attachment record, as the crop and autocrop endpoints make them), so that no
 * URL ever names a file that was never made; otherwise its four sides are stored as null. The
 * focal point is kept as converted (0..100).
 */
export async function checkedCropFields(
  values: Record<string, unknown>,
  image: Readonly<Record<string, unknown>> | undefined,
  attachments: AttachmentLookup,
): Promise<Record<string, unknown>> {
  const box = cropOf(values);
  if (!box) return values;
  const attachment = image?.attachment;
  const id = isPlainObject(attachment) && typeof attachment._id === 'string' ? attachment._id : null;
  const record = id === null ? null : await attachments.find(id);
  if (record?.crops.some((crop) => sameCrop(crop, box))) return values;
  return withoutBox(values);
}

/** Crop fields with their box taken away (the focal point, if any, kept). */
export function withoutBox(values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const kept: Record<string, unknown> = { ...values };
  for (const key of boxKeys) kept[key] = null;
  return kept;
}
