import { nextTick, type Ref } from 'vue';
import { useRouter } from 'vue-router';
import { ApiError } from '../api/client';
import { insertPiece, replacePiece } from '../api/pieces';
import { flattenErrors, type FieldErrors } from '../fields/errors';
import { inputId } from '../fields/field-props';
import { flushPendingWrites } from '../fields/pending-writes';
import { session } from '../session';
import { confirmAction } from '../ui/confirm';
import { notify, notifyError } from '../ui/notify';
import { formPayload } from './form-payload';
import type { EditedDocument, EditorTarget, LoadedDocument } from './use-document-loader';

/**
 * Saving the draft (a new document becomes an edited one, its URL following), the server's
 * refusals shown beside their fields, and the question before leaving unsaved changes.
 */
export function useDraftSaving(target: EditorTarget, loaded: LoadedDocument, errors: Ref<FieldErrors>, form: Ref<HTMLElement | undefined>) {
  const router = useRouter();
  const { doc, versions, tracker } = loaded;
  /** The editor's own move from `new` to `edit` after the first save: nothing is left behind. */
  let movingToSaved = false;

  /**
   * Server errors beside their fields, a notice, and focus on the first field in error. Errors
   * no field on screen shows (a path the form does not render) are spelled out in the notice.
   */
  async function showRefusal(error: unknown): Promise<void> {
    const byPath = error instanceof ApiError && error.status === 400 ? flattenErrors(error.body) : new Map<string, string>();
    if (byPath.size === 0) return notifyError(error);
    errors.value = byPath;
    await nextTick();
    const unseen = [...byPath].filter(([path]) => !document.getElementById(`${inputId(path)}-error`));
    const count = byPath.size === 1 ? 'one field needs' : `${byPath.size} fields need`;
    const details = unseen.map(([path, message]) => `${path}: ${message}`).join('; ');
    notify(`Not saved: ${count} attention.${details ? ` ${details}` : ''}`, 'error', 8000);
    const first = form.value?.querySelector<HTMLElement>(
      '.has-error input, .has-error select, .has-error textarea, .has-error [contenteditable="true"], .has-error button',
    );
    first?.focus();
  }

  /** Saves the draft (inserting a new document); answers the saved draft, or undefined when refused. */
  async function save(): Promise<EditedDocument | undefined> {
    flushPendingWrites();
    const current = doc.value;
    if (!current) return undefined;
    const body = formPayload(target.type.fields, current);
    const sent = JSON.stringify(body);
    const inserting = !current._id;
    try {
      const saved = current._id
        ? await replacePiece(target.typeName, current._id, body)
        : await insertPiece(target.typeName, { locale: session.locale, mode: 'draft' }, body);
      errors.value = new Map();
      if (inserting) versions.value = new Set([saved.cmsLocale]);
      await keepSaved(current, saved as EditedDocument, sent);
      if (inserting) {
        movingToSaved = true;
        try {
          await router.replace({ name: 'edit', params: { type: target.typeName, docId: saved.cmsDocId }, query: { locale: session.locale } });
        } finally {
          movingToSaved = false;
        }
      }
      return doc.value;
    } catch (error) {
      await showRefusal(error);
      return undefined;
    }
  }

  /**
   * Shows the saved draft as the server answered it, unless the user typed on while it saved:
   * then their form stays, with the saved bookkeeping (`_id`, status, …), and still counts as changed.
   */
  async function keepSaved(current: EditedDocument, saved: EditedDocument, sent: string): Promise<void> {
    if (doc.value !== current || JSON.stringify(formPayload(target.type.fields, current)) === sent) return loaded.show(saved);
    const fieldNames = new Set(target.type.fields.map((field) => field.name));
    for (const [key, value] of Object.entries(saved)) if (!fieldNames.has(key)) current[key] = value;
    tracker.markCleanAs(sent);
  }

  /** Whether the user may leave the form (route change, locale change): asks when it has unsaved changes. */
  async function mayLeave(): Promise<boolean> {
    if (movingToSaved || !tracker.check()) return true;
    return confirmAction({
      title: 'Leave without saving?',
      message: 'This document has changes that are not saved. They will be lost.',
      confirmLabel: 'Leave without saving',
      danger: true,
    });
  }

  return { save, mayLeave };
}
