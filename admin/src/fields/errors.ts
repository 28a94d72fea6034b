import { computed, inject, provide, shallowRef, type InjectionKey, type Ref } from 'vue';
import type { ErrorBody } from '../api/types';

/**
 * The server's validation errors by full field path. A refusal nests errors: `{ path: "steps",
 * data: { errors: [{ path: "<itemId>.label" }] } }` becomes "steps.<itemId>.label". Array items are
 * addressed by their `_id`, area widgets by their index, so each field asks for its own path.
 */
export type FieldErrors = ReadonlyMap<string, string>;

type NestedError = { path: string; message?: string; name: string; data?: { errors?: NestedError[] } };

export function flattenErrors(body: ErrorBody): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (errors: readonly NestedError[] | undefined, prefix: string) => {
    for (const error of errors ?? []) {
      const path = prefix ? `${prefix}.${error.path}` : error.path;
      if (error.data?.errors?.length) walk(error.data.errors, path);
      else found.set(path, error.message || error.name);
    }
  };
  walk(body.data?.errors as NestedError[] | undefined, '');
  return found;
}

const errorsKey: InjectionKey<Ref<FieldErrors>> = Symbol('field errors');

/** Called by the editor: every field below reads its error from here. */
export function provideFieldErrors(): Ref<FieldErrors> {
  const errors = shallowRef<FieldErrors>(new Map());
  provide(errorsKey, errors);
  return errors;
}

/** The message for exactly this path, and whether anything inside it has an error. */
export function useFieldError(path: () => string) {
  const errors = inject(errorsKey, shallowRef<FieldErrors>(new Map()));
  const message = computed(() => errors.value.get(path()));
  const hasNestedError = computed(() => {
    const prefix = `${path()}.`;
    for (const key of errors.value.keys()) if (key.startsWith(prefix)) return true;
    return false;
  });
  return { message, hasNestedError };
}
