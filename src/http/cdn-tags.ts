import { cdnTagOf, documentCdnTag } from '../content/generation-keys.js';

/** What a CDN in front files a shared answer under, to purge it by tag. */
export interface CdnTags {
  /** Space-separated (Fastly). */
  readonly surrogateKey: string;
  /** Comma-separated (Cloudflare). */
  readonly cacheTag: string;
}

/**
 * The tags of a shared answer: one per generation key it depends on (`article:published`,
 * `@cms/user` for a type without modes, `attachments`), each type's name alone (`article`), and
 * `doc:<cmsDocId>` for each document the answer itself shows by id. The type-level tags are
 * bounded by the configuration; when the document tags would make the value longer than
 * `maxLength` (`limits.cdnTagsLength`), they are left out (the type-level ones purge the answer as well), and when
 * even the type-level ones would, no tags are sent.
 */
export function cdnTagsOf(dependencies: readonly string[], docIds: readonly string[], maxLength: number): CdnTags | null {
  const tags = new Set<string>();
  for (const key of dependencies) {
    const tag = cdnTagOf(key);
    const colon = tag.lastIndexOf(':');
    if (colon > 0) tags.add(tag.slice(0, colon));
    tags.add(tag);
  }
  const typeLevel = [...tags];
  const all = [...typeLevel, ...docIds.map(documentCdnTag)];
  for (const chosen of [all, typeLevel]) {
    if (chosen.length > 0 && chosen.join(' ').length <= maxLength) return { surrogateKey: chosen.join(' '), cacheTag: chosen.join(',') };
  }
  return null;
}
