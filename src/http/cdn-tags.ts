import { cdnTagOf, documentCdnTag } from '../content/generation-keys.js';

/** What a CDN in front files a shared answer under, to purge it by tag. */
export interface CdnTags {
  /** Space-separated (Fastly). */
  readonly surrogateKey: string;
  /** Comma-separated (Cloudflare). */
  readonly cacheTag: string;
}

/** A get-one's document and the generation keys of what its type's documents can show besides. */
export interface ShownDocument {
  readonly docId: string;
  readonly relatedKeys: readonly string[];
}

/**
 * The tags of a shared answer. A list: one per generation key it depends on (`article:published`,
 * `@cms/user` for a type without modes, `attachments`) and each type's name alone (`article`).
 * A get-one (`shown`): `doc:<cmsDocId>` for its document, so that a write to another document of
 * its type leaves it at the CDN as on the server, and the tags of the keys of what its type can
 * show besides (`AnswerDependencies.relatedOf`). Those come from the schema, never from the data:
 * a tag per related document would name the ids the answer hides (an unpublished author) and
 * tell which relationships hold one; the price is that a write to any related document purges
 * the get-ones of the types that can show it. When they would make the value longer than
 * `maxLength` (`limits.cdnTagsLength`), the type-level tags of `dependencies` (every type it can
 * reach: they purge it as well) stand for them, and when even those would, no tags are sent.
 */
export function cdnTagsOf(dependencies: readonly string[], shown: ShownDocument | undefined, maxLength: number): CdnTags | null {
  const typeLevel = tagsOfKeys(dependencies);
  const choices = shown ? [[documentCdnTag(shown.docId), ...tagsOfKeys(shown.relatedKeys)], typeLevel] : [typeLevel];
  for (const chosen of choices) {
    if (chosen.length > 0 && chosen.join(' ').length <= maxLength) return { surrogateKey: chosen.join(' '), cacheTag: chosen.join(',') };
  }
  return null;
}

/** The tags of generation keys, each with its type's name alone before it. */
function tagsOfKeys(keys: readonly string[]): string[] {
  const tags = new Set<string>();
  for (const key of keys) {
    const tag = cdnTagOf(key);
    const colon = tag.lastIndexOf(':');
    if (colon > 0) tags.add(tag.slice(0, colon));
    tags.add(tag);
  }
  return [...tags];
}
