import type { SanitizedField } from '../types/piece-type.js';
import type { FilterCondition, IndexEntry } from '../../storage/storage-adapter.js';
import type { QueryFilter } from './field-type.js';
import { FieldFailure } from './field-type.js';
import { isPlainObject } from './nested.js';
import { floatKind, integerKind } from './number-field.js';

/**
 * The original's image query builders, `minSize=[w,h]` and `aspectRatio=[w,h]`, on the
 * `attachment` field of a type whose attachment holds images only (`@cms/image`). Each reads
 * index keys of the field's own, so a list of images reads image index entries only:
 *
 * - `<field>:width`, `<field>:height`: the pixel size; an image without one (SVG, which scales
 *   to any size) holds the largest number, so it passes every `minSize`, as in the original.
 * - `<field>:ratioFrom`, `<field>:ratioTo`: width / height, both; an SVG holds the largest and
 *   the smallest ratio, so it passes every `aspectRatio` as it passes every `minSize` (autocrop
 *   leaves it as it is too).
 *
 * `minSize` is `width >= w AND height >= h`; `aspectRatio` is a ratio within 1% of `w / h`
 * (of the larger of the two, autocrop's "close enough"): `ratioFrom > 0.99 r` and
 * `ratioTo < r / 0.99`.
 */

/** Any size beyond the largest upload stands for "no limit": only SVGs are that large. */
const unbounded = Number.MAX_VALUE;

const keys = (field: SanitizedField) => ({
  width: `${field.name}:width`,
  height: `${field.name}:height`,
  ratioFrom: `${field.name}:ratioFrom`,
  ratioTo: `${field.name}:ratioTo`,
});

/** The field these filters belong to: `attachment`, accepting images and nothing else. */
export function hasImageSizeFilters(field: SanitizedField): boolean {
  const groups = [...((field.options.fileGroups as string[] | undefined) ?? [])];
  if (typeof field.options.fileGroup === 'string') groups.push(field.options.fileGroup);
  return field.name === 'attachment' && groups.length > 0 && groups.every((group) => group === 'images');
}

/** The stored attachment's size and ratio, under the field's own keys; none for a file that is no image. */
export function imageSizeEntries(doc: Record<string, unknown>, field: SanitizedField): IndexEntry[] {
  const attachment = doc[field.name];
  if (!isPlainObject(attachment) || attachment.group !== 'images') return [];
  const k = keys(field);
  const { width, height } = attachment;
  if (typeof width === 'number' && typeof height === 'number' && width > 0 && height > 0) {
    const ratio = width / height;
    return [
      { key: k.width, value: width },
      { key: k.height, value: height },
      { key: k.ratioFrom, value: ratio },
      { key: k.ratioTo, value: ratio },
    ];
  }
  return [
    { key: k.width, value: unbounded },
    { key: k.height, value: unbounded },
    { key: k.ratioFrom, value: unbounded },
    { key: k.ratioTo, value: 0 },
  ];
}

export function imageSizeFilters(field: SanitizedField): QueryFilter[] {
  const k = keys(field);
  const noChoices = () => [];
  return [
    {
      name: 'minSize',
      key: k.width,
      about: '`minSize[]=<width>&minSize[]=<height>`: images at least that many pixels wide and high, and SVGs (any size).',
      parse(raw): FilterCondition[] {
        const [width, height] = pair(raw).map(pixels);
        return [
          { key: k.width, op: 'range', min: width },
          { key: k.height, op: 'range', min: height },
        ];
      },
      choices: noChoices,
    },
    {
      name: 'aspectRatio',
      key: k.ratioFrom,
      about: '`aspectRatio[]=<width>&aspectRatio[]=<height>`: images whose width / height is within 1% of that ratio, and SVGs.',
      parse(raw): FilterCondition[] {
        const [w, h] = pair(raw).map(side);
        const ratio = w! / h!;
        if (!Number.isFinite(ratio) || ratio === 0) throw new FieldFailure('invalid', 'the ratio of [width, height] is out of range');
        // Within 1%, strictly: the inclusive bounds are moved inwards by the smallest step.
        return [
          { key: k.ratioFrom, op: 'range', min: nextUp(ratio * 0.99) },
          { key: k.ratioTo, op: 'range', max: nextDown(ratio / 0.99) },
        ];
      },
      choices: noChoices,
    },
  ];
}

/** `[w, h]` as qs parses `?minSize[]=300&minSize[]=200` (or `minSize[0]=…`). */
function pair(raw: unknown): [string, string] {
  if (Array.isArray(raw) && raw.length === 2 && raw.every((entry) => typeof entry === 'string')) return raw as [string, string];
  throw new FieldFailure('invalid', 'must be [width, height]: ?name[]=<width>&name[]=<height>');
}

/**
 * A side of `minSize` in whole pixels, as the original launders it (empty is 0, a negative side
 * limits nothing); past the largest number, the largest number (only SVGs are that large).
 */
function pixels(text: string): number {
  const trimmed = text.trim();
  if (trimmed === '') return 0;
  if (!integerKind.spelling.test(trimmed)) throw new FieldFailure('invalid', 'each side must be a whole number of pixels');
  return Math.min(Math.max(Number(trimmed), 0), unbounded);
}

/** A side of `aspectRatio`: a number above 0. */
function side(text: string): number {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (!floatKind.spelling.test(trimmed) || !Number.isFinite(value) || value <= 0) {
    throw new FieldFailure('invalid', 'each side must be a number above 0');
  }
  return value;
}

const scratch = new Float64Array(1);
const bits = new BigInt64Array(scratch.buffer);

/** The next double above a positive one. */
function nextUp(value: number): number {
  scratch[0] = value;
  bits[0]! += 1n;
  return scratch[0]!;
}

/** The next double below a positive one. */
function nextDown(value: number): number {
  scratch[0] = value;
  bits[0]! -= 1n;
  return scratch[0]!;
}
