import { nextTick, reactive, ref, type Ref } from 'vue';
import { useRouter } from 'vue-router';
import { ApiError, etagOf } from '../api/client';
import { getPiece, insertPiece, replacePiece } from '../api/pieces';
import { flattenErrors, type FieldErrors } from '../fields/errors';
import { inputId } from '../fields/field-props';
import { flushPendingWrites } from '../fields/pending-writes';
import { session } from '../session';
import { confirmAction } from '../ui/confirm';
import { errorMessage, notify, notifyError } from '../ui/notify';
import { t } from '../i18n';
import { tookOverMessage, type AdvisoryLock } from './advisory-lock';
import { changedSinceRead, type ChangedBy } from './conflict';
import { useConflictChoices } from './use-conflict-choices';
import { formPayload } from './form-payload';
import type { EditedDocument, EditorTarget, LoadedDocument } from './use-document-loader';

/** What the status line says about saving: "Saved", "Saving…", or "Not saved: <reason>". */
export type SaveState = { readonly kind: 'saved' } | { readonly kind: 'saving' } | { readonly kind: 'failed'; readonly reason: string };

export interface SaveOptions {
  /** Saved by autosave: refusals show in the status line and beside fields, focus stays where the user types. */
  readonly auto?: boolean;
}

/** Rebasing on the server's version after a 412 and saving again: at most this many times in a row. */
const maxRebases = 3;

/**
 * Saving the draft (a new document becomes an edited one, its URL following), the server's
 * refusals shown beside their fields, the question before leaving unsaved changes, and the
 * two guards of concurrent editing: the advisory lock every save carries, and `If-Match` with
 * the ETag of the version the form is based on, whose 412 opens the field-by-field comparison.
 */
