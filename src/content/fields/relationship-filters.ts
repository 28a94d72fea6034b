import type { Choice, FilterContext, HeldValue, QueryFilter } from './field-type.js';
import type { FilterOperation, IndexValue } from '../../storage/storage-adapter.js';
import { FieldFailure } from './field-type.js';

/**
 * The list filters of a relationship (the original's `_topic`, `_topicAnd`, `topic`,
 * `topicAnd`): by related ids or by related slugs, any (`in`) or every one (`all`) of them;
 * `none` finds documents relating to nothing.
 */

export interface RelationshipFilterSpec {
  /** The field name without its `_` (`topic` for `_topic`). */
  readonly base: string;
  /** Where `indexValues` put the related `cmsDocId`s (`topicIds`). */
  readonly key: string;
  readonly withType: string;
}

type Match = 'in' | 'all';
type Counted = readonly HeldValue[];
type Related = { _id: string; cmsDocId: string; type: string; slug: string; title: string };

/** Impossible to satisfy: an unknown slug among those that must all match. */
const matchNothing: FilterOperation = { op: 'in', values: [] };

/** One value or a list (`?_topic[]=a&_topic[]=b`); objects and nested lists are refused. */
function valueList(raw: unknown): string[] {
  const list = typeof raw === 'string' ? [raw] : raw;
  if (!Array.isArray(list) || !list.every((entry) => typeof entry === 'string')) {
    throw new FieldFailure('invalid', 'must be a value or a list of values');
  }
  return [...new Set(list.map((entry) => entry.trim()).filter((entry) => entry !== ''))];
}

/** The wanted values, `none`, or null when nothing is asked. */
function launder(raw: unknown): string[] | 'none' | null {
  const values = valueList(raw);
  if (values.length === 0) return null;
  return values.length === 1 && values[0] === 'none' ? 'none' : values;
}

/** The related documents found for the wanted ones; `all` cannot match when one is missing. */
function matching(match: Match, wanted: readonly string[], found: readonly Related[], by: 'cmsDocId' | 'slug'): FilterOperation {
  if (match === 'all' && !wanted.every((value) => found.some((doc) => doc[by] === value))) return matchNothing;
  return { op: match, values: found.map((doc) => doc.cmsDocId) };
}

function byIds(spec: RelationshipFilterSpec, name: string, match: Match): QueryFilter {
  return {
    name,
    key: spec.key,
    targetType: spec.withType,
    async parse(raw, ctx): Promise<FilterOperation | null> {
      const wanted = launder(raw);
      if (wanted === null) return null;
      if (wanted === 'none') return { op: 'none' };
      // A full `_id` names the document in any locale: the index holds `cmsDocId`s.
      const ids = [...new Set(wanted.map((id) => id.split(':')[0]!))];
      if (ctx.fullAccess) return { op: match, values: ids };
      // A caller who sees only the related documents it can read learns nothing of the others.
      return matching(match, ids, await ctx.findDocuments(spec.withType, { docIds: ids }), 'cmsDocId');
    },
    choices: (values, ctx) => relatedChoices(spec, values, ctx, '_id'),
  };
}

function bySlugs(spec: RelationshipFilterSpec, name: string, match: Match): QueryFilter {
  return {
    name,
    key: spec.key,
    targetType: spec.withType,
    async parse(raw, ctx): Promise<FilterOperation | null> {
      const wanted = launder(raw);
      if (wanted === null) return null;
      if (wanted === 'none') return { op: 'none' };
      return matching(match, wanted, await ctx.findDocuments(spec.withType, { slugs: wanted }), 'slug');
    },
    choices: (values, ctx) => relatedChoices(spec, values, ctx, 'slug'),
  };
}

/**
 * As the original's: each related document the caller can read, labelled by its title, with its
 * full `_id` (the version the caller reads), `slug`, `type` and `metaType`; the property the
 * filter takes (`_id`, or `slug` for the slug filters) is the `value`. Ordered by label,
 * ignoring case; related documents the caller cannot read are left out.
 */
async function relatedChoices(spec: RelationshipFilterSpec, values: Counted, ctx: FilterContext, valueKey: '_id' | 'slug'): Promise<Choice[]> {
  if (values.length === 0) return [];
  const docs = await ctx.findDocuments(spec.withType, { docIds: values.map(({ value }) => String(value)) });
  const byId = new Map(docs.map((doc) => [doc.cmsDocId, doc]));
  const choices = values.flatMap(({ value, count }) => {
    const doc = byId.get(String(value));
    if (!doc) return [];
    const { [valueKey]: chosen, ...rest } = { _id: doc._id, slug: doc.slug };
    return [{ value: chosen, label: doc.title, ...rest, type: doc.type, metaType: 'doc' as const, count }];
  });
  return choices.sort((a, b) => insensitive(a.label, b.label));
}

/** The original's `insensitiveSortByProperty`: lowercase comparison. */
function insensitive(a: string, b: string): number {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  return x < y ? -1 : x > y ? 1 : 0;
}

export function relationshipFilters(spec: RelationshipFilterSpec): QueryFilter[] {
  return [
    byIds(spec, `_${spec.base}`, 'in'),
    byIds(spec, `_${spec.base}And`, 'all'),
    bySlugs(spec, spec.base, 'in'),
    bySlugs(spec, `${spec.base}And`, 'all'),
  ];
}
