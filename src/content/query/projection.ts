type Output = Record<string, unknown>;

/** Properties an inclusion projection always keeps. */
const alwaysKept = new Set(['_id', 'type', 'metaType']);

/** A relationship may be projected by its field name with or without the underscore. */
export function projectionGoverns(projection: Readonly<Record<string, unknown>>, key: string): boolean {
  return Boolean(projection[key] || (key.startsWith('_') && projection[key.slice(1)]));
}

/**
 * Inclusion projection (`{ title: 1 }`): the named properties plus `_id`, `type`, `metaType`;
 * `_url` brings `_parentUrl`.
 */
export function includeOnly(output: Output, projection: Readonly<Record<string, unknown>>): Output {
  const kept: Output = {};
  for (const key of Object.keys(output)) {
    if (alwaysKept.has(key) || projectionGoverns(projection, key)) kept[key] = output[key];
  }
  if (projection._url && output._parentUrl !== undefined) kept._parentUrl = output._parentUrl;
  return kept;
}

/** A client's `project` parameter: all true is an inclusion, all false an exclusion. */
export function applyProjection(output: Output, projection: Readonly<Record<string, boolean>>): Output {
  if (Object.values(projection).some(Boolean)) return includeOnly(output, projection);
  const kept: Output = {};
  for (const key of Object.keys(output)) {
    if (alwaysKept.has(key) || projection[key] === undefined) kept[key] = output[key];
  }
  return kept;
}
