/**
 * `compute`, a pure function of a raw request URL, remembered for the URLs asked lately. Reads
 * ask for the same few URLs again and again (a response-cache hit is one), and a query read
 * again costs one map lookup instead of a scan: in the server a scan costs several times what a
 * tight loop measures, its allocations and cold code included. Bounded: at most `entries` URLs
 * of at most `maxLength` characters are held (a longer one is computed each time), and a full
 * memo starts over, so a client sending a new URL each time costs what no memo would. Only the
 * URLs whose value (and text) `remember` accepts are held: the callers keep out any URL that may
 * carry a credential or a share key, which is not to stay in memory after its request.
 */
export function memoByUrl<T>(
  compute: (url: string) => T,
  options: { readonly entries?: number; readonly maxLength?: number; readonly remember?: (value: T, url: string) => boolean } = {},
): (url: string) => T {
  const entries = options.entries ?? 1000;
  const maxLength = options.maxLength ?? 1000;
  const remember = options.remember ?? (() => true);
  const memo = new Map<string, T>();
  return (url) => {
    const known = memo.get(url);
    if (known !== undefined || memo.has(url)) return known as T;
    const value = compute(url);
    if (url.length <= maxLength && remember(value, url)) {
      if (memo.size >= entries) memo.clear();
      memo.set(url, value);
    }
    return value;
  };
}
