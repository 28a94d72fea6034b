import { ref } from 'vue';
import { useRouter } from 'vue-router';
import {
  deletePiece, publishPiece, revertDraftToPublished, revertPublishedToPrevious, schedulePiece, setArchived, unpublishPiece,
  type ScheduleBody,
} from '../api/pieces';
import type { PieceDocument } from '../api/types';
import { confirmAction } from '../ui/confirm';
import { notify, notifyError } from '../ui/notify';
import { t } from '../i18n';
import { changedSinceRead } from './conflict';
import type { EditedDocument, EditorTarget, LoadedDocument } from './use-document-loader';

/**
 * The draft workflow's buttons, run one at a time, saving unsaved changes first where the
 * action would leave them behind, and reloading the document after. Each sends `If-Match` with
 * the ETag of the version it acts on, so none acts on a version the editor has not seen.
 */
export function useWorkflow(target: EditorTarget, loaded: LoadedDocument, save: () => Promise<EditedDocument | undefined>) {
  const router = useRouter();
  const { doc, tracker, hasPublished } = loaded;
  const busy = ref('');

  /** Runs one action at a time; its refusal is shown, and the document reloads after it. */
  async function run(name: string, action: () => Promise<string | undefined>): Promise<void> {
    if (busy.value) return;
    busy.value = name;
    try {
      const done = await action();
      if (done) {
        notify(done);
        await loaded.load(true);
      }
    } catch (error) {
      await showRefusal(error);
    } finally {
      busy.value = '';
    }
  }

  /** Saves first when the form has changes the action would otherwise leave behind. */
  async function savedDraft(): Promise<EditedDocument | undefined> {
    if (!doc.value?._id || tracker.check()) return save();
    return doc.value;
  }

  /**
   * A 412: the version changed since the editor read it, and the action was not done. The form
   * shows the version now stored, unless it holds changes of the user's (the next save compares).
   */
  async function showRefusal(error: unknown): Promise<void> {
    const change = changedSinceRead(error);
    if (!change) return notifyError(error);
    const unsaved = tracker.check();
    notify(t(unsaved ? 'workflow.nothingDone' : 'workflow.nothingDoneReloaded', { change: change.message }), 'error', 10000);
    if (!unsaved) await loaded.load(true);
  }

  const draftId = () => doc.value!._id!;
  /**
   * `If-Match` of every action: the ETag of the draft the editor shows. The server checks it
   * against the document's versions in this locale, so it also guards an action that writes the
   * published version (archiving a published document).
   */
  const draftTag = () => ({ ifMatch: loaded.etag.value });

  const workflow = {
    saveDraft: () =>
      run('save', async () => {
        const saved = await save();
        if (saved) notify(target.type.autopublish ? t('workflow.savedAndPublished') : t('workflow.draftSaved'));
        return undefined;
      }),
    publish: () =>
      run('publish', async () => ((await savedDraft()) ? (await publishPiece(target.typeName, draftId(), draftTag()), t('workflow.published')) : undefined)),
    /** A scheduled publish publishes what the draft holds then: unsaved changes are saved first. */
    schedule: (body: ScheduleBody) =>
      run('schedule', async () => {
        if (body.publishAt && !(await savedDraft())) return undefined;
        await schedulePiece(target.typeName, draftId(), body, draftTag());
        return Object.values(body).some((at) => at) ? t('workflow.scheduled') : t('workflow.scheduleCancelled');
      }),
    unpublish: () => run('unpublish', async () => (await unpublishPiece(target.typeName, draftId(), draftTag()), t('workflow.unpublished'))),
    discard: () =>
      run('discard', async () => {
        const sure = await confirmAction({
          title: t('workflow.discardTitle'),
          message: t('workflow.discardMessage'),
          confirmLabel: t('workflow.discardConfirm'),
          danger: true,
        });
        return sure ? (await revertDraftToPublished(target.typeName, draftId(), draftTag()), t('workflow.discarded')) : undefined;
      }),
    undoPublish: () =>
      run('undoPublish', async () => {
        const sure = await confirmAction({
          title: t('workflow.undoTitle'),
          message: t('workflow.undoMessage'),
          confirmLabel: t('workflow.undoPublish'),
        });
        return sure ? (await revertPublishedToPrevious(target.typeName, draftId(), draftTag()), t('workflow.undone')) : undefined;
      }),
    archive: (archived: boolean) =>
      run(archived ? 'archive' : 'restore', async () => {
        const saved = await savedDraft();
        if (!saved) return undefined;
        await setArchived(target.typeName, saved as PieceDocument, archived, draftTag());
        return archived ? t('notices.archived') : t('workflow.restored');
      }),
    remove: () =>
      run('delete', async () => {
        const sure = await confirmAction({
          title: t('workflow.deleteTitle', { title: doc.value?.title || t('workflow.thisDocument') }),
          message: hasPublished.value ? t('workflow.deleteDraftAndPublished') : t('workflow.deleteDraft'),
          confirmLabel: t('mediaDetails.delete'),
          danger: true,
        });
        if (!sure) return undefined;
        await deletePiece(target.typeName, draftId(), draftTag());
        tracker.forget();
        notify(t('notices.deleted'));
        await router.push({ name: 'list', params: { type: target.typeName } });
        return undefined;
      }),
  };

  return { busy, workflow };
}
