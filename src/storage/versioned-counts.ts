// Each entry is one count statement with its values (a few hundred bytes); past this many the
// oldest goes, so callers varying a filter value cannot grow the counts without end.
const maxCounts = 1000;

/**
 * Counts an adapter keeps between writes: each under its statement and values, with the version
 * of the data it was counted at (whatever the adapter uses to know nothing was written since), and
 * given again only at that version.
 */
export class VersionedCounts {
  readonly #entries = new Map<string, { readonly version: string; readonly count: number }>();

  /** The count of `sql` with `params` if it was kept at `version`. */
  get(sql: string, params: readonly unknown[], version: string): number | undefined {
    const entry = this.#entries.get(keyOf(sql, params));
    return entry?.version === version ? entry.count : undefined;
  }

  /** Keeps a count read at `version`, which the caller read before counting. */
  set(sql: string, params: readonly unknown[], version: string, count: number): void {
    const key = keyOf(sql, params);
    this.#entries.delete(key);
    if (this.#entries.size >= maxCounts) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { version, count });
  }
}

/** The statement and its parameters as a key: numbers are tagged, since JSON writes Infinity (an open range bound) as null. */
function keyOf(sql: string, params: readonly unknown[]): string {
  return `${sql}\n${JSON.stringify(params.map((param) => (typeof param === 'number' ? { n: String(param) } : param)))}`;
}
