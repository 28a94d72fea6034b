import type { AppConfig } from '../app-config.js';
import type { Principal } from '../../core/principal.js';
import type { Mode } from '../../core/ids.js';
import type { Choice, FilterContext, QueryFilter } from '../fields/field-type.js';
import type { FieldTypeLookup } from '../fields/convert-schema.js';
import type { SanitizedField, SanitizedPieceType } from '../types/piece-type.js';
import type { DocumentQuery, DocumentStore, FilterCondition, FilterOperation, IndexValue } from '../../storage/storage-adapter.js';
import type { FieldError } from '../../errors/app-error.js';
import type { SortTerm } from './list-params.js';
import { FieldFailure } from '../fields/field-type.js';
import { InvalidRequestError, ValidationError } from '../../errors/app-error.js';
import { isProjected } from '../indexing/document-indexer.js';
import { canAccessApi, canReadType, visibleValues } from '../access/permissions.js';
import { relatedVersion } from '../documents/related-loader.js';

/** A filter offered by a type, with the field it belongs to. */
interface OfferedFilter {
  readonly filter: QueryFilter;
  readonly field: SanitizedField;
  /**
   * It names documents of a type the caller may not read: it filters nothing (its value is
   * ignored) and its choices are empty, so that neither tells whether a hidden document is related.
   */
  readonly blind: boolean;
}

/** Field types whose stored value is one scalar, so documents can be ordered by it. */
const sortableTypes = new Set(['string', 'slug', 'integer', 'float', 'select', 'boolean', 'date', 'time', 'dateAndTime', 'email', 'url', 'color']);

/** Sorting on these goes to their indexed stored form. */
const sortAliases: ReadonlyMap<string, string> = new Map([['title', 'titleSortified']]);

const bookkeepingSorts = new Set(['updatedAt', 'createdAt']);

/** Whether a caller (with API access or not: the public projection) may sort the type's lists on `name`. */
export function canSortOn(type: SanitizedPieceType, name: string, fullAccess: boolean): boolean {
  const visible = fullAccess || Boolean(type.options.publicApiProjection?.[name]);
  const field = type.fieldsByName.get(name);
  return visible && (bookkeepingSorts.has(name) || (field !== undefined && sortableTypes.has(field.type)));
}

/**
 * What a list query may filter, sort and count on, per piece type and per kind of caller: a
 * caller without API access is offered only what the type's public projection shows, so no
 * parameter can reveal a hidden field.
 */
export class ListQueries {
  readonly #config: AppConfig;
  readonly #registry: FieldTypeLookup;
  readonly #offered = new Map<string, ReadonlyMap<string, OfferedFilter>>();

  constructor(deps: { config: AppConfig; registry: FieldTypeLookup }) {
    this.#config = deps.config;
    this.#registry = deps.registry;
  }

