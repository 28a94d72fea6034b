import { ownProperty } from './value-schema.js';
import type { ConvertContext, FieldType } from './field-type.js';
import type { SanitizedField } from '../types/piece-type.js';
import type { AttachmentCrop, AttachmentRecord } from '../../storage/storage-adapter.js';
import { FieldFailure } from './field-type.js';
import { ConfigError } from '../../errors/app-error.js';
import { isValidId } from '../../core/text.js';
import { keyPath } from './definition-checks.js';
import { isPlainObject } from './nested.js';
import { hasImageSizeFilters, imageSizeEntries, imageSizeFilters } from './image-size-filters.js';

function checkNameList(value: unknown, path: string): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string' || entry === '')) {
    throw new ConfigError(path, 'must be an array of non-empty strings');
  }
}

/** Group and extension limits apply to the stored record, never to what the client says of it. */
function checkAccepted(record: AttachmentRecord, options: Readonly<Record<string, unknown>>): void {
  const groups = [...((options.fileGroups as string[] | undefined) ?? [])];
  if (typeof options.fileGroup === 'string') groups.push(options.fileGroup);
  const extensions = options.extensions as string[] | undefined;
  if (groups.length > 0 && !groups.includes(record.group)) {
    throw new FieldFailure('invalid', `File type ${record.extension} was not accepted. Allowed file groups: ${groups.join(', ')}`);
  }
  if (extensions !== undefined && !extensions.includes(record.extension)) {
    throw new FieldFailure('invalid', `File type ${record.extension} was not accepted. Allowed extensions: ${extensions.join(', ')}`);
  }
}

const cropKeys = ['top', 'left', 'width', 'height'] as const;

/** The requested crop when it is one the crop endpoint made for this attachment; none is null. */
function chosenCrop(input: unknown, record: AttachmentRecord): AttachmentCrop | null {
  if (input === undefined || input === null) return null;
  const match = isPlainObject(input) ? record.crops.find((crop) => cropKeys.every((key) => crop[key] === input[key])) : undefined;
  if (!match) throw new FieldFailure('invalid', 'crop must be one of the crops made for this attachment');
  return { top: match.top, left: match.left, width: match.width, height: match.height };
}

/**
 * Only `_id` (and `crop`) are read from the input: the stored value is a copy of the record the
 * store holds, so a client can claim nothing about a file (`_url`, `md5`, `group`...).
 */
async function convertAttachment(input: unknown, field: SanitizedField, ctx: ConvertContext): Promise<Record<string, unknown> | null> {
  if (input === null) return null;
  if (!isPlainObject(input) || !isValidId(input._id)) {
    throw new FieldFailure('invalid', 'must be an attachment: an object with the _id of an upload');
  }
  const record = await ctx.attachments.find(input._id);
  if (!record) throw new FieldFailure('invalid', `There is no attachment with the _id ${input._id}`);
  checkAccepted(record, field.options);
  return { ...record, crop: chosenCrop(input.crop, record) };
}

export const attachmentField: FieldType = {
  name: 'attachment',
  definitionKeys: ['fileGroups', 'fileGroup', 'extensions'],
  validateDefinition(definition, ctx) {
    checkNameList(definition.fileGroups, keyPath(ctx, 'fileGroups'));
    checkNameList(definition.extensions, keyPath(ctx, 'extensions'));
    if (definition.fileGroup !== undefined && typeof definition.fileGroup !== 'string') {
      throw new ConfigError(keyPath(ctx, 'fileGroup'), 'must be a string');
    }
    if (definition.def !== undefined) throw new ConfigError(keyPath(ctx, 'def'), 'an attachment cannot have a default');
  },
  defaultValue: () => null,
  isEmpty: (value) => value === null || value === undefined,
  convert: convertAttachment,
  indexEntries: (doc, field) => (hasImageSizeFilters(field) ? imageSizeEntries(doc, field) : []),
  filters: (field) => (hasImageSizeFilters(field) ? imageSizeFilters(field) : []),
  valueSchemas(field, ctx) {
    if (ctx.shape !== 'write') return ownProperty(field, { anyOf: [ctx.attachment(), { type: 'null' }] });
    // Only `_id` and `crop` are read from the input (a whole attachment object may be sent back).
    const box = { top: { type: 'number' }, left: { type: 'number' }, width: { type: 'number' }, height: { type: 'number' } };
    const crop = { type: ['object', 'null'], properties: box };
    return ownProperty(field, { type: ['object', 'null'], required: ['_id'], properties: { _id: { type: 'string' }, crop } });
  },
};
