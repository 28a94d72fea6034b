type Output = Record<string, unknown>;

/** Properties an inclusion projection always keeps. */
const alwaysKept = new Set(['_id', 'type', 'metaType']);

/** A relationship may be projected by its field name with or without the underscore. */
export function projectionGoverns(projection: Readonly<Record<string, unknown>>, key: string): boolean {
  return Boolean(projection[key] || (key.startsWith('_') && projection[key.slice(1)]));
}

/**
 * Computed properties a projected property brings along, as the original computes them from it:
 * the piece page's with `_url`, an image's `_prevAttachmentId` with its `attachment`.
 */
const companions: Readonly<Record<string, readonly string[]>> = { _url: ['_parentUrl', '_parentSlug'], attachment: ['_prevAttachmentId'] };

/** Whether an inclusion projection keeps `key` of an output: named, always kept, or brought by what is named. */
export function keptBy(projection: Readonly<Record<string, unknown>>, key: string): boolean {
  if (alwaysKept.has(key) || projectionGoverns(projection, key)) return true;
  return Object.entries(companions).some(([named, brought]) => Boolean(projection[named]) && brought.includes(key));
}

/**
 * Inclusion projection (`{ title: 1 }`): the named properties plus `_id`, `type`, `metaType`,
 * and what they bring (`companions`).
 */
export function includeOnly(output: Output, projection: Readonly<Record<string, unknown>>): Output {
  const kept: Output = {};
  for (const key of Object.keys(output)) {
    if (keptBy(projection, key)) kept[key] = output[key];
  }
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