  /**
   * The filters a caller may use on a type, by query-string name: the fields the caller sees;
   * those naming documents of a type the caller may not read (relationships) are `blind`. What
   * the caller may use depends on its role alone, which keys the cache.
   */
  filtersFor(type: SanitizedPieceType, principal: Principal): ReadonlyMap<string, OfferedFilter> {
    const cacheKey = `${principal.role ?? ''}:${type.name}`;
    let offered = this.#offered.get(cacheKey);
    if (!offered) {
      const fullAccess = canAccessApi(principal, type);
      offered = new Map(
        type.fields
          .filter((field) => field.name !== 'archived' && (fullAccess || this.#shows(type, field)))
          .flatMap((field) => (this.#registry.get(field.type)?.filters?.(field) ?? []).map((filter) => ({ filter, field })))
          .map(({ filter, field }) => {
            const blind = filter.targetType !== undefined && !this.#canRead(principal, filter.targetType);
            return [filter.name, { filter, field, blind }] as const;
          }),
      );
      this.#offered.set(cacheKey, offered);
    }
    return offered;
  }

  #canRead(principal: Principal, typeName: string): boolean {
    const type = this.#config.pieceTypes.get(typeName);
    return type !== undefined && canReadType(principal, type);
  }

  /** Laundered conditions by parameter name; parameters naming no offered filter are ignored. */
  async conditions(
    raw: ReadonlyMap<string, unknown>,
    offered: ReadonlyMap<string, OfferedFilter>,
    ctx: FilterContext,
  ): Promise<Map<string, readonly FilterCondition[]>> {
    const conditions = new Map<string, readonly FilterCondition[]>();
    const errors: FieldError[] = [];
    for (const [name, value] of raw) {
      const entry = offered.get(name);
      if (!entry || entry.blind) continue;
      try {
        const operation = await entry.filter.parse(value, ctx);
        if (Array.isArray(operation)) conditions.set(name, operation);
        else if (operation) conditions.set(name, [{ ...(operation as FilterOperation), key: entry.filter.key }]);
      } catch (error) {
        if (!(error instanceof FieldFailure)) throw error;
        errors.push({ name: error.failure, path: name, message: error.message, data: error.data });
      }
    }
    if (errors.length > 0) throw new ValidationError(errors);
    return conditions;
  }

  /** The store's sort for a `sort` parameter; unknown or hidden fields are refused alike. */
  sortFor(type: SanitizedPieceType, terms: readonly SortTerm[], fullAccess: boolean): SortTerm[] {
    return terms.map(({ field: name, direction }) => {
      if (!canSortOn(type, name, fullAccess)) {
        throw new InvalidRequestError(`sort: cannot sort on "${name}"`, { parameter: `sort[${name}]` });
      }
      return { field: sortAliases.get(name) ?? name, direction };
    });
  }

  /**
   * `choices`/`counts`: for each named filter, the values of its field among the documents the
   * query matches with that filter itself switched off (the others still apply); as the
   * original's, a list for every filter named that the caller may use, empty ones included.
   * `choices` needs no counts: the store then finds each value once (heldValues), not every
   * document holding it.
   */
  async choices(args: {
    names: readonly string[];
    offered: ReadonlyMap<string, OfferedFilter>;
    query: DocumentQuery;
    conditions: ReadonlyMap<string, readonly FilterCondition[]>;
    store: DocumentStore;
    ctx: FilterContext;
    withCounts: boolean;
  }): Promise<Record<string, Choice[]>> {
    const shown = args.names.flatMap((name) => {
      const entry = args.offered.get(name);
      return entry ? [{ name, entry }] : [];
    });
    // The filters not in use see every condition: one query, whose values the store reads for
    // all of them at once (heldValuesOfKeys). A filter in use sees the others only: its own.
    const reads = new Map<string, { query: DocumentQuery; wanted: { name: string; entry: OfferedFilter }[] }>();
    for (const wanted of shown) {
      if (wanted.entry.blind) continue;
      const group = args.conditions.has(wanted.name) ? `filter:${wanted.name}` : '';
      const others = [...args.conditions].filter(([other]) => other !== wanted.name).flatMap(([, conditions]) => conditions);
      const read = reads.get(group) ?? { query: { ...args.query, conditions: others }, wanted: [] };
      read.wanted.push(wanted);
      reads.set(group, read);
    }
    const valuesOf = new Map<string, { value: IndexValue; count?: number }[]>();
    for (const { query, wanted } of reads.values()) {
      const keys = wanted.map(({ entry }) => entry.filter.key);
      const values = args.withCounts
        ? await Promise.all(keys.map((key) => args.store.distinctValues(query, key)))
        : (await args.store.heldValuesOfKeys(query, keys)).map((held) => held.map((value) => ({ value })));
      wanted.forEach(({ name }, index) => valuesOf.set(name, values[index]!));
    }
    const result: Record<string, Choice[]> = {};
    for (const { name, entry } of shown) {
      if (entry.blind) {
        result[name] = [];
        continue;
      }
      const choices = await entry.filter.choices(valuesOf.get(name)!, args.ctx);
      result[name] = args.withCounts ? choices : choices.map(({ count: _count, ...choice }) => choice);
    }
    return result;
  }

  #shows(type: SanitizedPieceType, field: SanitizedField): boolean {
    const projection = type.options.publicApiProjection;
    return projection !== null && isProjected(projection, field, this.#registry);
  }

  /** Lookups for filters that name other documents (relationships by slug, choice labels). */
  filterContext(args: {
    store: DocumentStore;
    principal: Principal;
    locale: string | null;
    mode: Mode | null;
    fullAccess: boolean;
  }): FilterContext {
    const { store, principal, locale, mode, fullAccess } = args;
    const config = this.#config;
    return {
      locale,
      mode,
      principal,
      fullAccess,
      async findDocuments(typeName, by) {
        const type = config.pieceTypes.get(typeName);
        if (!type || !canReadType(principal, type)) return [];
        const docs = await store.find({
          type: type.name,
          ...relatedVersion(config, type, { principal, locale, mode }),
          archived: false,
          visibility: visibleValues(principal),
          docIds: by.docIds,
          conditions: by.slugs ? [{ key: 'slug', op: 'in', values: by.slugs }] : undefined,
          // Only their ids, slugs and titles are read: not the ids of every document relating to
          // them (an author of 4,000 articles holds 8,000, read for each choice).
          reverseIds: false,
        });
        // A title the caller may not read is not revealed through a label either.
        const titleShown = canAccessApi(principal, type) || Boolean(type.options.publicApiProjection?.title);
        return docs.map((doc) => ({ _id: doc._id, cmsDocId: doc.cmsDocId, type: doc.type, slug: doc.slug, title: titleShown ? doc.title : doc.slug }));
      },
    };
  }
}
