import { cdnTagOf, documentCdnTag } from '../content/generation-keys.js';

/** What a CDN in front files a shared answer under, to purge it by tag. */
export interface CdnTags {
  /** Space-separated (Fastly). */
  readonly surrogateKey: string;
  /** Comma-separated (Cloudflare). */
  readonly cacheTag: string;
}

/**
 * The tags of a shared answer. A list: one per generation key it depends on (`article:published`,
 * `@cms/user` for a type without modes, `attachments`) and each type's name alone (`article`).
 * An answer that names what it read (a get-one, `sources`): `doc:<cmsDocId>` for the document it
 * shows and each document it embeds, and the tags of the keys it read besides (the types its
 * reverse relationships read, the attachments), so that a write to another document of its type
 * leaves it at the CDN as on the server. When those would make the value longer than `maxLength`
 * (`limits.cdnTagsLength`), the type-level tags of `dependencies` (every type it can reach: they
 * purge it as well) stand for them, and when even those would, no tags are sent.
 */
export function cdnTagsOf(
  dependencies: readonly string[],
  sources: { readonly keys: readonly string[]; readonly versions: readonly string[] } | undefined,
  maxLength: number,
): CdnTags | null {
  const typeLevel = tagsOfKeys(dependencies);
  const choices = sources
    ? [[...tagsOfKeys(sources.keys), ...new Set(sources.versions.map((id) => documentCdnTag(id.split(':')[0]!)))], typeLevel]
    : [typeLevel];
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
