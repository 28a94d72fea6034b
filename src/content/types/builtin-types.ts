/**
 * Raw definitions of the built-in piece types, in the same shape as an entry of the configuration's
 * `modules`. They go through the same sanitizer as configured types.
 */

export type RawFieldDefinition = Readonly<Record<string, unknown>>;

export interface RawModule {
  readonly extend?: string;
  readonly options?: Readonly<Record<string, unknown>>;
  readonly fields?: {
    readonly add?: Readonly<Record<string, RawFieldDefinition>>;
    readonly remove?: readonly string[];
  };
}

export const pieceTypeBase = '@cms/piece-type';
export const imageTypeName = '@cms/image';
export const fileTypeName = '@cms/file';
export const imageTagTypeName = '@cms/image-tag';
export const fileTagTypeName = '@cms/file-tag';

const roleChoices = [
  { label: 'Guest', value: 'guest' },
  { label: 'Contributor', value: 'contributor' },
  { label: 'Editor', value: 'editor' },
  { label: 'Admin', value: 'admin' },
];

const title: RawFieldDefinition = { type: 'string', label: 'Title', required: true };
const slug: RawFieldDefinition = { type: 'slug', label: 'Slug' };
const archived: RawFieldDefinition = { type: 'boolean', label: 'Archived', def: false };
const visibility: RawFieldDefinition = {
  type: 'select',
  label: 'Visibility',
  required: true,
  def: 'public',
  choices: [
    { label: 'Public', value: 'public' },
    { label: 'Login Required', value: 'loginRequired' },
  ],
};

/** Fields every ordinary piece type has without declaring them, in schema order. */
export const basePieceFields: Readonly<Record<string, RawFieldDefinition>> = { title, slug, visibility, archived };

/** Fields that no module may remove. */
export const permanentFieldNames: ReadonlySet<string> = new Set(['title', 'slug', 'archived']);

/** Media types are readable by anyone (interface 4.3), hence a projection of every field. */
const mediaRoles = { editRole: 'editor', publishRole: 'editor', autopublish: true };

const user: RawModule = {
  extend: pieceTypeBase,
  options: {
    label: 'User',
    localized: false,
    slugPrefix: 'user-',
    viewRole: 'admin',
    editRole: 'admin',
    publishRole: 'admin',
  },
  fields: {
    add: {
      title: { ...title, label: 'Display Name' },
      slug,
      archived,
      disabled: { type: 'boolean', label: 'Disabled', def: false },
      username: { type: 'string', label: 'Username', required: true },
      email: { type: 'email', label: 'Email' },
      password: { type: 'password', label: 'Password' },
      role: { type: 'select', label: 'Role', required: true, def: 'guest', choices: roleChoices },
    },
  },
};

const image: RawModule = {
  extend: pieceTypeBase,
  options: {
    label: 'Image',
    slugPrefix: 'image-',
    ...mediaRoles,
    sort: { createdAt: -1 },
    publicApiProjection: { title: 1, slug: 1, alt: 1, credit: 1, creditUrl: 1, attachment: 1, _url: 1 },
  },
  fields: {
    add: {
      title,
      slug,
      archived,
      attachment: { type: 'attachment', label: 'Image File', required: true, fileGroups: ['images'] },
      alt: { type: 'string', label: 'Alt Text' },
      credit: { type: 'string', label: 'Credit' },
      creditUrl: { type: 'url', label: 'Credit URL' },
      _tags: { type: 'relationship', label: 'Tags', withType: imageTagTypeName },
    },
  },
};

/**
 * The tags of images or files (the original's `@apostrophecms/image-tag` and `file-tag`): a
 * title and slug each. Edited and published as the media they tag (autopublished, so a tag made
 * while tagging is seen at once by the published image).
 */
function mediaTag(label: string): RawModule {
  return { extend: pieceTypeBase, options: { label, ...mediaRoles, sort: { title: 1 } }, fields: { add: { title, slug, archived } } };
}

const file: RawModule = {
  extend: pieceTypeBase,
  options: {
    label: 'File',
    slugPrefix: 'file-',
    ...mediaRoles,
    sort: { updatedAt: -1 },
    publicApiProjection: { title: 1, slug: 1, description: 1, credit: 1, creditUrl: 1, attachment: 1, _url: 1 },
  },
  fields: {
    add: {
      title,
      slug,
      archived,
      attachment: { type: 'attachment', label: 'File', required: true },
      description: { type: 'string', label: 'Description', textarea: true },
      credit: { type: 'string', label: 'Credit' },
      creditUrl: { type: 'url', label: 'Credit URL' },
      _tags: { type: 'relationship', label: 'Tags', withType: fileTagTypeName },
    },
  },
};

/**
 * The relationship fields a relationship to an image stores per image when it declares no
 * `fields` of its own (the original's `relationshipFields` of `@apostrophecms/image`): the crop
 * box in pixels of the image's file and the focal point `x`, `y` in percent of the image (0..100,
 * as the original's image relationship editor sets them).
 */
const imageCropFields: Readonly<Record<string, RawFieldDefinition>> = {
  top: { type: 'integer', label: 'Top', min: 0 },
  left: { type: 'integer', label: 'Left', min: 0 },
  width: { type: 'integer', label: 'Width', min: 0 },
  height: { type: 'integer', label: 'Height', min: 0 },
  x: { type: 'integer', label: 'Focal point x', min: 0, max: 100 },
  y: { type: 'integer', label: 'Focal point y', min: 0, max: 100 },
};

/** Per piece type: the `fields.add` of a relationship to it that declares no `fields` of its own. */
const builtinRelationshipFields: Readonly<Record<string, Readonly<Record<string, RawFieldDefinition>>>> = {
  [imageTypeName]: imageCropFields,
};

/** The relationship fields a relationship to `typeName` takes when it declares none (none: undefined). */
export function defaultRelationshipFields(typeName: string): { add: Readonly<Record<string, RawFieldDefinition>> } | undefined {
  return Object.hasOwn(builtinRelationshipFields, typeName) ? { add: builtinRelationshipFields[typeName]! } : undefined;
}

/** Built-in piece types; their fields replace `basePieceFields` (none of them has `visibility`). */
export const builtinPieceTypes: Readonly<Record<string, RawModule>> = {
  '@cms/user': user,
  [imageTypeName]: image,
  [fileTypeName]: file,
  [imageTagTypeName]: mediaTag('Image Tag'),
  [fileTagTypeName]: mediaTag('File Tag'),
};

export const builtinPieceTypeNames: ReadonlySet<string> = new Set(Object.keys(builtinPieceTypes));

export const imageWidgetName = '@cms/image';

export interface RawWidgetType {
  readonly fields: { readonly add: Readonly<Record<string, RawFieldDefinition>> };
}

/**
 * Built-in widget types besides `@cms/rich-text` (whose content is not schema data). The image
 * widget is the original's `@apostrophecms/image-widget` (one image piece, required), with a
 * caption.
 */
export const builtinWidgetTypes: Readonly<Record<string, RawWidgetType>> = {
  [imageWidgetName]: {
    fields: {
      add: {
        _image: { type: 'relationship', label: 'Image', withType: imageTypeName, max: 1, required: true },
        caption: { type: 'string', label: 'Caption' },
      },
    },
  },
};
