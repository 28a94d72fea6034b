import type { DocumentQuery, IndexValue, KeysetBound } from './storage-adapter.js';

/**
 * One term of a query's order as a keyset bound compares it. Both adapters order missing values
 * (NULL) below every other, as SQLite does: first when ascending, last when descending.
 */
export interface BoundTerm {
  /** Writes the term's SQL expression (binding what it needs, in the order it is written). */
  readonly expression: () => string;
  readonly descending: boolean;
  /** Whether the expression can be NULL (a JSON property); the columns never are. */
  readonly nullable: boolean;
  /** Writes the bound's value for this term (a placeholder, binding it); null: the bound has none. */
  readonly value: (() => string) | null;
}

/**
 * The condition "comes after the bound in this order": the expanded form of a row comparison,
 * `t1 > b1 OR (t1 = b1 AND (t2 > b2 OR ...))`, each term compared its own way (a row value
 * compares every term ascending, and knows no NULL). The first term's inclusive range is added
 * on its own, so that the planner starts the list index walk at the bound instead of testing
 * every entry before it: a deep page then costs what the first does.
 */
export function afterBoundCondition(terms: readonly BoundTerm[]): string {
  const [first] = terms;
  if (first === undefined) throw new Error('A keyset bound needs an order');
  const range = first.value !== null && !first.nullable
    ? `${first.expression()} ${first.descending ? '<=' : '>='} ${first.value()} AND `
    : '';
  return `(${range}${after(terms, 0)})`;
}

function after(terms: readonly BoundTerm[], index: number): string {
  const term = terms[index]!;
  const beyond = beyondBound(term);
  if (index === terms.length - 1) return beyond;
  const equal = term.value === null ? `${term.expression()} IS NULL` : `${term.expression()} = ${term.value()}`;
  return `(${beyond} OR (${equal} AND ${after(terms, index + 1)}))`;
}

/** The term strictly beyond the bound, NULL being below every value. */
function beyondBound(term: BoundTerm): string {
  if (term.value === null) {
    if (term.descending) return '(1 = 0)';
    return term.nullable ? `${term.expression()} IS NOT NULL` : '(1 = 1)';
  }
  if (!term.descending) return `${term.expression()} > ${term.value()}`;
  return term.nullable ? `(${term.expression()} < ${term.value()} OR ${term.expression()} IS NULL)` : `${term.expression()} < ${term.value()}`;
}

/**
 * The bound's value of each sort entry, in the sort's order: `_id` takes the bound's `id`, every
 * other entry the next of `values`. Refuses a bound that does not fit the query: a caller's
 * mistake (the list operation checks a cursor against its list before it reaches a store).
 */
export function boundValuesOf(query: DocumentQuery, bound: KeysetBound): (IndexValue | boolean | null)[] {
  if (query.order === 'ids') throw new Error('A keyset bound cannot follow an id list');
  const sort = query.sort ?? [];
  const others = sort.filter(({ field }) => field !== '_id').length;
  if (bound.values.length !== others || typeof bound.id !== 'string') {
    throw new Error(`A keyset bound has one value per sort field but _id (${others}), and an id`);
  }
  let next = 0;
  return sort.map(({ field }) => (field === '_id' ? bound.id : bound.values[next++] ?? null));
}
