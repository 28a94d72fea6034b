import type { AppConfig } from '../app-config.js';
import { attachmentsGenerationKey, modeGenerationKey, type AnswerSources } from '../generation-keys.js';
import { composeId, type Mode } from '../../core/ids.js';
import { attachmentField } from '../fields/attachment.js';
import { relationshipTarget } from '../fields/relationship.js';
import { walkFieldDefinitions } from '../fields/walk-fields.js';
import type { FieldTypeLookup } from '../fields/convert-schema.js';

/**
 * The generation keys (`StorageAdapter.generation`) a type's cached answers depend on: those of
 * an answer that shows published versions only, and those of one that may show drafts (or, for
 * a type without modes, its one version).
 */
export interface AnswerDependencies {
  readonly published: readonly string[];
  readonly anyMode: readonly string[];
  /** The keys of the answer to a GET of `rawUrl` (path and raw query string); see `mayReadDrafts`. */
  of(rawUrl: string): readonly string[];
  /**
   * The keys of what a document of the type can show besides itself (the types its relationships
   * and reverse relationships reach, the attachments), for a GET of `rawUrl`: decided by the
   * schema alone, so that naming them tells nothing about the data (the CDN tags of a get-one).
   */
  relatedOf(rawUrl: string): readonly string[];
}

/**
 * What the answers about a piece type depend on: the versions of the type itself and of every
 * type it reaches through relationships and reverse relationships (followed on, though related
 * documents are shown without their own: the schema, not the data, decides, and a superset only
 * costs an early refresh), in the modes the answer may read, and the attachments when any of
 * them can hold an attachment field at any depth. A related type is read in the reader's mode or
 * published (relatedVersion), so an answer that reads published versions only depends on the
 * published versions of every type it reaches, and a draft save leaves it standing.
 */
export function answerDependencies(config: AppConfig, fieldTypes: FieldTypeLookup, typeName: string): AnswerDependencies {
  const all = { published: [] as string[], anyMode: [] as string[] };
  const related = { published: [] as string[], anyMode: [] as string[] };
  let attachments = false;
  const seen = new Set<string>();
  // Each type with whether it was reached through a relationship: the type itself only through one of its own.
  const pending: [string, boolean][] = [[typeName, false]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [name, reached] = next;
    const type = config.pieceTypes.get(name);
    if (type === undefined || seen.has(`${reached}:${name}`)) continue;
    seen.add(`${reached}:${name}`);
    const published = type.options.localized ? [modeGenerationKey(name, 'published')] : [modeGenerationKey(name, null)];
    const anyMode = type.options.localized ? [...published, modeGenerationKey(name, 'draft')] : published;
    for (const keys of reached ? [all, related] : [all]) {
      keys.published.push(...published.filter((key) => !keys.published.includes(key)));
      keys.anyMode.push(...anyMode.filter((key) => !keys.anyMode.includes(key)));
    }
    walkFieldDefinitions([type.fields], config.widgetTypes, (field) => {
      if (field.type === attachmentField.name) attachments = true;
      if (fieldTypes.get(field.type)?.relates) pending.push([relationshipTarget(field.name, field.options.withType), true]);
    });
  }
  if (attachments) {
    for (const keys of [all, related]) {
      keys.published.push(attachmentsGenerationKey);
      keys.anyMode.push(attachmentsGenerationKey);
    }
  }
  return {
    ...all,
    of: (rawUrl) => (mayReadDrafts(rawUrl) ? all.anyMode : all.published),
    relatedOf: (rawUrl) => (mayReadDrafts(rawUrl) ? related.anyMode : related.published),
  };
}

/**
 * Whether a GET may read draft versions, from its raw URL alone (before its query is parsed): a
 * draft is asked for by `cmsMode=draft`, `cmsLocale=<locale>:draft` or an id `<docId>:<locale>:draft`,
 * each of which spells `draft` in the URL unless it is percent-encoded. A URL with either may:
 * a title filter that says "draft" only costs an early refresh.
 */
export function mayReadDrafts(rawUrl: string): boolean {
  return rawUrl.includes('draft') || rawUrl.includes('%');
}

/**
 * Notes a read of related documents of `typeName` in `version` (`relatedVersion`): the versions
 * of the ids asked for, found or not (one made later would be shown); or, for a read by anything
 * else (a reverse relationship: any new document of the type could come to relate), the type's
 * versions of that mode.
 */
export function noteRelatedRead(
  sources: AnswerSources,
  typeName: string,
  version: { readonly locale?: string | null | undefined; readonly mode?: Mode | null | undefined },
  docIds: readonly string[] | undefined,
): void {
  if (docIds === undefined) {
    sources.keys.add(modeGenerationKey(typeName, version.mode ?? null));
    return;
  }
  for (const id of docIds) sources.versions.add(version.locale && version.mode ? composeId(id, version.locale, version.mode) : id);
}
