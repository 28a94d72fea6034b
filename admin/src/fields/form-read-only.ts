import { inject, provide, ref, type InjectionKey, type Ref } from 'vue';

/**
 * Whether the whole form is read only (another editor holds the document, or the role may not
 * save it). A disabled fieldset stops inputs and buttons, but not a contenteditable (rich text):
 * the fields that edit through one read this instead.
 */
const formReadOnlyKey: InjectionKey<Readonly<Ref<boolean>>> = Symbol('formReadOnly');

export function provideFormReadOnly(readOnly: Readonly<Ref<boolean>>): void {
  provide(formReadOnlyKey, readOnly);
}

export function useFormReadOnly(): Readonly<Ref<boolean>> {
  return inject(formReadOnlyKey, ref(false));
}
