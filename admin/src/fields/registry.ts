import { defineAsyncComponent, type Component } from 'vue';
import StringField from './StringField.vue';
import ColorField from './ColorField.vue';
import NumberField from './NumberField.vue';
import BooleanField from './BooleanField.vue';
import SelectField from './SelectField.vue';
import CheckboxesField from './CheckboxesField.vue';
import DateTimeField from './DateTimeField.vue';
import ArrayField from './ArrayField.vue';
import ObjectField from './ObjectField.vue';
import RelationshipField from './RelationshipField.vue';
import AttachmentField from './AttachmentField.vue';
import FallbackField from './FallbackField.vue';

/**
 * One component per field type of the server (the same registry idea as src/content/fields).
 * Areas carry the rich-text editor (tiptap), the heaviest code of the admin, so they come in their
 * own chunk; the router starts fetching it when it enters an editor whose form has an area
 * (editor/open-requests.ts), in parallel with the editor's code and the document.
 */
const AreaField = defineAsyncComponent(() => import('./AreaField.vue'));

const byType: Readonly<Record<string, Component>> = {
  string: StringField,
  slug: StringField,
  email: StringField,
  url: StringField,
  password: StringField,
  color: ColorField,
  integer: NumberField,
  float: NumberField,
  boolean: BooleanField,
  select: SelectField,
  checkboxes: CheckboxesField,
  date: DateTimeField,
  time: DateTimeField,
  dateAndTime: DateTimeField,
  array: ArrayField,
  object: ObjectField,
  relationship: RelationshipField,
  attachment: AttachmentField,
  area: AreaField,
};

export function fieldComponent(type: string): Component {
  return byType[type] ?? FallbackField;
}

/** Fields the forms never show: bookkeeping the server manages or the workflow buttons change. */
export const hiddenFields: ReadonlySet<string> = new Set(['archived']);
