import { computed, nextTick, reactive, ref, shallowRef } from 'vue';
import { useRouter } from 'vue-router';
import { ApiError } from '../api/client';
import {
  deletePiece, insertPiece, newPiece, publishPiece, replacePiece,
  revertDraftToPublished, revertPublishedToPrevious, setArchived, unpublishPiece,
} from '../api/pieces';
import type { FieldSchema, PieceDocument, PieceTypeSchema } from '../api/types';
import { flattenErrors, provideFieldErrors } from '../fields/errors';
import { inputId } from '../fields/field-props';
import { openDocument } from './open-requests';
import { flushPendingWrites } from '../fields/pending-writes';
import { session } from '../session';
import { confirmAction } from '../ui/confirm';
import { errorMessage, notify, notifyError } from '../ui/notify';
import { availableActions } from './available-actions';
import { useDirtyTracker } from './dirty-tracker';
import { formPayload } from './form-payload';

export type EditorPhase = 'loading' | 'ready' | 'missing' | 'not-found' | 'error';
export type EditedDocument = Partial<PieceDocument> & Record<string, unknown>;

export interface EditorTarget {
  readonly typeName: string;
  readonly type: PieceTypeSchema;
  /** undefined for a new document. */
  readonly docId: () => string | undefined;
}


/**
 * The editor's state and operations: opening a document (new, or the draft in the session's
 * locale with its list of versions, both requested at once), saving, the draft workflow, and
 * unsaved-changes tracking. The document is one reactive object the fields edit in place.
 */
export function useEditor(target: EditorTarget) {
  const router = useRouter();
  const errors = provideFieldErrors();
  const doc = shallowRef<EditedDocument>();
  const phase = ref<EditorPhase>('loading');
  const loadError = ref('');
  const busy = ref('');
  /** `cmsLocale` of every version of the set: `en:draft`, `en:published`, `en:previous`, … */
  const versions = ref<ReadonlySet<string>>(new Set());
  const form = ref<HTMLElement>();
  const tracker = useDirtyTracker(() => {
    flushPendingWrites();
    return doc.value ? formPayload(target.type.fields, doc.value) : undefined;
  });
  let loadCount = 0;
  /** The editor's own move from `new` to `edit` after the first save: nothing is left behind. */
  let movingToSaved = false;


  const isNew = computed(() => !doc.value?._id);
  const locale = computed(() => session.locale);
  const hasPublished = computed(() => versions.value.has(`${locale.value}:published`) || !!doc.value?.lastPublishedAt);
  const hasPrevious = computed(() => versions.value.has(`${locale.value}:previous`));
  /** Locales holding a draft of this document, where it can be localized from. */
  const draftLocales = computed(() => [...versions.value].filter((v) => v.endsWith(':draft')).map((v) => v.split(':')[0]!));
  const actions = computed(() =>
    availableActions({ type: target.type, doc: doc.value, hasPublished: hasPublished.value, hasPrevious: hasPrevious.value }),
  );

  async function show(loaded: EditedDocument): Promise<void> {
    doc.value = reactive(loaded) as EditedDocument;
    phase.value = 'ready';
    // Fields may settle their values as they mount (an object field without an object): compare after.
    await nextTick();
    tracker.markClean();
  }

  /**
   * Opens the document; `quiet` keeps the form on screen while it reloads after an action, and
   * `onNavigation` takes the requests the router started for the route (editor/open-requests.ts).
   */
  async function load(quiet = false, onNavigation = false): Promise<void> {
    const count = ++loadCount;
    const docId = target.docId();
    const scope = { locale: session.locale, mode: 'draft' as const };
    if (!quiet) phase.value = 'loading';
    errors.value = new Map();
    try {
      if (!docId) {
        const fresh = await newPiece(target.typeName, scope);
        if (count !== loadCount) return;
        versions.value = new Set();
        return await show(fresh as EditedDocument);
      }
      const requests = openDocument(target.typeName, docId, scope.locale, onNavigation);
      const [draft, sets] = await Promise.allSettled([requests.draft, requests.versions]);
      if (count !== loadCount) return;
      versions.value = new Set(sets.status === 'fulfilled' ? sets.value.results.map((version) => version.cmsLocale) : []);
      if (draft.status === 'fulfilled') return await show(draft.value as EditedDocument);
      if (!(draft.reason instanceof ApiError && draft.reason.status === 404)) throw draft.reason;
      doc.value = undefined;
      tracker.forget();
      phase.value = draftLocales.value.length ? 'missing' : 'not-found';
    } catch (error) {
      if (count !== loadCount) return;
      loadError.value = errorMessage(error);
      phase.value = 'error';
    }
  }

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
    if (doc.value !== current || JSON.stringify(formPayload(target.type.fields, current)) === sent) return show(saved);
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

  /** Runs one action at a time; its refusal is shown, and the document reloads after it. */
  async function run(name: string, action: () => Promise<string | undefined>): Promise<void> {
    if (busy.value) return;
    busy.value = name;
    try {
      const done = await action();
      if (done) {
        notify(done);
        await load(true);
      }
    } catch (error) {
      notifyError(error);
    } finally {
      busy.value = '';
    }
  }

  /** Saves first when the form has changes the action would otherwise leave behind. */
  async function savedDraft(): Promise<EditedDocument | undefined> {
    if (!doc.value?._id || tracker.check()) return save();
    return doc.value;
  }

  const draftId = () => doc.value!._id!;

  const workflow = {
    saveDraft: () =>
      run('save', async () => {
        const saved = await save();
        if (saved) notify(target.type.autopublish ? 'Saved and published' : 'Draft saved');
        return undefined;
      }),
    publish: () =>
      run('publish', async () => ((await savedDraft()) ? (await publishPiece(target.typeName, draftId()), 'Published') : undefined)),
    unpublish: () => run('unpublish', async () => (await unpublishPiece(target.typeName, draftId()), 'Unpublished')),
    discard: () =>
      run('discard', async () => {
        const sure = await confirmAction({
          title: 'Discard draft changes?',
          message: 'The draft goes back to the published version. Changes since it was published are lost.',
          confirmLabel: 'Discard changes',
          danger: true,
        });
        return sure ? (await revertDraftToPublished(target.typeName, draftId()), 'Draft changes discarded') : undefined;
      }),
    undoPublish: () =>
      run('undoPublish', async () => {
        const sure = await confirmAction({
          title: 'Undo publish?',
          message: 'The previously published version is published again. The draft is not changed.',
          confirmLabel: 'Undo publish',
        });
        return sure ? (await revertPublishedToPrevious(target.typeName, draftId()), 'Previous version published again') : undefined;
      }),
    archive: (archived: boolean) =>
      run(archived ? 'archive' : 'restore', async () => {
        const saved = await savedDraft();
        if (!saved) return undefined;
        await setArchived(target.typeName, saved as PieceDocument, archived);
        return archived ? 'Archived' : 'Restored';
      }),
    remove: () =>
      run('delete', async () => {
        const sure = await confirmAction({
          title: `Delete “${doc.value?.title || 'this document'}”?`,
          message: `This deletes it in this locale for good: the draft${hasPublished.value ? ' and the published version' : ''}. Other locales stay.`,
          confirmLabel: 'Delete',
          danger: true,
        });
        if (!sure) return undefined;
        await deletePiece(target.typeName, draftId());
        tracker.forget();
        notify('Deleted');
        await router.push({ name: 'list', params: { type: target.typeName } });
        return undefined;
      }),
  };

  return { doc, phase, loadError, busy, versions, draftLocales, hasPublished, isNew, actions, errors, form, tracker, load, mayLeave, workflow };
}
