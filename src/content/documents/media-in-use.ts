import type { AppConfig } from '../app-config.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import type { StorageSession, StoredDocument, TypeQuery } from '../../storage/storage-adapter.js';
import type { Caller } from './caller.js';
import type { ReverseBookkeeping } from './reverse-bookkeeping.js';
import { ConflictError } from '../../errors/app-error.js';
import { canAccessApi, visibleValues } from '../access/permissions.js';
import { fileTypeName, imageTypeName } from '../types/builtin-types.js';
import { reverseIdsOf } from './reverse-bookkeeping.js';

/** The media types whose pieces published documents show: taking one away from them is refused unless forced. */
const mediaTypeNames: ReadonlySet<string> = new Set([imageTypeName, fileTypeName]);

/** A published document that shows the piece, as the refusal names it. */
export interface ShowingDocument {
  readonly _id: string;
  readonly type: string;
  readonly title: string;
}

/**
 * Deleting or archiving the published version of an image or file piece that published documents
 * show (relationships at any depth, image widgets, images inline in rich text) would leave
 * them showing nothing in its place: it is refused with a 409 naming them, unless the request
 * says `force` (`Caller.force`).
 *
 * The documents are found through the piece's `relatedReverseIds`, which the piece's published
 * version holds for the published versions relating to it in its locale (`ReverseBookkeeping`):
 * per type that can relate to it, one count and, for a caller with API access to that type, one
 * read of at most `limits.inUseListed` of them. Never a scan of the store. Only the documents a
 * caller may read are named (`_id`, `type`, `title`); the others are counted (`others`), so no
 * refusal tells a title the caller's role cannot see.
 */
export class MediaInUse {
  readonly #config: AppConfig;
  readonly #reverse: ReverseBookkeeping;

  constructor(deps: { config: AppConfig; reverse: ReverseBookkeeping }) {
    this.#config = deps.config;
    this.#reverse = deps.reverse;
  }

  /** Whether taking versions of `type` away may be refused: an image or file, without `force`. */
  guards(type: SanitizedPieceType, caller: Caller): boolean {
    return !caller.force && mediaTypeNames.has(type.name);
  }

  /**
   * In the transaction of a delete or an archive that takes `published` (the piece's published
   * version as stored; null: there is none, or it is archived already) away: refuses it while
   * live published documents show it, unless `caller.force`.
   */
  async refuseIfShown(session: StorageSession, type: SanitizedPieceType, caller: Caller, published: StoredDocument | null, action: 'delete' | 'archive'): Promise<void> {
    if (!published || !this.guards(type, caller)) return;
    const ids = reverseIdsOf(published).filter((id) => id !== published.cmsDocId);
    if (ids.length === 0) return;
    const locale = String(published.cmsLocale ?? '').split(':')[0]!;
    const { documents, total } = await this.#showing(session, caller, type.name, { ids, locale });
    if (total === 0) return;
    throw new ConflictError(refusalMessage(type, action, documents, total), { documents, others: total - documents.length });
  }

  /** The live published versions in `locale` of the documents `ids` names: those the caller may read, and how many in all. */
  async #showing(
    session: StorageSession,
    caller: Caller,
    typeName: string,
    { ids, locale }: { ids: readonly string[]; locale: string },
  ): Promise<{ documents: ShowingDocument[]; total: number }> {
    const documents: ShowingDocument[] = [];
    let total = 0;
    const max = this.#config.limits.inUseListed;
    for (const relating of this.#reverse.relatingTo(typeName)) {
      // A type that is not localized records nothing on localized pieces (ReverseBookkeeping).
      if (!relating.options.localized) continue;
      const query: TypeQuery = { type: relating.name, docIds: ids, locale, mode: 'published', archived: false, reverseIds: false };
      const count = await session.documents.count(query);
      total += count;
      if (count === 0 || documents.length >= max || !canAccessApi(caller.principal, relating)) continue;
      const sort = [{ field: 'titleSortified', direction: 1 as const }];
      const found = await session.documents.find({ ...query, visibility: visibleValues(caller.principal), sort, limit: max - documents.length });
      documents.push(...found.map((doc) => ({ _id: doc._id, type: doc.type, title: doc.title })));
    }
    return { documents, total };
  }
}

/** Names the documents the caller may read, and counts the rest: never a title it may not see. */
function refusalMessage(type: SanitizedPieceType, action: 'delete' | 'archive', documents: readonly ShowingDocument[], total: number): string {
  const others = total - documents.length;
  const named = [...documents.map((doc) => `“${doc.title}”`), ...(others > 0 ? [`${others} other${others === 1 ? '' : 's'}`] : [])];
  const what = type.options.label.toLowerCase();
  return `This ${what} is shown by ${total} published document${total === 1 ? '' : 's'} (${named.join(', ')}): send force=true to ${action} it anyway`;
}