export function useDraftSaving(target: EditorTarget, loaded: LoadedDocument, errors: Ref<FieldErrors>, form: Ref<HTMLElement | undefined>, lock: AdvisoryLock) {
  const router = useRouter();
  const { doc, versions, tracker } = loaded;
  const saveState = ref<SaveState>({ kind: 'saved' });
  const { conflict, merged: rebasedValues } = useConflictChoices();
  /** The editor's own move from `new` to `edit` after the first save: nothing is left behind. */
  let movingToSaved = false;
  /** One save at a time, in the order asked: each is based on the ETag the one before answered. */
  let queue: Promise<unknown> = Promise.resolve();

  /** Server errors beside their fields and, unless autosaving, a notice and focus on the first field in error. */
  async function showRefusal(error: unknown, auto: boolean): Promise<string> {
    const byPath = error instanceof ApiError && error.status === 400 ? flattenErrors(error.body) : new Map<string, string>();
    if (byPath.size === 0) {
      if (!auto) notifyError(error);
      return error instanceof ApiError && error.status === 0 ? t('saving.offline') : errorMessage(error);
    }
    errors.value = byPath;
    const attention = t('saving.attention', byPath.size);
    if (auto) return attention;
    await nextTick();
    const unseen = [...byPath].filter(([path]) => !document.getElementById(`${inputId(path)}-error`));
    const details = unseen.map(([path, message]) => `${path}: ${message}`).join('; ');
    notify(`${t('saving.notSaved', { reason: attention })}.${details ? ` ${details}` : ''}`, 'error', 8000);
    const first = form.value?.querySelector<HTMLElement>(
      '.has-error input, .has-error select, .has-error textarea, .has-error [contenteditable="true"], .has-error button',
    );
    first?.focus();
    return attention;
  }

  /** Saves the draft (inserting a new document); answers the saved draft, or undefined when refused. */
  function save(options: SaveOptions = {}): Promise<EditedDocument | undefined> {
    const next = queue.then(() => saveNow(options.auto ?? false, 0));
    queue = next.catch(() => undefined);
    return next;
  }

  async function saveNow(auto: boolean, rebases: number): Promise<EditedDocument | undefined> {
    flushPendingWrites();
    const current = doc.value;
    if (!current) return undefined;
    // Autosave saves changes; a form back to its saved values has nothing to send, and is saved.
    if (auto && !tracker.check()) {
      if (saveState.value.kind === 'failed') errors.value = new Map();
      saveState.value = { kind: 'saved' };
      return current;
    }
    const lockState = lock.state.value;
    if (lockState.kind === 'other' || lockState.kind === 'lost') {
      saveState.value = { kind: 'failed', reason: lockState.kind === 'lost' ? tookOverMessage(lockState.holder) : t('lock.someoneElse') };
      return undefined;
    }
    const body = formPayload(target.type.fields, current);
    const sent = JSON.stringify(body);
    const inserting = !current._id;
    saveState.value = { kind: 'saving' };
    try {
      const saved = current._id
        ? await replacePiece(target.typeName, current._id, { ...body, ...lock.saveField() }, { ifMatch: loaded.etag.value })
        : await insertPiece(target.typeName, { locale: session.locale, mode: 'draft' }, body);
      errors.value = new Map();
      if (inserting) versions.value = new Set([saved.cmsLocale]);
      loaded.etag.value = etagOf(saved);
      await keepSaved(current, saved as EditedDocument, sent);
      saveState.value = { kind: 'saved' };
      if (inserting) await moveToSaved(saved.cmsDocId);
      return doc.value;
    } catch (error) {
      return refused(error, auto, rebases);
    }
  }

  async function refused(error: unknown, auto: boolean, rebases: number): Promise<EditedDocument | undefined> {
    const change = changedSinceRead(error);
    if (change && rebases < maxRebases) {
      try {
        return await resolveConflict(change, auto, rebases);
      } catch (failure) {
        saveState.value = { kind: 'failed', reason: await showRefusal(failure, auto) };
        return undefined;
      }
    }
    if (lock.noteRefusal(error)) {
      const state = lock.state.value;
      saveState.value = { kind: 'failed', reason: state.kind === 'lost' ? tookOverMessage(state.holder) : t('lock.someoneElse') };
      return undefined;
    }
    saveState.value = { kind: 'failed', reason: await showRefusal(error, auto) };
    return undefined;
  }

  async function moveToSaved(docId: string): Promise<void> {
    movingToSaved = true;
    try {
      await router.replace({ name: 'edit', params: { type: target.typeName, docId }, query: { locale: session.locale } });
    } finally {
      movingToSaved = false;
    }
  }

  /**
   * The 412: reads the version now stored, compares it field by field with what the form was
   * based on and what it holds, lets the user choose where both differ, then rebases the form on
   * the stored version (its ETag, its bookkeeping, the chosen values) and saves again.
   */
  async function resolveConflict(change: ChangedBy, auto: boolean, rebases: number): Promise<EditedDocument | undefined> {
    const current = doc.value!;
    saveState.value = { kind: 'failed', reason: change.message };
    const theirs = (await getPiece(target.typeName, current._id!, { locale: session.locale, mode: 'draft' }, { archived: 'any' })) as EditedDocument;
    flushPendingWrites();
    const fields = target.type.fields;
    const base = JSON.parse(tracker.savedState() ?? '{}') as Record<string, unknown>;
    const mine = formPayload(fields, current);
    const theirValues = formPayload(fields, theirs);
    const merged = await rebasedValues(fields, { base, mine, theirs: theirValues }, change.message);
    if (!merged || doc.value !== current) return undefined;
    const etag = etagOf(theirs);
    doc.value = reactive({ ...theirs, ...merged }) as EditedDocument;
    loaded.etag.value = etag;
    await nextTick();
    tracker.markCleanAs(JSON.stringify(theirValues));
    return saveNow(auto, rebases + 1);
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

  /**
   * Whether the user may leave the form (route change, locale change). Changes autosave would
   * keep are saved on the way out; the question comes only for changes that could not be saved.
   */
  async function mayLeave(autosaves: boolean): Promise<boolean> {
    if (movingToSaved || !tracker.check()) return true;
    if (autosaves && doc.value?._id) {
      await save({ auto: true });
      if (!tracker.check()) return true;
    }
    return confirmAction({
      title: t('saving.leaveTitle'),
      message: t('saving.leaveMessage'),
      confirmLabel: t('saving.leaveConfirm'),
      danger: true,
    });
  }

  return { save, mayLeave, saveState, conflict };
}
