/**
 * Stable component names: `article` → `Article`, `blog-post` → `BlogPost`, `@cms/image` →
 * `CmsImage`. Generated clients name their types after these, so they never change with order.
 */
export function pascalName(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
  const joined = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
  // A component name must not start with a digit in most generators' languages.
  return /^[A-Za-z]/.test(joined) ? joined : `T${joined}`;
}

/** Suffixes of the four shapes of a piece type's documents. */
export const shapeSuffix = { read: '', public: 'Public', write: 'Input', patch: 'Patch' } as const;

export type DocumentShape = keyof typeof shapeSuffix;

/**
 * The base component name of each piece type (`suffixes`: its shapes) or widget type (`Widget`),
 * unique among all names taken so far: two names that spell alike (`blog-post`, `blog_post`) get a
 * number, and `article-public` cannot take `ArticlePublic` from `article`.
 */
export function uniqueNames(names: Iterable<string>, suffixes: readonly string[], taken: Set<string>): Map<string, string> {
  const result = new Map<string, string>();
  for (const name of names) {
    const base = pascalName(name);
    let candidate = base;
    for (let n = 2; suffixes.some((suffix) => taken.has(`${candidate}${suffix}`)); n++) candidate = `${base}${n}`;
    for (const suffix of suffixes) taken.add(`${candidate}${suffix}`);
    result.set(name, candidate);
  }
  return result;
}

export function ref(component: string): { $ref: string } {
  return { $ref: `#/components/schemas/${component}` };
}
