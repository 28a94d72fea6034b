import qs from 'qs';

const qsOptions = { depth: 3, arrayLimit: 200, parameterLimit: 500, allowPrototypes: false } as const;

// `name=value` pairs whose text needs no decoding and no bracket syntax: what most reads send
// (`page=2&perPage=20&cmsLocale=en`).
const plainPairs = /^[A-Za-z0-9_-]+=[A-Za-z0-9_.~-]*(?:&[A-Za-z0-9_-]+=[A-Za-z0-9_.~-]*){0,15}$/;

/**
 * The query string parser: bracket syntax (`_ids[]=a`, `sort[title]=1`) without
 * prototype keys, with bounded size (qs). A query of plain `name=value` pairs, each name once and
 * none a property of every object, is split here instead: qs would give the same object at about
 * fifty times the cost.
 */
export function parseQueryString(text: string): Record<string, unknown> {
  if (text.length === 0) return {};
  if (plainPairs.test(text)) {
    const query: Record<string, string> = {};
    for (const pair of text.split('&')) {
      const equals = pair.indexOf('=');
      const name = pair.slice(0, equals);
      if (name in query) return qs.parse(text, qsOptions);
      query[name] = pair.slice(equals + 1);
    }
    return query;
  }
  return qs.parse(text, qsOptions);
}

/**
 * The router's query string parser: the query as `parseQueryString` gives it, parsed only when
 * first read. The router parses every request's query before any hook runs; an answer the
 * response cache holds is found by the raw URL (`canonicalUrl`), and the auth hook asks the raw
 * text whether a credential may be in it (`mayHaveParameter`), so such a request is answered
 * without its query ever parsed: a filtered list's brackets cost qs tens of microseconds.
 */
export function lazyQueryString(text: string): Record<string, unknown> {
  if (text.length === 0) return {};
  const target: Record<string, unknown> = {};
  let parsed = false;
  const query = (): Record<string, unknown> => {
    if (!parsed) {
      parsed = true;
      Object.assign(target, parseQueryString(text));
    }
    return target;
  };
  // Every trap that reads or writes the query's own properties parses it first, then acts on it.
  return new Proxy(target, {
    get: (_, name, receiver) => Reflect.get(query(), name, receiver),
    set: (_, name, value, receiver) => Reflect.set(query(), name, value, receiver),
    has: (_, name) => Reflect.has(query(), name),
    ownKeys: () => Reflect.ownKeys(query()),
    getOwnPropertyDescriptor: (_, name) => Reflect.getOwnPropertyDescriptor(query(), name),
    defineProperty: (_, name, descriptor) => Reflect.defineProperty(query(), name, descriptor),
    deleteProperty: (_, name) => Reflect.deleteProperty(query(), name),
  });
}

// A parameter name the parser reads without decoding it, matched where a parameter starts: its
// top-level name is the text before its first bracket.
const plainNameAt = /[A-Za-z0-9_-]+(?:\[[A-Za-z0-9_-]*\])*/y;

/**
 * Whether the parsed query of a raw URL may have one of `names` at its top level. False only
 * when every parameter's name is plain (letters, digits, `_`, `-`, then brackets) and none's
 * top-level name is one of `names`: the parser could not give them. Any other spelling (an
 * encoded name, a `+`, a leading bracket, an empty name) answers true, and the caller reads the
 * parsed query. Every request asks it: it scans the text in place, slicing nothing.
 */
export function mayHaveParameter(url: string, names: readonly string[]): boolean {
  const mark = url.indexOf('?');
  if (mark === -1) return false;
  // The next `=` and `[` at or after a parameter's start, found again only once passed: a query of
  // many parameters without them (`a&a&a…`) is scanned once, not once per parameter.
  let equals = mark;
  let bracket = mark;
  for (let start = mark + 1; start < url.length; ) {
    const ampersand = url.indexOf('&', start);
    const end = ampersand === -1 ? url.length : ampersand;
    if (end > start) {
      if (equals !== -1 && equals < start) equals = url.indexOf('=', start);
      const nameEnd = equals === -1 || equals > end ? end : equals;
      plainNameAt.lastIndex = start;
      if (nameEnd === start || !plainNameAt.test(url) || plainNameAt.lastIndex !== nameEnd) return true;
      if (bracket !== -1 && bracket < start) bracket = url.indexOf('[', start);
      const topEnd = bracket === -1 || bracket > nameEnd ? nameEnd : bracket;
      if (names.some((name) => name.length === topEnd - start && url.startsWith(name, start))) return true;
    }
    start = end + 1;
  }
  return false;
}
