/** A value of one query parameter: the server reads `[]` lists and `[key]` objects as qs writes them. */
export type QueryValue =
  | string
  | number
  | boolean
  | null
  | undefined
  | readonly (string | number | boolean)[]
  | { readonly [key: string]: string | number | boolean | null | undefined };

/**
 * `?a=1&b[]=x&b[]=y&c[min]=2` for `{ a: 1, b: ['x', 'y'], c: { min: 2 } }`; undefined values are
 * left out, `null` is sent empty (an open range bound, "no value").
 */
export function queryString(parameters: Readonly<Record<string, QueryValue>>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(parameters)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      for (const item of value) search.append(`${key}[]`, String(item));
    } else if (typeof value === 'object' && value !== null) {
      for (const [inner, item] of Object.entries(value)) if (item !== undefined) search.append(`${key}[${inner}]`, item === null ? '' : String(item));
    } else {
      search.append(key, value === null ? '' : String(value));
    }
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
