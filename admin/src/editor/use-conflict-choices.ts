import { shallowRef } from 'vue';
import type { FieldSchema } from '../api/types';
import { compareVersions, mergeChoices, type Choice, type FieldComparison } from './conflict';

/** A 412 being resolved: the comparison shown (ConflictDialog), answered with the choices or undefined (cancel). */
export interface OpenConflict {
  readonly comparisons: readonly FieldComparison[];
  readonly changedBy: string;
  readonly answer: (choices: Map<string, Choice> | undefined) => void;
}

/**
 * The question a 412 asks, the same in the editor (use-draft-saving.ts) and in the related
 * document's dialog: the fields the server changed since the form's `base`, each beside the
 * form's value, a choice where both changed it, and the form's values merged with the server's.
 * `conflict` is what the ConflictDialog shows while the user chooses.
 */
export function useConflictChoices() {
  const conflict = shallowRef<OpenConflict>();

  function ask(comparisons: readonly FieldComparison[], changedBy: string): Promise<Map<string, Choice> | undefined> {
    // A question still open (a save before this one) is cancelled: only the newest is answered.
    conflict.value?.answer(undefined);
    return new Promise((resolve) => {
      conflict.value = {
        comparisons,
        changedBy,
        answer: (choices) => {
          conflict.value = undefined;
          resolve(choices);
        },
      };
    });
  }

  /** The form's values rebased on `theirs`, as chosen (nothing to ask when no field differs); undefined when the user cancelled. */
  async function merged(
    fields: readonly FieldSchema[],
    versions: { readonly base: Readonly<Record<string, unknown>>; readonly mine: Readonly<Record<string, unknown>>; readonly theirs: Readonly<Record<string, unknown>> },
    changedBy: string,
  ): Promise<Record<string, unknown> | undefined> {
    const { base, mine, theirs } = versions;
    const comparisons = compareVersions(fields, base, mine, theirs);
    const choices = comparisons.length ? await ask(comparisons, changedBy) : new Map<string, Choice>();
    return choices && mergeChoices(fields, base, mine, theirs, choices);
  }

  return { conflict, merged };
}
