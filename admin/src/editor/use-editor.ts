import { computed, onBeforeUnmount, ref } from 'vue';
import { getPieceIfChanged } from '../api/pieces';
import type { PieceDocument } from '../api/types';
import { session } from '../session';
import { provideFieldErrors } from '../fields/errors';
import { flushPendingWrites } from '../fields/pending-writes';
import { notify, notifyError } from '../ui/notify';
import { t } from '../i18n';
import { useAdvisoryLock } from './advisory-lock';
import { availableActions } from './available-actions';
import { changesAsText } from './conflict';
import { formPayload } from './form-payload';
import { useAutosave } from './use-autosave';
import { useDocumentLoader, type EditedDocument, type EditorTarget } from './use-document-loader';
import { useDraftSaving } from './use-draft-saving';
import { useWorkflow } from './use-workflow';
import { onChange } from '../live/live-events';

export type { EditedDocument, EditorPhase, EditorTarget } from './use-document-loader';

/**
 * The editor's state and operations: opening the document (use-document-loader), its advisory
 * lock (advisory-lock), saving it, autosave and guarding unsaved changes (use-draft-saving,
 * use-autosave), and the draft workflow (use-workflow).
 */
export function useEditor(target: EditorTarget) {
  const errors = provideFieldErrors();
  const form = ref<HTMLElement>();
  const loaded = useDocumentLoader(target, errors);
  const { doc, phase, loadError, versions, draftLocales, hasPublished, hasPrevious, tracker, etag } = loaded;
  const actions = computed(() =>
    availableActions({ type: target.type, doc: doc.value, hasPublished: hasPublished.value, hasPrevious: hasPrevious.value }),
  );
  const lock = useAdvisoryLock({
    typeName: target.typeName,
    versionId: () => (phase.value === 'ready' ? doc.value?._id : undefined),
    editable: () => actions.value.save,
    // The one editing left: what they saved shows before this tab may change it.
    onFreed: () => void load(true),
    onRefreshed: (stored) => void followStored(stored),
    onStillElsewhere: () => void followHolder(),
  });
  const { save, mayLeave, saveState, conflict } = useDraftSaving(target, loaded, errors, form, lock);
  const { busy, workflow } = useWorkflow(target, loaded, save);
  const isNew = computed(() => !doc.value?._id);
  /** Opening (again) shows the stored version: the status line starts from "Saved". */
  async function load(quiet = false, onNavigation = false): Promise<void> {
    saveState.value = { kind: 'saved' };
    await loaded.load(quiet, onNavigation);
  }
  /** Another tab holds the lock: the form is shown to read (and, after a take-over, to copy from). */
  const readOnly = computed(() => lock.state.value.kind === 'other' || lock.state.value.kind === 'lost');
  /** Drafts autosave; documents without drafts (autopublished, not localized) save only when asked. */
  const autosaves = computed(() => target.type.localized && !target.type.autopublish && actions.value.save);
  const autosave = useAutosave({
    enabled: () => autosaves.value && !isNew.value && !readOnly.value && !busy.value && !conflict.value,
    save: () => save({ auto: true }),
  });

  /** "Take over" (reading only) and "Take back control" (after a take-over, the form's values kept). */
  async function takeOver(): Promise<void> {
    const wasReading = lock.state.value.kind === 'other';
    await lock.takeOver();
    // Reading only, the form has no changes of its own: it shows what is stored now.
    if (wasReading && lock.state.value.kind === 'held') await load(true);
    // Taken back with values typed before the take-over: autosave saves them as after typing.
    else if (lock.state.value.kind === 'held' && autosaves.value) autosave.noteActivity();
  }

  /**
   * The lock was taken over and given back between two refreshes, and the other editor saved
   * meanwhile: a form without changes of its own shows what they saved; one with changes keeps
   * them (its next save is compared with the stored version, If-Match).
   */
  async function followStored(stored: PieceDocument): Promise<void> {
    const shown = doc.value;
    if (!shown || saveState.value.kind === 'saving' || busy.value || tracker.check()) return;
    // Only for a newer version: a refresh sent before this tab's own save committed answers the one before it,
    // and a needless reload then could land over what the editor types next.
    if (!stored.updatedAt || !shown.updatedAt || stored.updatedAt <= shown.updatedAt) return;
    notify(t('editor.followed', { name: stored.updatedBy?.title || stored.updatedBy?.username || t('common.someone') }));
    await load(true);
  }

  /**
   * Reading only while another editor holds the lock, at each refresh of it: the form follows
   * what they save. One conditional read (`If-None-Match`: the server answers 304 while nothing
   * changed), and the form shows the new version when there is one.
   */
  async function followHolder(): Promise<void> {
    const shown = doc.value;
    if (!shown?._id || !etag.value || !followsOthers()) return;
    const stored = await getPieceIfChanged(target.typeName, shown._id, { locale: session.locale, mode: 'draft' }, { archived: 'any' }, etag.value)
      .catch(() => undefined);
    // Still the document shown, still reading only (a take-over loads it itself).
    // Never over values typed meanwhile: a read-only form has none, so this only guards an edit from loss.
    if (stored && doc.value === shown && followsOthers() && !tracker.check()) await loaded.show(stored as EditedDocument);
  }

  /** Reading only (another tab holds the lock, or the role may not change it): the form shows what others save. */
  const followsOthers = () => lock.state.value.kind === 'other' || (phase.value === 'ready' && !actions.value.save);
  // The change stream tells of each save at once: the form follows it without waiting for the lock's next refresh.
  const stopFollowing = onChange((change) => {
    if (change._id === doc.value?._id && change.action !== 'delete') void followHolder();
  });
  onBeforeUnmount(stopFollowing);

  /** Puts the form's unsaved changes on the clipboard as text (after a take-over, to keep them elsewhere). */
  async function copyChanges(): Promise<void> {
    flushPendingWrites();
    if (!doc.value) return;
    const base = JSON.parse(tracker.savedState() ?? '{}') as Record<string, unknown>;
    try {
      await navigator.clipboard.writeText(changesAsText(target.type.fields, base, formPayload(target.type.fields, doc.value)));
      notify(t('editor.copied'));
    } catch (error) {
      notifyError(error);
    }
  }

  /** The form's input, change and click events: the dirty check and autosave follow the user's pauses. */
  function noteActivity(): void {
    tracker.noteActivity();
    if (autosaves.value) autosave.noteActivity();
  }

  return {
    doc, phase, loadError, busy, versions, draftLocales, hasPublished, isNew, actions, errors, form, tracker, load, workflow,
    lock: lock.state, readOnly, takeOver, copyChanges, saveState, conflict, noteActivity, etag,
    mayLeave: () => mayLeave(autosaves.value && !readOnly.value),
  };
}
