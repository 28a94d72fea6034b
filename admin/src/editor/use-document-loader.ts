import { computed, nextTick, reactive, ref, shallowRef, type Ref } from 'vue';
import { ApiError, etagOf } from '../api/client';
import { newPiece } from '../api/pieces';
import type { PieceDocument, PieceTypeSchema } from '../api/types';
import type { FieldErrors } from '../fields/errors';
import { flushPendingWrites } from '../fields/pending-writes';
import { session } from '../session';
import { errorMessage } from '../ui/notify';
import { useDirtyTracker } from './dirty-tracker';
import { formPayload } from './form-payload';
import { openDocument } from './open-requests';

export type EditorPhase = 'loading' | 'ready' | 'missing' | 'not-found' | 'error';
export type EditedDocument = Partial<PieceDocument> & Record<string, unknown>;

export interface EditorTarget {
  readonly typeName: string;
  readonly type: PieceTypeSchema;
  /** undefined for a new document. */
  readonly docId: () => string | undefined;
}

/**
 * The edited document and how it opens: new, or the draft in the session's locale with its list of
 * versions, both requested at once. The document is one reactive object the fields edit in place;
 * the tracker compares it with what was last loaded or saved.
 */
export function useDocumentLoader(target: EditorTarget, errors: Ref<FieldErrors>) {
  const doc = shallowRef<EditedDocument>();
  const phase = ref<EditorPhase>('loading');
  /** The ETag of the draft the form is based on: every write sends it as `If-Match`. */
  const etag = ref<string>();
  const loadError = ref('');
  /** `cmsLocale` of every version of the set: `en:draft`, `en:published`, `en:previous`, … */
  const versions = ref<ReadonlySet<string>>(new Set());
  const tracker = useDirtyTracker(() => {
    flushPendingWrites();
    return doc.value ? formPayload(target.type.fields, doc.value) : undefined;
  });
  let loadCount = 0;

  const locale = computed(() => session.locale);
  const hasPublished = computed(() => versions.value.has(`${locale.value}:published`) || !!doc.value?.lastPublishedAt);
  const hasPrevious = computed(() => versions.value.has(`${locale.value}:previous`));
  /** Locales holding a draft of this document, where it can be localized from. */
  const draftLocales = computed(() => [...versions.value].filter((v) => v.endsWith(':draft')).map((v) => v.split(':')[0]!));

  async function show(loaded: EditedDocument): Promise<void> {
    etag.value = etagOf(loaded);
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

  return { doc, phase, etag, loadError, versions, tracker, hasPublished, hasPrevious, draftLocales, show, load };
}

export type LoadedDocument = ReturnType<typeof useDocumentLoader>;
