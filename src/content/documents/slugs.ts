import type { DocumentStore, StorageSession, StoredDocument } from '../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import type { Mode } from '../../core/ids.js';
import { slugify } from '../../core/text.js';
import { storedBounds } from '../stored-shape.js';
import { archivedName, liveName } from './archive-prefix.js';

// Room left after a slug made from a title for the `-n` that makes it unique.
const suffixRoom = 12;

/**
 * The slug a version asks for: its own, else one made from the title, with the type's prefix.
 * One made from a title is cut to fit `storedBounds.slugLength` with its prefix and a suffix; a
 * slug given too long is refused when the version is stored.
 */
export function wantedSlug(slug: unknown, title: unknown, prefix: string): string {
  let base = typeof slug === 'string' && slug !== '' && slug !== 'none' ? slug : slugFromTitle(String(title ?? ''), prefix);
  if (base === '') base = 'none';
  return prefix && !base.startsWith(prefix) ? prefix + base : base;
}

function slugFromTitle(title: string, prefix: string): string {
  const room = storedBounds.slugLength - prefix.length - suffixRoom;
  return slugify(title).slice(0, Math.max(room, 0)).replace(/-+$/, '');
}

/**
 * The first free slug among `base`, `base-2`, `base-3`, ... in every given mode of one locale,
 * ignoring the document's own versions, so the draft and published versions keep the same slug.
 */
export async function uniqueSlug(
  store: DocumentStore,
  args: { base: string; locale: string | null; modes: readonly (Mode | null)[]; docId: string },
): Promise<string> {
  const taken = new Set<string>();
  for (const mode of args.modes) {
    for (const slug of await store.slugsLike({ locale: args.locale, mode, base: args.base, exceptDocId: args.docId })) {
      taken.add(slug);
    }
  }
  if (!taken.has(args.base)) return args.base;
  for (let n = 2; ; n++) {
    const candidate = `${args.base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * Gives the versions one slug, free in each of their modes, made from the title when empty. An
 * archived version's slug carries its document's archive prefix instead, which no other
 * document's can (`archived-names.ts`); a restored one's is made free again.
 */
export async function assignSlug(session: StorageSession, type: SanitizedPieceType, versions: readonly StoredDocument[]): Promise<void> {
  const first = versions[0];
  if (!first) return;
  const docId = first.cmsDocId;
  const asked = typeof first.slug === 'string' ? liveName(first.slug, docId) : first.slug;
  const base = wantedSlug(asked, first.title, type.options.slugPrefix);
  let slug: string;
  if (first.archived) slug = archivedName(base, docId);
  else {
    const locale = first.cmsLocale ? first.cmsLocale.split(':')[0]! : null;
    const modes = versions.map((version) => (version.cmsMode ?? null) as Mode | null);
    slug = await uniqueSlug(session.documents, { base, locale, modes, docId });
  }
  for (const version of versions) version.slug = slug;
}
