import type { RouteLocationRaw } from 'vue-router';
import { listPieces } from '../api/pieces';
import { t } from '../i18n';
import { editableTypes, isAdmin } from '../session';

/** One thing the command palette can open: a type's list, a screen, or a document's editor. */
export interface PaletteEntry {
  readonly id: string;
  readonly label: string;
  /** What it is, shown beside the label ("List", "Screen", or the document's type). */
  readonly kind: string;
  readonly to: RouteLocationRaw;
}

/** Documents asked of each type per search: the palette shows at most this many per type. */
export const documentsPerType = 5;

/** Lower case without accents, so that "resume" finds "Résumé". */
function folded(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLocaleLowerCase();
}

/** The lists and screens the role may open, those whose name holds the typed text. */
export function matchingPlaces(text: string): PaletteEntry[] {
  const lists = editableTypes.value.map((type) => ({
    id: `list-${type.name}`, label: type.pluralLabel, kind: t('palette.kindList'), to: { name: 'list', params: { type: type.name } },
  }));
  const screens = [
    { id: 'home', label: t('home.title'), to: { name: 'home' } },
    { id: 'media', label: t('shell.media'), to: { name: 'media' } },
    ...(isAdmin.value ? [{ id: 'users', label: t('shell.users'), to: { name: 'users' } }, { id: 'audit', label: t('shell.audit'), to: { name: 'audit' } }] : []),
  ].map((screen) => ({ ...screen, kind: t('palette.kindScreen') }));
  const wanted = folded(text.trim());
  return [...lists, ...screens].filter((entry) => folded(entry.label).includes(wanted));
}

const titleOnly = { _id: 1, cmsDocId: 1, title: 1 };

/**
 * The drafts whose title or text completes the typed words (`autocomplete`, as the list's search),
 * in every type the role lists: one request per type, `documentsPerType` results each, all
 * cancelled together by `signal`. A type that refuses is left out; if all refuse, the first
 * refusal is thrown.
 */
export async function searchDocuments(text: string, locale: string, signal: AbortSignal): Promise<PaletteEntry[]> {
  const types = editableTypes.value;
  const query = { autocomplete: text, perPage: documentsPerType, project: titleOnly };
  const answers = await Promise.allSettled(types.map((type) => listPieces(type.name, { locale }, query, signal)));
  const refused = answers.find((answer) => answer.status === 'rejected');
  if (refused && answers.every((answer) => answer.status === 'rejected')) throw refused.reason;
  return answers.flatMap((answer, index) => {
    if (answer.status === 'rejected') return [];
    const type = types[index]!;
    return answer.value.results.map((doc) => ({
      id: `doc-${type.name}-${doc.cmsDocId}`,
      label: doc.title || t('common.untitled'),
      kind: type.label,
      to: { name: 'edit', params: { type: type.name, docId: doc.cmsDocId } },
    }));
  });
}
