import { computed, ref } from 'vue';
import { provideFieldErrors } from '../fields/errors';
import { useDocumentLoader, type EditorTarget } from './use-document-loader';
import { useDraftSaving } from './use-draft-saving';
import { useWorkflow } from './use-workflow';

export type { EditedDocument, EditorPhase, EditorTarget } from './use-document-loader';

/**
 * The editor's state and operations: opening the document (use-document-loader), saving it and
 * guarding unsaved changes (use-draft-saving), and the draft workflow (use-workflow).
 */
export function useEditor(target: EditorTarget) {
  const errors = provideFieldErrors();
  const form = ref<HTMLElement>();
  const loaded = useDocumentLoader(target, errors);
  const { save, mayLeave } = useDraftSaving(target, loaded, errors, form);
  const { busy, actions, workflow } = useWorkflow(target, loaded, save);
  const { doc, phase, loadError, versions, draftLocales, hasPublished, tracker, load } = loaded;
  const isNew = computed(() => !doc.value?._id);

  return { doc, phase, loadError, busy, versions, draftLocales, hasPublished, isNew, actions, errors, form, tracker, load, mayLeave, workflow };
}
