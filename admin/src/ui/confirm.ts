import { shallowRef } from 'vue';
import { t } from '../i18n';

/** One question at a time, answered in ConfirmDialog.vue (a native <dialog>: focus trapped, Esc cancels). */
export interface Question {
  readonly title: string;
  readonly message: string;
  /** Listed under the message (the documents a deletion would affect). */
  readonly items: readonly string[];
  readonly confirmLabel: string;
  readonly danger: boolean;
  readonly answer: (confirmed: boolean) => void;
}

export const currentQuestion = shallowRef<Question | undefined>();

export function confirmAction(options: { title: string; message: string; items?: readonly string[]; confirmLabel?: string; danger?: boolean }): Promise<boolean> {
  currentQuestion.value?.answer(false);
  return new Promise((resolve) => {
    currentQuestion.value = {
      title: options.title,
      message: options.message,
      items: options.items ?? [],
      confirmLabel: options.confirmLabel ?? t('common.confirm'),
      danger: options.danger ?? false,
      answer: (confirmed) => {
        currentQuestion.value = undefined;
        resolve(confirmed);
      },
    };
  });
}
